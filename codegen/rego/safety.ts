/**
 * Safety stage: orders each body so that every variable is bound before it is
 * read (OPA's reordering), annotates each expression with the vars it binds
 * (`binds`), fills `captures` on negations, and reports `rego_unsafe_var_error`
 * for variables nothing can bind. Runs on flattened bodies (flatten.ts).
 */
import type { Diagnostic } from "../diagnostics.js";
import type { Body, Expr, Location, Term } from "./ast.js";
import type { ArityOf } from "./flatten.js";
import type { LocalVarGenerator } from "./locals.js";
import { liftNegationDynamics } from "./negation-dynamics.js";
import { refOutputs, unify } from "./unify.js";
import { forEachVar, forEachVarInExpr } from "./walk.js";

/** First location of each var in an expression (for error positions). */
function varLocations(e: Expr): Map<string, Location> {
  const out = new Map<string, Location>();
  forEachVarInExpr(e, (n, t) => {
    if (!out.has(n)) out.set(n, t.location);
  }, true);
  return out;
}

type Bound = ReadonlySet<string>;

export class SafetyChecker {
  constructor(
    private readonly gen: LocalVarGenerator,
    private readonly errors: Diagnostic[],
    private readonly arityOf: ArityOf,
  ) {}

  /** Reorders `body` given the vars bound before it; returns the new body and the vars bound after. */
  order(body: Body, initial: Bound): { body: Expr[]; bound: Set<string> } {
    const bound = new Set(initial);
    let remaining = [...body];
    // An expression's vars do not change between passes (except a negation's, see vars()).
    const varsCache = new Map<Expr, Set<string>>();
    const out: Expr[] = [];
    // OPA's reordering: passes over the body in source order, taking every
    // expression whose vars are bound (or bindable by it), until no progress.
    for (let progress = true; progress && remaining.length > 0; ) {
      progress = false;
      const later: Expr[] = [];
      for (const e of remaining) {
        const gives = this.outputs(e, bound);
        if (!this.readyWith(e, bound, gives, varsCache)) {
          later.push(e);
          continue;
        }
        const binds: string[] = [];
        for (const v of gives) if (!bound.has(v)) binds.push(v);
        let nested = this.orderNested(e, bound);
        if (nested.type === "not" && nested.plain === true) {
          const lifted = liftNegationDynamics(nested, bound, this.gen);
          for (const pre of lifted.before) {
            out.push(pre);
            for (const v of pre.binds ?? []) bound.add(v);
          }
          nested = lifted.before.length === 0 ? nested : { ...lifted.not, captures: [...this.vars(lifted.not, bound)] };
        }
        for (const v of binds) bound.add(v);
        out.push({ ...nested, binds });
        progress = true;
      }
      remaining = later;
    }
    for (const e of remaining) {
      const gives = this.outputs(e, bound);
      const unsafe = [...this.vars(e, bound)].filter((v) => !bound.has(v) && !gives.has(v));
      this.reportUnsafe(unsafe, e.location, varLocations(e));
      out.push(e);
    }
    return { body: out, bound };
  }

  /** Reports head variables that the body does not bind. */
  checkTerms(terms: readonly Term[], bound: Bound, location: Location): void {
    const unsafe = new Set<string>();
    const where = new Map<string, Location>();
    for (const t of terms) {
      for (const v of this.termVars(t)) if (!bound.has(v)) unsafe.add(v);
      forEachVar(t, (n, x) => {
        if (!where.has(n)) where.set(n, x.location);
      });
    }
    this.reportUnsafe([...unsafe], location, where);
  }

  /** One error per unsafe variable, at its first occurrence (else at `fallback`). */
  private reportUnsafe(vars: readonly string[], fallback: Location, where: ReadonlyMap<string, Location>): void {
    // Temporaries are only unsafe because a user var is; report those.
    const user = vars.filter((v) => !this.gen.temps.has(v) || this.gen.display(v) === "_");
    const seen = new Set<string>();
    for (const v of user.sort((a, b) => (this.gen.display(a) < this.gen.display(b) ? -1 : 1))) {
      const name = this.gen.display(v);
      if (seen.has(name)) continue;
      seen.add(name);
      this.errors.push({
        code: "rego_unsafe_var_error",
        message: `var ${name} is unsafe`,
        location: where.get(v) ?? fallback,
        hint: name === "_" ? "a wildcard cannot be an input here; use a bound value" : `bind ${name} in the body before this use (${name} := ..., some ${name} in ..., or as a ref key like xs[${name}])`,
      });
    }
  }

  private orderNested(e: Expr, bound: Bound): Expr {
    // Comprehensions left in `with` values that replace functions (flatten.ts).
    const withs = e.with.map((w) => ({ ...w, value: this.orderDeep(w.value, bound) }));
    return this.orderNestedCore(withs.length === 0 ? e : { ...e, with: withs }, bound);
  }

