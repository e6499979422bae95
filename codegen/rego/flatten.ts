/**
 * Normalising rewrites after scoping, so the planner meets few shapes:
 * - nested calls are lifted into their own call expressions with a fresh output
 *   var (`x := count(y) + 1` -> `count(y, t1); plus(t1, 1, t2); x = t2`);
 * - comprehensions only appear as `eq(var, comprehension)`;
 * - `:=` becomes `eq` (checks ran already); `some x` declarations disappear;
 *   `some k, v in xs` becomes `eq(v, xs[k])` (`some x in xs`: `eq(x, xs[t])`);
 * - `not e` becomes a `not` expression; the nested calls of `e`'s operands are
 *   lifted before it (OPA), except under `import future.keywords.not`, where
 *   they stay inside the negation;
 * - `every` keeps its shape with a key var always present and a lifted domain;
 * - `print` operands become sets of their values (undefined prints, never fails);
 * - `with` values are lifted before the expression; lifted parts of the
 *   expression itself carry the same `with` modifiers, as in OPA.
 */
import type { Body, CallExpr, Expr, Location, Term, VarTerm, WithModifier } from "./ast.js";
import type { Diagnostic } from "../diagnostics.js";
import type { LocalVarGenerator } from "./locals.js";
import { forEachVar } from "./walk.js";

export type ArityOf = (operator: readonly string[]) => number | null;

export class Flattener {
  constructor(
    private readonly gen: LocalVarGenerator,
    private readonly arityOf: ArityOf,
    private readonly errors: Diagnostic[],
  ) {}

  private temp(location: Location): VarTerm {
    return { type: "var", name: this.gen.fresh("temp"), location };
  }

  private eq(a: Term, b: Term, location: Location, withs: readonly WithModifier[] = []): CallExpr {
    return { type: "callexpr", operator: ["eq"], args: [a, b], negated: false, with: withs, location };
  }

  /** Replaces calls and comprehensions inside `t` by temps; the defining exprs go to `out`. */
  lift(t: Term, out: Expr[], withs: readonly WithModifier[]): Term {
    switch (t.type) {
      case "ref":
        return { ...t, head: this.lift(t.head, out, withs), path: t.path.map((p) => this.lift(p, out, withs)) };
      case "array":
      case "set":
        return { ...t, items: t.items.map((i) => this.lift(i, out, withs)) };
      case "object":
        return { ...t, items: t.items.map(([k, v]) => [this.lift(k, out, withs), this.lift(v, out, withs)] as const) };
      case "call": {
        // A nested call's output is its value: it must have exactly its arity in arguments.
        const arity = this.arityOf(t.operator);
        if (arity !== null && t.args.length !== arity) {
          const s = t.args.length === 1 ? "" : "s";
          this.errors.push({ code: "rego_type_error", message: `${t.operator.join(".")}: arity mismatch: have ${t.args.length} argument${s}, want ${arity}`, location: t.location });
        }
        const args = t.args.map((a) => this.lift(a, out, withs));
        const v = this.temp(t.location);
        out.push({ type: "callexpr", operator: t.operator, args: [...args, v], negated: false, with: withs, location: t.location });
        return v;
      }
      case "arraycomprehension":
      case "setcomprehension":
      case "objectcomprehension": {
        const v = this.temp(t.location);
        out.push(this.eq(v, this.comprehension(t), t.location, withs));
        return v;
      }
      default:
        return t;
    }
  }

  /** Does this `with` replace a function or builtin (not a document)? Targets are resolved refs. */
  private replacesFunction(w: WithModifier): boolean {
    const t = w.target;
    if (t.type !== "ref" || t.head.type !== "var") return false;
    if (t.head.name === "input") return false;
    if (t.head.name !== "data") return true;
    const path = [t.head.name, ...t.path.map((p) => (p.type === "string" ? p.value : ""))];
    return this.arityOf(path) !== null;
  }

