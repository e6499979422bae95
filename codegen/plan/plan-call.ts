/** Calls of user functions and builtins, with `with` mocks applied. */
import type { Location as SrcLocation, Term } from "../rego/ast.js";
import type { Ctx } from "./context.js";
import type { Local, Operand } from "./ir.js";
import { local } from "./ir.js";
import type { RuleNode } from "./rule-index.js";
import { findNode, importAliases } from "./rule-index.js";
import { lookupBuiltin } from "../rego/builtins.js";
import { locOf } from "./scope.js";

export type Callee =
  | { readonly kind: "func"; readonly node: RuleNode; readonly arity: number; readonly key: string }
  | { readonly kind: "builtin"; readonly name: string; readonly arity: number; readonly key: string };

/** Resolves a call's operator (as written) to a user function or a builtin. */
export function resolveCallee(c: Ctx, operator: readonly string[]): Callee | null {
  let path: readonly string[] | null = null;
  if (operator[0] === "data") path = operator.slice(1);
  else {
    const alias = importAliases(c.module.imports).get(operator[0]!);
    if (alias !== undefined && alias[0] === "data") path = [...alias.slice(1), ...operator.slice(1)];
    else if (c.module.package.path.length > 1) {
      const pkg = c.module.package.path.slice(1);
      const n = findNode(c.s.index.root, [...pkg, ...operator]);
      if (n !== undefined && n.kind === "function") path = [...pkg, ...operator];
    }
  }
  if (path !== null) {
    const node = findNode(c.s.index.root, path);
    if (node === undefined || node.kind !== "function") return null;
    const first = node.rules[0]!.rule.head;
    const arity = first.kind === "function" ? first.args.length : 0;
    return { kind: "func", node, arity, key: path.join("/") };
  }
  const name = operator.join(".");
  const arity = c.s.builtins.get(name) ?? lookupBuiltin(name)?.args.length;
  if (arity === undefined) return null;
  return { kind: "builtin", name, arity, key: name };
}

/** Operator path of a `with` target or value naming a function (`f`, `data.lib.f`, `object.get`). */
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

/**
 * Plans `operator(args...)` and passes the result local to `k`. Undefined results and
 * unknown functions make the statement undefined (the latter is also reported).
 */
export function planCall(
  c: Ctx,
  operator: readonly string[],
  args: readonly Term[],
  at: SrcLocation,
  _isExpr: boolean,
  k: (result: Local) => void,
): void {
  const callee = resolveCallee(c, operator);
  if (callee === null) {
    c.s.errors.push({
      code: "rego_type_error",
      message: `undefined function ${operator.join(".")}`,
      location: at,
    });
    return;
  }
  planResolvedCall(c, callee, args, at, k);
}

export function planResolvedCall(c: Ctx, callee: Callee, args: readonly Term[], at: SrcLocation, k: (result: Local) => void): void {
  const mock = c.mocks.get(callee.key);
  if (mock !== undefined && mock.kind === "value") {
    // The arguments are still evaluated: an undefined argument makes the call undefined.
    return planArgs(c, args.slice(0, callee.arity), [], () => {
      const saved = c.module;
      c.module = mock.module;
      c.s.ops.term(c, mock.value, (o) => {
        c.module = saved;
        const l = c.w.newLocal();
        c.w.emit({ type: "AssignVarStmt", source: o, target: l });
        k(l);
      });
      c.module = saved;
    });
  }
  // `with f as g`: the arguments are planned under the current mocks; the
  // replacement runs without the function mocks in force ("a mock will not call
  // another mock", OPA); replaced documents stay.
  let target = callee;
  let calleeMocks = c.mocks;
  if (mock !== undefined && mock.kind === "func") {
    const op = operatorOf(mock.target);
    const saved = c.module;
    c.module = mock.module;
    const resolved = op === null ? null : resolveCallee(c, op);
    c.module = saved;
    if (resolved !== null && resolved.key !== callee.key) {
      target = resolved;
      calleeMocks = new Map([...c.mocks].filter(([, m]) => m.kind === "data"));
    }
  }
  planArgs(c, args.slice(0, callee.arity), [], (ops) => {
    c.w.loc = locOf(c, at);
    const result = c.w.newLocal();
    if (target.kind === "func") {
      const saved = c.mocks;
      c.mocks = calleeMocks;
      const name = c.s.ops.ruleFunc(c, target.node);
      c.mocks = saved;
      c.w.emit({ type: "CallStmt", func: name, args: [local(c.input), local(c.data), ...ops], result });
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

function planArgs(c: Ctx, ts: readonly Term[], acc: Operand[], k: (ops: Operand[]) => void): void {
  if (acc.length === ts.length) return k(acc);
  c.s.ops.term(c, ts[acc.length]!, (o) => planArgs(c, ts, [...acc, o], k));
}
