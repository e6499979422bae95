/**
 * The newer syntax rewritten into forms every later stage already handles. The
 * parser calls these as it reads; each result keeps what was written in `source` /
 * `template` for the formatter, so `fmt` prints the new syntax back.
 *
 * - `$"a{x}b"` -> `internal.template_string(["a", {v | v = x}, "b"])`, OPA's own
 *   lowering: each interpolation becomes the set of its values (empty when undefined,
 *   which renders `<undefined>`; more than one value is an error at evaluation).
 * - `not { a; b }` -> `not {true | a; b}[true]`: the set is `{true}` exactly when the
 *   body has a solution. The body is a closure, as a comprehension's: its own
 *   variables stay inside, variables of the enclosing body are read.
 * - `a and b` -> `{true | a; b}[true]`; `a or b` -> `not {true | not A; not B}[true]`
 *   where `A` = `{true | a}[true]`: each operand is a closure that binds nothing
 *   outside, `or` stops at the first operand that holds.
 */
import type { Body, CallTerm, Expr, Location, LogicalOperand, RefTerm, Term, TemplateSource } from "./ast.js";

/** The builtin OPA lowers template strings to (operands: literal strings and value sets). */
export const TEMPLATE_STRING_BUILTIN = ["internal", "template_string"] as const;

export function templateCall(template: TemplateSource, location: Location): CallTerm {
  const items: Term[] = [];
  for (const p of template.parts) {
    if (typeof p === "string") items.push({ type: "string", value: p, location });
    else items.push(valueSet(p));
  }
  return {
    type: "call",
    operator: TEMPLATE_STRING_BUILTIN,
    args: [{ type: "array", items, location }],
    location,
    template,
  };
}

/**
 * The set of `t`'s values, `{v | v = t}`: empty when `t` is undefined. A variable
 * is its own `v` (`{x | x = x}`: the enclosing body's `x`, or a rule's value, and
 * an unsafe `x` is reported as itself); otherwise `v` is named after the nesting
 * level, so a template inside an interpolation gets its own.
 */
function valueSet(t: Term): Term {
  const v: Term = t.type === "var" ? t : { type: "var", name: `${TEMPLATE_VALUE}${templateLevel(t)}`, location: t.location };
  const body: Body = [{ type: "callexpr", operator: ["eq"], args: [v, t], negated: false, with: [], location: t.location }];
  return { type: "setcomprehension", term: v, body, location: t.location };
}

/** A name Rego source cannot spell (`$`), and one the planner does not take for a wildcard (leading `$`). */
const TEMPLATE_VALUE = "template$";

/** One more than the deepest template value variable inside `x`. */
function templateLevel(x: unknown): number {
  if (Array.isArray(x)) return x.reduce((m: number, i: unknown) => Math.max(m, templateLevel(i)), 0);
  if (typeof x !== "object" || x === null) return 0;
  const o = x as { type?: unknown; name?: unknown };
  if (o.type === "var" && typeof o.name === "string" && o.name.startsWith(TEMPLATE_VALUE)) return Number(o.name.slice(TEMPLATE_VALUE.length)) + 1;
  return Object.values(o).reduce((m: number, i: unknown) => Math.max(m, templateLevel(i)), 0);
}

/** `{true | body}[true]`: defined (and true) exactly when `body` has a solution. */
function holds(body: Body, location: Location): RefTerm {
  const yes: Term = { type: "boolean", value: true, location };
  return { type: "ref", head: { type: "setcomprehension", term: yes, body, location }, path: [yes], location };
}

function test(body: Body, negated: boolean, location: Location): Expr {
  const expr: Expr = { type: "termexpr", term: holds(body, location), negated, with: [], location };
  return negated ? { ...expr, composite: true } : expr;
}

export function notBlock(body: Body, location: Location, paren = false): Expr {
  return { ...test(body, true, location), source: paren ? { kind: "notblock", body, paren } : { kind: "notblock", body } };
}

export function operandBody(o: LogicalOperand): Body {
  return "block" in o ? o.block : [o.expr];
}

export function logical(op: "and" | "or", operands: readonly LogicalOperand[], location: Location): Expr {
  const source = { kind: "logical", op, operands } as const;
  if (op === "and") return { ...test(operands.flatMap(operandBody), false, location), source };
  const none = operands.map((o) => test(operandBody(o), true, "block" in o ? o.location : o.expr.location));
  return { ...test(none, true, location), source };
}
