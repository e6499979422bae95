/**
 * Compile-time evaluation of a call whose result the planner can prove: a user
 * function with a single definition, no condition in its body and no `else`,
 * called with scalar literals, whose value with the arguments in place of the
 * parameters is ground, e.g. `deny(reason) := {"allow": false, "reason": reason}`
 * called as `deny("input_malformed")`. The call is then a constant: laid out once in
 * static data instead of a function call that copies and completes an object on
 * every evaluation.
 */
import type { Body, Term } from "../rego/ast.js";
import { groundValue } from "./ground.js";
import type { ConstValue } from "./ir.js";
import type { RuleNode } from "./rule-index.js";

/** The value of `node(args)` when it is provably that constant; null otherwise. */
export function groundCall(node: RuleNode, args: readonly Term[]): ConstValue | null {
  if (node.kind !== "function" || node.rules.length !== 1) return null;
  const { rule } = node.rules[0]!;
  if (rule.default || rule.else !== null || rule.value === null || rule.args.length !== args.length || !unconditional(rule.body)) return null;
  const bound = new Map<string, Term>();
  for (const [i, p] of rule.args.entries()) {
    if (p.type !== "var" || bound.has(p.name)) return null;
    bound.set(p.name, args[i]!);
  }
  const value = substitute(rule.value, bound);
  return value === null ? null : groundValue(value);
}

/** A body that always holds once: the single expression `true`. */
function unconditional(body: Body): boolean {
  if (body.length !== 1) return false;
  const e = body[0]!;
  return e.type === "termexpr" && !e.negated && e.with.length === 0 && e.term.type === "boolean" && e.term.value;
}

/**
 * `t` with the bound vars replaced; null where that is not a plain substitution (an
 * unbound var, or any term other than literals, arrays and objects: sets are left
 * out, as a substituted element could repeat another).
 */
function substitute(t: Term, bound: ReadonlyMap<string, Term>): Term | null {
  switch (t.type) {
    case "var":
      return bound.get(t.name) ?? null;
    case "null":
    case "boolean":
    case "number":
    case "string":
      return t;
    case "array": {
      const items: Term[] = [];
      for (const x of t.items) {
        const s = substitute(x, bound);
        if (s === null) return null;
        items.push(s);
      }
      return { ...t, items };
    }
    case "object": {
      const items: [Term, Term][] = [];
      for (const [k, v] of t.items) {
        const sk = substitute(k, bound);
        const sv = substitute(v, bound);
        if (sk === null || sv === null) return null;
        items.push([sk, sv]);
      }
      return { ...t, items };
    }
    default:
      return null;
  }
}
