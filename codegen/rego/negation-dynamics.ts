/**
 * The references a plain negation reads as call operands are evaluated before the
 * negation, as OPA's compiler does (its `rewriteDynamics` stage runs after safety):
 * `not startswith(input.missing, "a")` is `t = input.missing; not startswith(t, "a")`,
 * so an undefined operand makes the body fail instead of the negation hold.
 *
 * Per expression of the negated body (OPA's rewriteDynamicsCallExpr / EqExpr / TermExpr):
 * - a call's operands: every ref, also inside arrays, sets and objects, is lifted;
 * - a unification side or a bare term: a ref itself stays, the refs among its
 *   operands are lifted (`not input.x = 1`, `not input.xs[input.i]`);
 *   a composite side has its refs lifted.
 * A ref reading a variable the negated body binds itself stays inside.
 * `not { ... }` blocks and `import future.keywords.not` keep everything inside.
 */
import type { CallExpr, Expr, NotExpr, Term, VarTerm, WithModifier } from "./ast.js";
import type { LocalVarGenerator } from "./locals.js";
import { forEachVar } from "./walk.js";

export interface LiftedNegation {
  /** `t = ref` expressions to evaluate before the negation, in order; each binds its `t`. */
  readonly before: CallExpr[];
  readonly not: NotExpr;
}

export function liftNegationDynamics(not: NotExpr, bound: ReadonlySet<string>, gen: LocalVarGenerator): LiftedNegation {
  const before: CallExpr[] = [];
  const liftable = (t: Term): boolean => {
    let ok = true;
    forEachVar(t, (n) => {
      if (gen.locals.has(n) && !bound.has(n)) ok = false;
    });
    return ok;
  };
  const lifter = (withs: readonly WithModifier[]) => {
    const one = (t: Term): Term => {
      switch (t.type) {
        case "ref": {
          const ref = { ...t, path: t.path.map(one) };
          if (!liftable(ref)) return ref;
          const v: VarTerm = { type: "var", name: gen.fresh("temp"), location: t.location };
          before.push({ type: "callexpr", operator: ["eq"], args: [v, ref], negated: false, with: withs, location: t.location, binds: [v.name] });
          return v;
        }
        case "array":
        case "set":
          return { ...t, items: t.items.map(one) };
        case "object":
          return { ...t, items: t.items.map(([k, v]) => [one(k), one(v)] as const) };
        default:
          return t;
      }
    };
    const inTerm = (t: Term): Term => (t.type === "ref" ? { ...t, path: t.path.map(one) } : one(t));
    return { one, inTerm };
  };
  const body = not.body.map((e): Expr => {
    const { one, inTerm } = lifter(e.with);
    switch (e.type) {
      case "callexpr": {
        const op = e.operator;
        if (op.length === 1 && op[0] === "print") return e;
        if (op.length === 1 && op[0] === "eq") return { ...e, args: e.args.map(inTerm) };
        return { ...e, args: e.args.map(one) };
      }
      case "termexpr":
        return { ...e, term: inTerm(e.term) };
      default:
        return e;
    }
  });
  return { before, not: before.length === 0 ? not : { ...not, body } };
}
