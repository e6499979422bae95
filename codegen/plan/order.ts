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

/** Variables `t` reads that must already be bound (ref operands and patterns bind). */
function needs(c: Ctx, t: Term, out: Set<string>, bindable: boolean): void {
  switch (t.type) {
    case "var":
      if (!bindable && !isWildcard(t.name) && !isBound(c, t.name) && !isGlobalName(c, t.name)) out.add(t.name);
      return;
    case "ref":
      if (t.head.type !== "var") needs(c, t.head, out, false);
      else needs(c, t.head, out, false);
      for (const p of t.path) needs(c, p, out, p.type === "var" || p.type === "array" || p.type === "object");
      return;
    case "array":
    case "set":
      for (const i of t.items) needs(c, i, out, bindable && t.type === "array");
      return;
    case "object":
      for (const [k, v] of t.items) {
        needs(c, k, out, false);
        needs(c, v, out, bindable);
      }
      return;
    case "call":
      for (const a of t.args) needs(c, a, out, false);
      return;
    default:
      return; // scalars; comprehensions close over what they need and are planned in place
  }
}

function isPatternSide(t: Term): boolean {
  return t.type === "var" || t.type === "array" || t.type === "object";
}

function ready(c: Ctx, e: Expr): boolean | undefined {
  const need = new Set<string>();
  const empty = (t: Term, bindable: boolean): boolean => {
    const s = new Set<string>();
    needs(c, t, s, bindable);
    return s.size === 0;
  };
  if (e.negated) {
    // A negation binds nothing: everything it reads must be bound already.
    if (e.type === "callexpr") for (const a of e.args) needs(c, a, need, false);
    if (e.type === "termexpr") needs(c, e.term, need, false);
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
      e.args.forEach((a, i) => needs(c, a, need, i >= arity));
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
  for (let j = 0; j < body.length; j++) if (ready(c, body[j]!) === true) return j;
  return 0;
}
