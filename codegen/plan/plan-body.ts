/**
 * Query bodies: expressions in order, each planned with the rest of the body as its
 * continuation. `not`, `every` and `with` are handled here.
 */
import type { Body, CallExpr, Every, Expr, Term, WithModifier } from "../rego/ast.js";
import type { Ctx, Mock } from "./context.js";
import { bool, local } from "./ir.js";
import { operatorOf, planResolvedCall, resolveCallee } from "./plan-call.js";
import { asLocal, declare, isBound, locOf, loopBody, nested, termVars } from "./scope.js";
import { forEachVar } from "../rego/walk.js";
import { findNode, hasValueRules } from "./rule-index.js";

/** The front end ordered the body: every expression is planned where it stands. */
export function planBody(c: Ctx, body: Body, k: () => void, i = 0): void {
  if (i === body.length) return k();
  planExpr(c, body[i]!, () => planBody(c, body, k, i + 1));
}

function planExpr(c: Ctx, e: Expr, k: () => void): void {
  c.w.loc = locOf(c, e.location);
  const point = c.s.coverage?.exprs.get(e);
  if (point !== undefined) c.w.emit({ type: "CoverStmt", point });
  if (e.with.length > 0) return planWith(c, e, e.with, k);
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
    case "not": {
      const block = nested(c, () => planBody(c, e.body, () => {}));
      c.w.emit({ type: "NotStmt", block });
      return k();
    }
    case "every":
      return planEvery(c, e, k);
    case "some":
    case "somein":
      return internalError(c, e, `${e.type} expression left in a checked body`);
  }
}

/** A shape the front end never leaves in a checked program. */
function internalError(c: Ctx, e: Expr, what: string): void {
  c.s.errors.push({ code: "rego_compile_error", message: `internal compiler error: ${what}`, location: e.location });
}

function planCallExpr(c: Ctx, e: CallExpr, k: () => void): void {
  const op = e.operator.join(".");
  if (op === "eq") return c.s.ops.unify(c, e.args[0]!, e.args[1]!, k);
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
  if (callee === null) return internalError(c, e, `unresolved function ${op}`);
  planResolvedCall(c, callee, e.args, e.location, (r) => {
    const out = e.args[callee.arity];
    if (out !== undefined) return c.s.ops.unifyOperand(c, out, local(r), k);
    c.w.emit({ type: "NotEqualStmt", a: local(r), b: bool(false) });
    k();
  });
}

/**
 * `print(a, b)`: the front end made each operand the set of its values (empty when
 * undefined, as OPA's rewriting does); the runtime formats the line and the host
 * prints it. Always true.
 */
function planPrint(c: Ctx, e: CallExpr, k: () => void): void {
  const arr = c.w.newLocal();
  c.w.emit({ type: "MakeArrayStmt", capacity: e.args.length, target: arr });
  const append = (i: number): void => {
    if (i === e.args.length) {
      c.w.emit({ type: "CallStmt", func: "print", args: [local(arr)], result: c.w.newLocal() });
      return k();
    }
    c.s.ops.term(c, e.args[i]!, (o) => {
      c.w.emit({ type: "ArrayAppendStmt", array: arr, value: o });
      append(i + 1);
    });
  };
  append(0);
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
  const block = loopBody(c, () => {
    const bindValue = (): void => c.s.ops.unifyOperand(c, valueT, local(value), k);
    if (keyT === null) bindValue();
    else c.s.ops.unifyOperand(c, keyT, local(key), bindValue);
  });
  c.w.emit({ type: "ScanStmt", source, key, value, block });
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
  const saved = { input: c.input, data: c.data, mocks: c.mocks, captured: c.captured };
  applyMods(c, mods, 0, () => {
    const replaced = { input: c.input, data: c.data, mocks: c.mocks, captured: c.captured };
    planExpr(c, { ...e, with: [] }, () => {
      Object.assign(c, saved);
      k();
      Object.assign(c, replaced);
    });
    Object.assign(c, saved);
  });
}

/** Targets are absolute (`input...`, `data...`, or a builtin name), resolved by the front end. */
function applyMods(c: Ctx, mods: readonly WithModifier[], i: number, k: () => void): void {
  if (i === mods.length) return k();
  const m = mods[i]!;
  c.w.loc = locOf(c, m.location);
  const target = operatorOf(m.target);
  if (target === null) {
    c.s.errors.push({ code: "rego_compile_error", message: "internal compiler error: with target is not a name", location: m.location });
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
    c.s.errors.push({ code: "rego_compile_error", message: `internal compiler error: with target ${target.join(".")} is not a function`, location: m.location });
    return;
  }
  const setMock = (mock: Mock): void => {
    c.mocks = new Map(c.mocks).set(callee.key, mock);
    next();
  };
  const value = m.value;
  const op = operatorOf(value);
  // `with f as g` names a function or builtin (a ref whose head no local shadows).
  if (op !== null && value.type === "ref" && !c.vars.has(op[0]!) && resolveCallee(c, op) !== null) return setMock({ kind: "func", target: value });
  if (!readsLocals(c, value)) return setMock({ kind: "value", value });
  c.s.ops.term(c, value, (o) => {
    const id = c.s.captures++;
    c.captured = new Map(c.captured).set(id, asLocal(c, o));
    setMock({ kind: "captured", id });
  });
}

/** Does `t` read a local bound in this body (directly or in a comprehension's closure)? */
function readsLocals(c: Ctx, t: Term): boolean {
  let found = false;
  forEachVar(t, (n) => {
    if (isBound(c, n)) found = true;
  });
  return found;
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
