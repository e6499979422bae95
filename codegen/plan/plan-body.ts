/**
 * Query bodies: expressions in order, each planned with the rest of the body as its
 * continuation. `not`, `every` and `with` are handled here.
 */
import type { Body, CallExpr, Every, Expr, SomeIn, Term, WithModifier } from "../rego/ast.js";
import type { Ctx, Mock } from "./context.js";
import { bool, local } from "./ir.js";
import { operatorOf, planResolvedCall, resolveCallee } from "./plan-call.js";
import { asLocal, declare, locOf, nested, termVars } from "./scope.js";
import { nextReady } from "./order.js";
import { findNode, hasValueRules, importAliases } from "./rule-index.js";

export function planBody(c: Ctx, body: Body, k: () => void): void {
  if (body.length === 0) return k();
  const j = body.length === 1 ? 0 : nextReady(c, body);
  planExpr(c, body[j]!, () => planBody(c, [...body.slice(0, j), ...body.slice(j + 1)], k));
}

function planExpr(c: Ctx, e: Expr, k: () => void): void {
  c.w.loc = locOf(c, e.location);
  const point = c.s.coverage?.exprs.get(e);
  if (point !== undefined) c.w.emit({ type: "CoverStmt", point });
  if (e.with.length > 0) return planWith(c, e, e.with, k);
  if (e.negated) {
    const block = nested(c, () => planExprInner(c, e, () => {}));
    c.w.emit({ type: "NotStmt", block });
    return k();
  }
  planExprInner(c, e, k);
}

function planExprInner(c: Ctx, e: Expr, k: () => void): void {
  switch (e.type) {
    case "termexpr":
      return c.s.ops.term(c, e.term, (o) => {
        c.w.emit({ type: "NotEqualStmt", a: o, b: bool(false) });
        k();
      });
    case "callexpr":
      return planCallExpr(c, e, k);
    case "some":
      return declare(c, e.vars.map((v) => v.name), k);
    case "somein":
      return planSomeIn(c, e, k);
    case "every":
      return planEvery(c, e, k);
  }
}

function planCallExpr(c: Ctx, e: CallExpr, k: () => void): void {
  const op = e.operator.join(".");
  if (op === "eq") return c.s.ops.unify(c, e.args[0]!, e.args[1]!, k);
  if (op === "assign") return declare(c, termVars(e.args[0]!), () => c.s.ops.unify(c, e.args[0]!, e.args[1]!, k));
  if ((op === "equal" || op === "neq") && e.args.length === 2 && !c.mocks.has(op)) {
    return c.s.ops.term(c, e.args[0]!, (a) =>
      c.s.ops.term(c, e.args[1]!, (b) => {
        c.w.emit({ type: op === "equal" ? "EqualStmt" : "NotEqualStmt", a, b });
        k();
      }),
    );
  }
  if (op === "print" && !c.mocks.has(op)) return planPrint(c, e, k);
  if (op === "walk" && e.args.length === 2 && !c.mocks.has(op)) return planWalk(c, e, k);
  const callee = resolveCallee(c, e.operator);
  if (callee === null) {
    c.s.errors.push({ code: "rego_type_error", message: `undefined function ${op}`, location: e.location });
    return;
  }
  if (e.args.length !== callee.arity && e.args.length !== callee.arity + 1) {
    c.s.errors.push({
      code: "rego_type_error",
      message: `${op}: arity mismatch: expected ${callee.arity} arguments, got ${e.args.length}`,
      location: e.location,
    });
    return;
  }
  planResolvedCall(c, callee, e.args, e.location, (r) => {
    const out = e.args[callee.arity];
    if (out !== undefined) return c.s.ops.unifyOperand(c, out, local(r), k);
    c.w.emit({ type: "NotEqualStmt", a: local(r), b: bool(false) });
    k();
  });
}

