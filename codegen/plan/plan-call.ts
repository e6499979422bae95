/**
 * Calls of user functions and builtins, with `with` mocks applied. Operators are
 * already resolved by the front end: a builtin name or an absolute `data.` path.
 */
import type { Location as SrcLocation, Term } from "../rego/ast.js";
import { lookupBuiltin } from "../rego/builtins.js";
import { BlockWriter } from "./builder.js";
import { capturedArgs, type Ctx } from "./context.js";
import type { Local, Operand } from "./ir.js";
import { DATA, INPUT, local } from "./ir.js";
import type { RuleNode } from "./rule-index.js";
import { findNode } from "./rule-index.js";
import { groundCall } from "./ground-call.js";
import { locOf, nested } from "./scope.js";

export type Callee =
  | { readonly kind: "func"; readonly node: RuleNode; readonly arity: number; readonly key: string }
  | { readonly kind: "builtin"; readonly name: string; readonly arity: number; readonly key: string };

/** The function or builtin a resolved operator names; null when it names neither. */
export function resolveCallee(c: Ctx, operator: readonly string[]): Callee | null {
  if (operator[0] === "data") {
    const path = operator.slice(1);
    const node = findNode(c.s.index.root, path);
    if (node === undefined || node.kind !== "function") return null;
    return { kind: "func", node, arity: node.arity, key: path.join("/") };
  }
  const name = operator.join(".");
  const arity = c.s.builtins.get(name) ?? lookupBuiltin(name)?.args.length;
  if (arity === undefined) return null;
  return { kind: "builtin", name, arity, key: name };
}

/** Operator path of a `with` target or value naming a function (`data.lib.f`, `object.get`). */
export function operatorOf(t: Term): string[] | null {
  if (t.type === "var") return [t.name];
  if (t.type !== "ref" || t.head.type !== "var") return null;
  const out = [t.head.name];
  for (const p of t.path) {
    if (p.type !== "string") return null;
    out.push(p.value);
  }
  return out;
}

export function planResolvedCall(c: Ctx, callee: Callee, args: readonly Term[], at: SrcLocation, k: (result: Local) => void): void {
  const mock = c.mocks.get(callee.key);
  if (mock !== undefined && mock.kind === "value") {
    // The arguments are still evaluated: an undefined argument makes the call undefined.
    return planArgs(c, args.slice(0, callee.arity), [], () =>
      c.s.ops.term(c, mock.value, (o) => {
        const l = c.w.newLocal();
        c.w.emit({ type: "AssignVarStmt", source: o, target: l });
        k(l);
      }),
    );
  }
  if (mock !== undefined && mock.kind === "captured") {
    return planArgs(c, args.slice(0, callee.arity), [], () => {
      const l = c.w.newLocal();
      c.w.emit({ type: "AssignVarStmt", source: capturedArgs(c, new Map([["", mock]]))[0]!, target: l });
      k(l);
    });
  }
  // `with f as g`: the arguments are planned under the current mocks; the
  // replacement runs without the function mocks in force ("a mock will not call
  // another mock", OPA); replaced documents stay.
  let target = callee;
  let calleeMocks = c.mocks;
  if (mock !== undefined && mock.kind === "func") {
    const op = operatorOf(mock.target);
    const resolved = op === null ? null : resolveCallee(c, op);
    if (resolved !== null && resolved.key !== callee.key) {
      target = resolved;
      calleeMocks = new Map([...c.mocks].filter(([, m]) => m.kind === "data"));
    }
  }
  if (mock === undefined && target.kind === "func" && c.s.coverage === null && args.slice(0, callee.arity).every(isScalarLiteral)) {
    // `f("x")` whose value is provably a constant (ground-call.ts): no call at all.
    const value = groundCall(target.node, args.slice(0, callee.arity));
    if (value !== null) {
      c.w.loc = locOf(c, at);
      const result = c.w.newLocal();
      c.w.emit({ type: "MakeConstStmt", index: c.s.statics.constant(value), target: result });
      return k(result);
    }
  }
  if (target.kind === "func" && c.w.inLoop && capturedArgs(c, calleeMocks).length === 0 && args.slice(0, callee.arity).every(isScalarLiteral)) {
    // Inside a loop, `f(1, "a")` is a function of no arguments: memoised per evaluation by the backend.
    c.w.loc = locOf(c, at);
    const result = c.w.newLocal();
    const func = constantCall(c, target.node, calleeMocks, args.slice(0, callee.arity));
    c.w.emit({ type: "CallStmt", func, args: [local(c.input), local(c.data)], result });
    return k(result);
  }
  // Every argument is evaluated before the call, as OPA's rewriteDynamics lifts ref
  // arguments into `__localN__ = ref` first: an undefined argument makes the call undefined.
  planArgs(c, args.slice(0, callee.arity), [], (ops) => {
    c.w.loc = locOf(c, at);
    const result = c.w.newLocal();
    if (target.kind === "func") {
      const saved = c.mocks;
      c.mocks = calleeMocks;
      const name = c.s.ops.ruleFunc(c, target.node);
      c.mocks = saved;
      c.w.emit({ type: "CallStmt", func: name, args: [local(c.input), local(c.data), ...ops, ...capturedArgs(c, calleeMocks)], result });
    } else {
      if (!c.s.builtins.has(target.name)) {
        c.s.errors.push({ code: "rego_type_error", message: `OPA builtin ${target.name} is not supported yet`, location: at });
        return;
      }
      c.s.statics.builtin(target.name, target.arity);
      c.w.emit({ type: "CallStmt", func: target.name, args: ops, result });
    }
    k(result);
  });
}

