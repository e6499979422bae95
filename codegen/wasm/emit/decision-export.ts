/**
 * `toolgate_decision(entrypoint, input, data) -> i32`: evaluates an entrypoint and
 * returns its decision as one scalar instead of a result set to dump and parse.
 * A decision is the rule value `{"allow": bool, "reason": string,
 * "requires_approval": bool}` (other members are ignored, as the host's
 * `toDecision` ignores them):
 *
 * the scalar of `DECISION` / `decisionScalar` in src/policy/abi.ts (undefined when the
 * result set does not hold exactly one result, malformed when it is not such an
 * object, else the reason's string cell address with the flag bits). A reason the
 * policy spells out is a static string cell, the same address on every call, so a
 * host keeps a table of them by address.
 *
 * The caller sets the heap pointer first, as for `eval`; nothing is dumped.
 */
import * as binaryen from "../link/builder-api.js";
import type { EmitEnv } from "./emit-func.js";
import { CODE_EXPORTS as RT, DECISION, MODULE_EXPORTS, T_BOOLEAN, T_OBJECT, T_STRING } from "../../../src/policy/abi.js";

const i32 = binaryen.i32;

/**
 * `valuePlans[id]`: a function `(input, data) -> value` returning the entrypoint's rule
 * value directly (no result set, no `{"result": v}` wrapper), or null to go through
 * `evalFunction`; `evalStart` gives what `toolgate.eval` does before dispatching.
 */
export function addDecisionExport(
  env: EmitEnv,
  evalFunction: string,
  valuePlans: readonly (string | null)[],
  evalStart: () => binaryen.ExpressionRef[],
): void {
  const m = env.m;
  const [ep, input, data, rs, res, allow, reason, ask, members] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const get = (l: number): binaryen.ExpressionRef => m.local.get(l, i32);
  // The tag byte of a cell, read inline (address 0, undefined, is checked next to it and reads harmlessly).
  const type = (l: number): binaryen.ExpressionRef => m.i32.load8_u(0, 1, get(l));
  // A boolean cell's 0/1 byte; called only once the cell is known to be a boolean.
  const truth = (l: number): binaryen.ExpressionRef => m.i32.load8_u(1, 1, get(l));
  // A decision object the policy spells out is laid out with its keys in order
  // (allow, reason, requires_approval, then any others): the key cell at that index is
  // tried first and taken only when it is the name's own static cell.
  const member = (target: number, name: string, at: number): binaryen.ExpressionRef => {
    const cell = env.data.string(name);
    // The entry is read only when the object has one at that index (a read past the end could trap).
    const has = m.i32.gt_u(m.i32.load(4, 4, get(res)), m.i32.const(at));
    const same = m.i32.eq(m.i32.load(8 * at, 4, m.local.tee(members, m.i32.load(12, 4, get(res)), i32)), m.i32.const(cell));
    const call = (): binaryen.ExpressionRef => m.call(env.rt(RT.valueGet), [get(res), m.i32.const(cell)], i32);
    return m.local.set(target, m.if(has, m.if(same, m.i32.load(8 * at + 4, 4, m.local.get(members, i32)), call()), call()));
  };
  const flag = (l: number, bit: number): binaryen.ExpressionRef => (bit === 1 ? truth(l) : m.i32.shl(truth(l), m.i32.const(Math.log2(bit))));
  const malformedUnless = (l: number, tag: number): binaryen.ExpressionRef =>
    m.if(m.i32.or(m.i32.eqz(get(l)), m.i32.ne(type(l), m.i32.const(tag))), m.return(m.i32.const(DECISION.malformed)));
  const got = "got_value";
  const direct: binaryen.ExpressionRef[] = [];
  valuePlans.forEach((name, id) => {
    if (name === null) return;
    direct.push(m.if(m.i32.eq(get(ep), m.i32.const(id)), m.block(null, [
      ...evalStart(),
      m.local.set(res, m.call(name, [get(input), get(data)], i32)),
      m.if(m.i32.eqz(get(res)), m.return(m.i32.const(DECISION.undefined))),
      m.br(got),
    ])));
  });
  const body = m.block(
    null,
    [
      m.block(got, [
        ...direct,
        m.local.set(rs, m.call(evalFunction, [m.i32.const(0), get(ep), get(input), get(data)], i32)),
        m.if(m.i32.eqz(get(rs)), m.return(m.i32.const(DECISION.undefined))),
        m.if(m.i32.ne(m.call(env.rt(RT.valueLength), [get(rs)], i32), m.i32.const(1)), m.return(m.i32.const(DECISION.undefined))),
        m.local.set(res, m.call(env.rt(RT.valueAt), [get(rs), m.i32.const(0)], i32)),
        m.if(m.i32.eqz(get(res)), m.return(m.i32.const(DECISION.malformed))),
        m.local.set(res, m.call(env.rt(RT.valueGet), [get(res), m.i32.const(env.data.string("result"))], i32)),
      ]),
      malformedUnless(res, T_OBJECT),
      member(allow, "allow", 0),
      malformedUnless(allow, T_BOOLEAN),
      member(ask, "requires_approval", 2),
      malformedUnless(ask, T_BOOLEAN),
      member(reason, "reason", 1),
      malformedUnless(reason, T_STRING),
      // decisionScalar(allow, ask, reason): a boolean's byte (0/1) shifted to its flag bit.
      m.i32.or(m.i32.or(get(reason), m.i32.const(DECISION.defined)), m.i32.or(flag(allow, DECISION.allow), flag(ask, DECISION.requiresApproval))),
    ],
    i32,
  );
  m.addFunction(MODULE_EXPORTS.decision, binaryen.createType([i32, i32, i32]), i32, [i32, i32, i32, i32, i32, i32], body);
  m.addFunctionExport(MODULE_EXPORTS.decision, MODULE_EXPORTS.decision);
}