/** Scans `source`, matching each key/value against the pattern terms, then `k` inside. */
/**
 * `print(a, b)`: each operand is collected into a set (undefined -> empty, as OPA's
 * rewriting does); the runtime formats the line and the host prints it. Always true.
 */
function planPrint(c: Ctx, e: CallExpr, k: () => void): void {
  const arr = c.w.newLocal();
  c.w.emit({ type: "MakeArrayStmt", capacity: e.args.length, target: arr });
  for (const a of e.args) {
    const set = c.w.newLocal();
    c.w.emit({ type: "MakeSetStmt", target: set });
    const block = nested(c, () => c.s.ops.term(c, a, (o) => c.w.emit({ type: "SetAddStmt", set, value: o })));
    c.w.emit({ type: "BlockStmt", blocks: [block] });
    c.w.emit({ type: "ArrayAppendStmt", array: arr, value: local(set) });
  }
  c.w.emit({ type: "CallStmt", func: "print", args: [local(arr)], result: c.w.newLocal() });
  k();
}

/** `walk(x, [path, value])` is a relation: a scan over the runtime's list of pairs. */
function planWalk(c: Ctx, e: CallExpr, k: () => void): void {
  if (!c.s.builtins.has("walk")) {
    c.s.errors.push({ code: "rego_type_error", message: "OPA builtin walk is not supported yet", location: e.location });
    return;
  }
  c.s.ops.term(c, e.args[0]!, (x) => {
    const pairs = c.w.newLocal();
    c.s.statics.builtin("walk", 1);
    c.w.emit({ type: "CallStmt", func: "walk", args: [x], result: pairs });
    scanInto(c, pairs, null, e.args[1]!, k);
  });
}

function scanInto(c: Ctx, source: number, keyT: Term | null, valueT: Term, k: () => void): void {
  const key = c.w.newLocal();
  const value = c.w.newLocal();
  const block = nested(c, () => {
    const bindValue = (): void => c.s.ops.unifyOperand(c, valueT, local(value), k);
    if (keyT === null) bindValue();
    else c.s.ops.unifyOperand(c, keyT, local(key), bindValue);
  });
  c.w.emit({ type: "ScanStmt", source, key, value, block });
}

function planSomeIn(c: Ctx, e: SomeIn, k: () => void): void {
  c.s.ops.term(c, e.domain, (d) => {
    const source = asLocal(c, d);
    declare(c, [...termVars(e.key), ...termVars(e.value)], () => scanInto(c, source, e.key, e.value, k));
  });
}

/** `every k, v in xs { body }` is `not (some k, v in xs; not body)` over a defined domain. */
function planEvery(c: Ctx, e: Every, k: () => void): void {
  c.s.ops.term(c, e.domain, (d) => {
    const source = asLocal(c, d);
    // Only collections are domains: `every x in 42 {...}` is undefined.
    const notA = (type: "IsArrayStmt" | "IsObjectStmt" | "IsSetStmt") => nested(c, () => c.w.emit({ type, source: local(source) }));
    const notCollection = nested(c, () => {
      c.w.emit({ type: "NotStmt", block: notA("IsArrayStmt") });
      c.w.emit({ type: "NotStmt", block: notA("IsObjectStmt") });
      c.w.emit({ type: "NotStmt", block: notA("IsSetStmt") });
    });
    c.w.emit({ type: "NotStmt", block: notCollection });
    const outer = nested(c, () =>
      declare(c, [...termVars(e.key), ...termVars(e.value)], () =>
        scanInto(c, source, e.key, e.value, () => {
          const inner = nested(c, () => planBody(c, e.body, () => {}));
          c.w.emit({ type: "NotStmt", block: inner });
        }),
      ),
    );
    c.w.emit({ type: "NotStmt", block: outer });
    k();
  });
}