function isScalarLiteral(t: Term): boolean {
  return t.type === "string" || t.type === "number" || t.type === "boolean" || t.type === "null";
}

/** A scalar literal as JSON-able data that tells `1` from `"1"`. */
function literalKey(t: Term): unknown {
  switch (t.type) {
    case "number": return { n: t.text };
    case "string": return t.value;
    case "boolean": return t.value;
    default: return null;
  }
}

/**
 * The name of a function of no arguments computing `node(args)` (scalar literals)
 * under `mocks`: it plans the arguments and calls the function. Named and planned
 * once per callee, mocks and arguments.
 */
function constantCall(c: Ctx, node: RuleNode, mocks: Ctx["mocks"], args: readonly Term[]): string {
  const saved = c.mocks;
  c.mocks = mocks;
  const callee = c.s.ops.ruleFunc(c, node);
  c.mocks = saved;
  const key = `const|${callee}|${JSON.stringify(args.map(literalKey))}`;
  const known = c.s.funcNames.get(key);
  if (known !== undefined) return known;
  const name = `${callee}#${c.s.funcNames.size}`;
  c.s.funcNames.set(key, name);
  const w = new BlockWriter();
  w.loc = c.w.loc;
  const fc: Ctx = { s: c.s, w, vars: new Map(), input: INPUT, data: DATA, mocks, captured: new Map(), depth: 0 };
  const ret = w.newLocal();
  const body = nested(fc, () =>
    planArgs(fc, args, [], (ops) => {
      const r = w.newLocal();
      w.emit({ type: "CallStmt", func: callee, args: [local(INPUT), local(DATA), ...ops], result: r });
      w.emit({ type: "AssignVarStmt", source: local(r), target: ret });
    }),
  );
  const done = w.block(() => w.emit({ type: "ReturnLocalStmt", source: ret }));
  c.s.funcs.push({ name, params: [INPUT, DATA], return: ret, blocks: [body, done], path: [...node.path] });
  return name;
}

function planArgs(c: Ctx, ts: readonly Term[], acc: Operand[], k: (ops: Operand[]) => void): void {
  if (acc.length === ts.length) return k(acc);
  c.s.ops.term(c, ts[acc.length]!, (o) => planArgs(c, ts, [...acc, o], k));
}