  /** Like `lift`, but comprehensions stay where they are (their bodies flattened). */
  private liftCalls(t: Term, out: Expr[]): Term {
    switch (t.type) {
      case "ref":
        return { ...t, head: this.liftCalls(t.head, out), path: t.path.map((p) => this.liftCalls(p, out)) };
      case "array":
      case "set":
        return { ...t, items: t.items.map((i) => this.liftCalls(i, out)) };
      case "object":
        return { ...t, items: t.items.map(([k, v]) => [this.liftCalls(k, out), this.liftCalls(v, out)] as const) };
      case "arraycomprehension":
      case "setcomprehension":
      case "objectcomprehension":
        return this.comprehension(t);
      default:
        return this.lift(t, out, []);
    }
  }

  /** Lifts a head term; in values and set keys also refs, so heads hold only vars and constants' shapes. */
  liftHead(t: Term, out: Expr[], liftRefs: boolean): Term {
    const lifted = this.lift(t, out, []);
    if (!liftRefs) return lifted;
    const refs = (x: Term): Term => {
      switch (x.type) {
        case "ref": {
          const v = this.temp(x.location);
          out.push(this.eq(v, x, x.location));
          return v;
        }
        case "array":
        case "set":
          return { ...x, items: x.items.map(refs) };
        case "object":
          return { ...x, items: x.items.map(([k, val]) => [refs(k), refs(val)] as const) };
        default:
          return x;
      }
    };
    return refs(lifted);
  }

  /** Head refs and calls are evaluated at the end of the body (OPA's rewriteComprehensionTerms): `{xs[_]: 1 | true}` iterates. */
  private comprehension(t: Term): Term {
    if (t.type === "arraycomprehension" || t.type === "setcomprehension") {
      const extra: Expr[] = [];
      const body = this.body(t.body);
      const term = this.liftHead(t.term, extra, true);
      return { ...t, term, body: [...body, ...extra] };
    }
    if (t.type === "objectcomprehension") {
      const extra: Expr[] = [];
      const body = this.body(t.body);
      const key = this.liftHead(t.key, extra, true);
      const value = this.liftHead(t.value, extra, true);
      return { ...t, key, value, body: [...body, ...extra] };
    }
    return t;
  }

  body(body: Body): Expr[] {
    const out: Expr[] = [];
    for (const e of body) this.expr(e, out);
    return out;
  }

  expr(e: Expr, out: Expr[]): void {
    // With values first, without the modifiers (they are evaluated outside). A value
    // replacing a function is evaluated where the function is called: its
    // comprehensions stay in place (the call site cannot read the temps of this body).
    const withs = e.with.map((w) => ({ ...w, value: this.replacesFunction(w) ? this.liftCalls(w.value, out) : this.lift(w.value, out, []) }));
    if (e.negated) {
      const inner: Expr[] = [];
      const core = e.composite === true ? e : this.liftOperands(e, out, withs);
      this.exprCore({ ...core, negated: false }, withs, inner);
      const not = { type: "not", body: inner, negated: false, with: [], location: e.location } as const;
      out.push(e.composite === true ? not : { ...not, plain: true });
      return;
    }
    this.exprCore(e, withs, out);
  }

  /**
   * The operands of a negated expression with their nested calls lifted into `out`
   * (OPA's rewriting of expression terms: `not f(g(x))` is `g(x, t); not f(t)`, so an
   * undefined `g(x)` makes the body fail instead of the negation hold).
   */
  private liftOperands(e: Expr, out: Expr[], withs: readonly WithModifier[]): Expr {
    switch (e.type) {
      case "termexpr": {
        const t = e.term;
        if (t.type === "call") return { ...e, term: { ...t, args: t.args.map((a) => this.lift(a, out, withs)) } };
        return { ...e, term: this.lift(t, out, withs) };
      }
      case "callexpr":
        if (e.operator.length === 1 && e.operator[0] === "print") return e;
        return { ...e, args: e.args.map((a) => this.lift(a, out, withs)) };
      default:
        return e;
    }
  }