  /** Orders the bodies of comprehensions anywhere inside `t`. */
  private orderDeep(t: Term, bound: Bound): Term {
    switch (t.type) {
      case "arraycomprehension":
      case "setcomprehension":
      case "objectcomprehension":
        return this.orderTerm(t, bound);
      case "ref":
        return { ...t, head: this.orderDeep(t.head, bound), path: t.path.map((p) => this.orderDeep(p, bound)) };
      case "array":
      case "set":
        return { ...t, items: t.items.map((i) => this.orderDeep(i, bound)) };
      case "object":
        return { ...t, items: t.items.map(([k, v]) => [this.orderDeep(k, bound), this.orderDeep(v, bound)] as const) };
      default:
        return t;
    }
  }

  private orderNestedCore(e: Expr, bound: Bound): Expr {
    switch (e.type) {
      case "not": {
        const inner = this.order(e.body, bound);
        return { ...e, body: inner.body, captures: [...this.vars(e, bound)] };
      }
      case "every": {
        const init = new Set(bound);
        for (const t of [e.key, e.value]) if (t !== null) for (const v of this.termVars(t)) init.add(v);
        return { ...e, body: this.order(e.body, init).body };
      }
      case "callexpr":
        if (e.operator.length === 1 && e.operator[0] === "eq") return { ...e, args: e.args.map((a) => this.orderTerm(a, bound)) };
        return e;
      default:
        return e;
    }
  }

  private orderTerm(t: Term, bound: Bound): Term {
    switch (t.type) {
      case "arraycomprehension":
      case "setcomprehension": {
        const inner = this.order(t.body, bound);
        this.checkTerms([t.term], inner.bound, t.location);
        return { ...t, body: inner.body };
      }
      case "objectcomprehension": {
        const inner = this.order(t.body, bound);
        this.checkTerms([t.key, t.value], inner.bound, t.location);
        return { ...t, body: inner.body };
      }
      default:
        return t;
    }
  }

  /** Vars the expression reads or binds at this level (nested bodies contribute their captures). */
  vars(e: Expr, bound: Bound): Set<string> {
    const out = new Set<string>();
    for (const w of e.with) for (const v of this.termVars(w.value)) out.add(v);
    switch (e.type) {
      case "termexpr":
        for (const v of this.termVars(e.term)) out.add(v);
        break;
      case "callexpr":
        for (const a of e.args) for (const v of this.termVars(a)) out.add(v);
        break;
      case "every":
        for (const v of this.termVars(e.domain)) out.add(v);
        for (const c of e.captures ?? []) out.add(c);
        break;
      case "not": {
        // Temporaries and wildcards first seen inside the negation are its own.
        const inner = new Set<string>();
        for (const x of e.body) for (const v of this.vars(x, bound)) inner.add(v);
        for (const v of inner) if (!this.gen.temps.has(v) || bound.has(v)) out.add(v);
        break;
      }
      default:
        break;
    }
    return out;
  }

  /** Vars in a term at this level; comprehensions contribute their captures. */
  termVars(t: Term): Set<string> {
    const out = new Set<string>();
    this.collectTermVars(t, out);
    return out;
  }

  private collectTermVars(x: Term, out: Set<string>): void {
    switch (x.type) {
      case "var":
        // Non-locals are global names: data, input, builtins named in `with` values.
        if (this.gen.locals.has(x.name)) out.add(x.name);
        return;
      case "ref":
        this.collectTermVars(x.head, out);
        for (const p of x.path) this.collectTermVars(p, out);
        return;
      case "array":
      case "set":
        for (const i of x.items) this.collectTermVars(i, out);
        return;
      case "object":
        for (const [k, v] of x.items) {
          this.collectTermVars(k, out);
          this.collectTermVars(v, out);
        }
        return;
      case "call":
        for (const a of x.args) this.collectTermVars(a, out);
        return;
      case "arraycomprehension":
      case "setcomprehension":
      case "objectcomprehension":
        for (const c of x.captures ?? []) out.add(c);
        return;
      default:
        return;
    }
  }

  private readyWith(e: Expr, bound: Bound, gives: ReadonlySet<string>, cache: Map<Expr, Set<string>>): boolean {
    let vars = cache.get(e);
    if (vars === undefined) {
      vars = this.vars(e, bound);
      if (e.type !== "not") cache.set(e, vars);
    }
    for (const v of vars) if (!bound.has(v) && !gives.has(v)) return false;
    return true;
  }

  /** Vars `e` can bind when `bound` is bound before it. */
  outputs(e: Expr, bound: Bound): Set<string> {
    const out = new Set<string>();
    switch (e.type) {
      case "termexpr":
        refOutputs(e.term, bound, out);
        return out;
      case "callexpr": {
        if (e.operator.length === 1 && e.operator[0] === "eq") {
          const [a, b] = e.args as [Term, Term];
          unify(a, b, bound, out, this);
          return out;
        }
        for (const a of e.args) refOutputs(a, bound, out);
        // The trailing output of a call with an output (the flattener made it a var).
        const last = e.args[e.args.length - 1];
        const arity = this.arityOf(e.operator);
        if (last !== undefined && last.type === "var" && arity !== null && e.args.length === arity + 1) out.add(last.name);
        return out;
      }
      default:
        return out;
    }
  }
}
