/**
 * Safety ordering, as OPA's compiler does it: an expression that reads a variable
 * bound only by a later expression is planned after it. The front end has already
 * proved that a safe order exists; this picks, at each step, the first remaining
 * expression whose inputs are bound (or the first one, if none qualifies).
 */
import type { Expr, Term } from "../rego/ast.js";
import type { Ctx } from "./context.js";
import { resolveCallee } from "./plan-call.js";
import { isBound, isGlobalName, isWildcard } from "./scope.js";
import { forEachVarInExpr, varsOfTerm } from "../rego/walk.js";

/** Vars the other expressions of the body mention outside comprehensions: a comprehension reading one closes over it. */
type Closure = (name: string) => boolean;
const noClosure: Closure = () => false;

/** Variables `t` reads that must already be bound (ref operands and patterns bind). */
function needs(c: Ctx, t: Term, out: Set<string>, bindable: boolean, closure: Closure = noClosure): void {
  switch (t.type) {
    case "var":
      if (!bindable && !isWildcard(t.name) && !isBound(c, t.name) && !isGlobalName(c, t.name)) out.add(t.name);
      return;
    case "ref":
      if (t.head.type !== "var") needs(c, t.head, out, false, closure);
      else needs(c, t.head, out, false, closure);
      for (const p of t.path) needs(c, p, out, p.type === "var" || p.type === "array" || p.type === "object", closure);
      return;
    case "array":
    case "set":
      for (const i of t.items) needs(c, i, out, bindable && t.type === "array", closure);
      return;
    case "object":
      for (const [k, v] of t.items) {
        needs(c, k, out, false, closure);
        needs(c, v, out, bindable, closure);
      }
      return;
    case "call":
      for (const a of t.args) needs(c, a, out, false, closure);
      return;
    case "arraycomprehension":
    case "setcomprehension":
    case "objectcomprehension":
      // Planned in place: the outer vars it reads must be bound before it.
      for (const name of varsOfTerm(t, true)) {
        if (closure(name) && !isWildcard(name) && !isBound(c, name) && !isGlobalName(c, name)) out.add(name);
      }
      return;
    default:
      return; // scalars
  }
}

function isPatternSide(t: Term): boolean {
  return t.type === "var" || t.type === "array" || t.type === "object";
}

function ready(c: Ctx, e: Expr, closure: Closure): boolean | undefined {
  const need = new Set<string>();
  const empty = (t: Term, bindable: boolean): boolean => {
    const s = new Set<string>();
    needs(c, t, s, bindable, closure);
    return s.size === 0;
  };
  if (e.negated) {
    // A negation binds nothing: everything it reads must be bound already.
    if (e.type === "callexpr") for (const a of e.args) needs(c, a, need, false, closure);
    if (e.type === "termexpr") needs(c, e.term, need, false, closure);
    return need.size === 0;
  }
  switch (e.type) {
    case "termexpr":
      return empty(e.term, false);
    case "callexpr": {
      const op = e.operator.join(".");
      if (op === "eq" || op === "assign") {
        const [a, b] = [e.args[0]!, e.args[1]!];
        return (isPatternSide(a) && empty(a, true) && empty(b, false)) || (isPatternSide(b) && empty(b, true) && empty(a, false)) || (empty(a, false) && empty(b, false));
      }
      // An extra trailing argument (beyond the arity) is the output and may be unbound.
      const arity = resolveCallee(c, e.operator)?.arity ?? e.args.length;
      e.args.forEach((a, i) => needs(c, a, need, i >= arity, closure));
      return need.size === 0;
    }
    case "some":
      return true;
    case "somein":
    case "every":
      return empty(e.domain, false);
  }
}

/** Index (>= i) of the next expression to plan. */
export function nextReady(c: Ctx, body: readonly Expr[]): number {
  const own = body.map((e) => {
    const names = new Set<string>();
    forEachVarInExpr(e, (n) => names.add(n), false);
    return names;
  });
  const count = new Map<string, number>();
  for (const names of own) for (const n of names) count.set(n, (count.get(n) ?? 0) + 1);
  for (let j = 0; j < body.length; j++) {
    const mine = own[j]!;
    const closure: Closure = (n) => (count.get(n) ?? 0) - (mine.has(n) ? 1 : 0) > 0;
    if (ready(c, body[j]!, closure) === true) return j;
  }
  return 0;
}