  private exprCore(e: Expr, withs: readonly WithModifier[], out: Expr[]): void {
    switch (e.type) {
      case "termexpr": {
        const t = e.term;
        if (t.type === "call") {
          this.callExpr({ type: "callexpr", operator: t.operator, args: t.args, negated: e.negated, with: e.with, location: e.location }, withs, out);
          return;
        }
        out.push({ ...e, term: this.lift(t, out, withs), with: withs });
        return;
      }
      case "callexpr":
        this.callExpr(e, withs, out);
        return;
      case "some":
        return;
      case "somein": {
        const domain = this.lift(e.domain, out, withs);
        const key = e.key === null ? this.temp(e.location) : this.lift(e.key, out, withs);
        const value = this.lift(e.value, out, withs);
        const elem: Term =
          domain.type === "ref"
            ? { ...domain, path: [...domain.path, key] }
            : { type: "ref", head: domain, path: [key], location: domain.location };
        out.push(this.eq(value, elem, e.location, withs));
        return;
      }
      case "every": {
        const domain = this.lift(e.domain, out, withs);
        const key = e.key ?? this.temp(e.location);
        out.push({ ...e, key, domain, body: this.body(e.body), with: withs });
        return;
      }
      case "not":
        out.push({ ...e, body: this.body(e.body), with: withs });
        return;
    }
  }

  /**
   * A `print` operand becomes the set of its values, `t = {v | v = a}`, so an
   * undefined operand prints as `<undefined>` instead of failing the expression (OPA).
   */
  private printOperand(a: Term, out: Expr[], withs: readonly WithModifier[]): Term {
    const v = this.temp(a.location);
    const captures = new Set<string>();
    forEachVar(a, (n) => {
      if (this.gen.locals.has(n)) captures.add(n);
    });
    const set: Term = { type: "setcomprehension", term: v, body: this.body([this.eq(v, a, a.location)]), captures: [...captures], location: a.location };
    const t = this.temp(a.location);
    out.push(this.eq(t, set, a.location, withs));
    return t;
  }

  private callExpr(e: CallExpr, withs: readonly WithModifier[], out: Expr[]): void {
    const op = e.operator;
    if (op.length === 1 && (op[0] === "eq" || op[0] === "assign")) {
      const [a, b] = e.args as [Term, Term];
      // Keep `x = <comprehension>` as is: the planner's one comprehension shape.
      if (a.type === "var" && isComprehension(b)) {
        out.push(this.eq(a, this.comprehension(b), e.location, withs));
        return;
      }
      if (b.type === "var" && isComprehension(a)) {
        out.push(this.eq(b, this.comprehension(a), e.location, withs));
        return;
      }
      const la = this.lift(a, out, withs);
      const lb = this.lift(b, out, withs);
      out.push(this.eq(la, lb, e.location, withs));
      return;
    }
    if (op.length === 1 && op[0] === "print") {
      out.push({ ...e, args: e.args.map((a) => this.printOperand(a, out, withs)), with: withs });
      return;
    }
    const arity = this.arityOf(op);
    const hasOutput = arity !== null && e.args.length === arity + 1;
    const inputs = hasOutput ? e.args.slice(0, -1) : e.args;
    const args = inputs.map((a) => this.lift(a, out, withs));
    if (!hasOutput) {
      out.push({ ...e, args, with: withs });
      return;
    }
    const output = e.args[e.args.length - 1] as Term;
    if (output.type === "var") {
      out.push({ ...e, args: [...args, output], with: withs });
      return;
    }
    // A non-var output is unified after the call: count(xs, 3) -> count(xs, t); t = 3.
    const t = this.temp(output.location);
    out.push({ ...e, args: [...args, t], with: withs });
    out.push(this.eq(t, this.lift(output, out, withs), output.location, withs));
  }
}

function isComprehension(t: Term): boolean {
  return t.type === "arraycomprehension" || t.type === "setcomprehension" || t.type === "objectcomprehension";
}