/** `expr with target as value ...`: replaced documents and mocks for this expression only. */
function planWith(c: Ctx, e: Expr, mods: readonly WithModifier[], k: () => void): void {
  const saved = { input: c.input, data: c.data, mocks: c.mocks };
  applyMods(c, mods, 0, () => {
    const replaced = { input: c.input, data: c.data, mocks: c.mocks };
    planExpr(c, { ...e, with: [] }, () => {
      Object.assign(c, saved);
      k();
      Object.assign(c, replaced);
    });
    Object.assign(c, saved);
  });
}

function applyMods(c: Ctx, mods: readonly WithModifier[], i: number, k: () => void): void {
  if (i === mods.length) return k();
  const m = mods[i]!;
  c.w.loc = locOf(c, m.location);
  const written = operatorOf(m.target);
  const target = written === null ? null : absoluteWithTarget(c, written);
  if (target === null) {
    c.s.errors.push({ code: "rego_compile_error", message: "with: invalid target", location: m.location });
    return;
  }
  const next = (): void => applyMods(c, mods, i + 1, k);
  const fnTarget = target[0] === "data" ? findNode(c.s.index.root, target.slice(1)) : undefined;
  const isFuncTarget = fnTarget !== undefined && fnTarget.kind === "function";
  if (target[0] === "input" || (target[0] === "data" && !isFuncTarget)) {
    return c.s.ops.term(c, m.value, (v) => {
      const root = target[0] === "input" ? c.input : c.data;
      const replaced = c.w.newLocal();
      const path = target.slice(1).map((s) => c.s.statics.string(s));
      c.w.emit({ type: "WithStmt", local: root, path, value: v, target: replaced });
      if (target[0] === "input") c.input = replaced;
      else {
        c.data = replaced;
        c.mocks = withDataMocks(c, target.slice(1));
      }
      next();
    });
  }
  const callee = resolveCallee(c, target);
  if (callee === null) {
    c.s.errors.push({ code: "rego_compile_error", message: `with: unknown function ${target.join(".")}`, location: m.location });
    return;
  }
  const valueOp = operatorOf(m.value);
  const isFunc = valueOp !== null && resolveCallee(c, valueOp) !== null;
  const mock: Mock = isFunc ? { kind: "func", target: m.value, module: c.module } : { kind: "value", value: m.value, module: c.module };
  const mocks = new Map(c.mocks);
  mocks.set(callee.key, mock);
  c.mocks = mocks;
  next();
}

/**
 * A target written through an import alias (`import data.cfg` ... `with cfg.level`)
 * or naming a value rule of the package is the absolute document path, as OPA
 * resolves refs in `with` targets; functions and builtins stay as written.
 */
function absoluteWithTarget(c: Ctx, target: readonly string[]): readonly string[] {
  const head = target[0]!;
  if (head === "input" || head === "data") return target;
  const alias = importAliases(c.module.imports).get(head);
  if (alias !== undefined) return [...alias, ...target.slice(1)];
  const pkg = c.module.package.path;
  if (pkg.length > 1) {
    const n = findNode(c.s.index.root, [...pkg.slice(1), head]);
    if (n !== undefined && n.kind !== "function") return [...pkg, ...target];
  }
  return target;
}

/** Rule nodes at or below `path` now read their value from the replaced data. */
function withDataMocks(c: Ctx, path: readonly string[]): ReadonlyMap<string, Mock> {
  const mocks = new Map(c.mocks);
  // A path inside a rule (data.p.x where p is a rule) mocks the whole rule node.
  let n = c.s.index.root;
  for (const seg of path) {
    const child = n.children.get(seg);
    if (child === undefined) break;
    n = child;
  }
  const start = findNode(c.s.index.root, path) ?? (n.rules.length > 0 ? n : undefined);
  const mark = (node: typeof n): void => {
    if (node.rules.length > 0 && node.kind !== "function") mocks.set(node.path.join("/"), { kind: "data" });
    for (const ch of node.children.values()) if (hasValueRules(ch)) mark(ch);
  };
  if (start !== undefined) mark(start);
  return mocks;
}
