/**
 * One rule through the per-rule stages, each run for all rules before the next
 * (so a stage's errors stop the later ones, as in OPA):
 *   scope   — resolve names, rename locals, declare parameters;
 *   flatten — lift calls/comprehensions, desugar (flatten.ts), lift head refs;
 *   safety  — order bodies, check head vars (safety.ts).
 * The else chain is a list of clauses sharing the head's parameters.
 */
import type { Diagnostic } from "../diagnostics.js";
import type { Body, ElseClause, Expr, Location, Term, VarTerm } from "./ast.js";
import { Flattener, type ArityOf } from "./flatten.js";
import type { PlacedRule } from "./groups.js";
import type { LocalVarGenerator } from "./locals.js";
import type { CompiledRule } from "./program.js";
import { SafetyChecker } from "./safety.js";
import { Scoper, type ScopeContext } from "./scope.js";

interface Clause {
  readonly location: Location;
  /** Parsed body and head terms (value/key; the main clause also has the ref tail first). */
  readonly source: { body: Body; terms: readonly Term[] };
  /** Resolved parameter patterns of this clause. */
  args: Term[];
  body: Body;
  terms: Term[];
}

function trueTerm(location: Location): Term {
  return { type: "boolean", value: true, location };
}

const isTrue = (e: Expr): boolean => e.type === "termexpr" && e.term.type === "boolean" && e.term.value && e.with.length === 0;

export class RuleCompiler {
  private readonly clauses: Clause[];
  /** One var per parameter position, shared by every clause. */
  private readonly argVars: VarTerm[] = [];
  /** Generator position before this rule's scope stage: its locals are generated after it. */
  private mark = 0;
  private end = 0;

  constructor(
    readonly placed: PlacedRule,
    private readonly gen: LocalVarGenerator,
    private readonly errors: Diagnostic[],
  ) {
    const { rule, tail } = placed;
    const head = rule.head;
    const main: Term[] = [...tail, head.kind === "contains" ? head.key : head.value];
    this.clauses = [{ location: rule.location, source: { body: rule.body, terms: main }, args: [], body: [], terms: [] }];
    for (let e: ElseClause | null = rule.else; e !== null; e = e.else) {
      this.clauses.push({ location: e.location, source: { body: e.body, terms: [e.value] }, args: [], body: [], terms: [] });
    }
  }

  private get rawArgs(): readonly Term[] {
    const h = this.placed.rule.head;
    return h.kind === "function" ? h.args : [];
  }

  scope(ctx: ScopeContext): void {
    this.mark = this.gen.count;
    const scoper = new Scoper(ctx, this.gen, this.errors);
    const paramNames = new Map<string, string>();
    for (const c of this.clauses) {
      const scope = scoper.newScope(null, c.source.body, [...c.source.terms, ...this.rawArgs]);
      // Every clause names a parameter var like the first clause does.
      for (const [name, g] of paramNames) scoper.predeclare(scope, name, g);
      c.args = this.rawArgs.map((a) => scoper.declarePattern(scope, a, "param"));
      this.rawArgs.forEach((a, i) => {
        const r = c.args[i] as Term;
        if (a.type === "var" && r.type === "var") paramNames.set(a.name, r.name);
      });
      if (this.argVars.length === 0) {
        for (const a of c.args) this.argVars.push(a.type === "var" ? a : { type: "var", name: this.gen.fresh("temp"), location: a.location });
      }
      c.body = scoper.resolveBody(scope, c.source.body);
      c.terms = c.source.terms.map((t) => scoper.resolveTerm(scope, t));
    }
    this.end = this.gen.count;
  }

  flatten(arityOf: ArityOf): void {
    const flat = new Flattener(this.gen, arityOf, this.errors);
    for (const c of this.clauses) {
      const out: Expr[] = [];
      // Non-var parameters (and an else clause's own names) are unified with the shared vars first.
      c.args.forEach((a, i) => {
        const v = this.argVars[i] as VarTerm;
        if (a.type !== "var" || a.name !== v.name) out.push({ type: "callexpr", operator: ["eq"], args: [v, a], negated: false, with: [], location: a.location });
      });
      out.push(...flat.body(c.body));
      // Head refs are evaluated in the body (`q := xs[_]` -> `t = xs[_]`, head `q := t`), as OPA's rewriteRefsInHead.
      c.terms = c.terms.map((t) => flat.liftHead(t, out, true));
      const rest = out.filter((e) => !isTrue(e));
      c.body = rest.length > 0 ? rest : out.slice(0, 1);
    }
  }

  safety(arityOf: ArityOf): void {
    const safety = new SafetyChecker(this.gen, this.errors, arityOf);
    for (const c of this.clauses) {
      const ordered = safety.order(c.body, new Set(this.argVars.map((v) => v.name)));
      safety.checkTerms(c.terms, ordered.bound, c.location);
      c.body = ordered.body;
    }
  }

  result(): CompiledRule {
    const { rule, tail, module } = this.placed;
    const [main, ...elses] = this.clauses as [Clause, ...Clause[]];
    const n = tail.length;
    const valueOrKey = main.terms[n] ?? trueTerm(rule.location);
    let elseChain: ElseClause | null = null;
    for (let i = elses.length - 1; i >= 0; i--) {
      const c = elses[i] as Clause;
      elseChain = { type: "else", value: c.terms[0] ?? trueTerm(c.location), body: c.body, else: elseChain, location: c.location };
    }
    // Rules are scoped one after another, so this rule's user locals are exactly those generated in between.
    const varNames = this.gen.namesBetween(this.mark, this.end);
    const isSet = rule.head.kind === "contains";
    return {
      location: rule.location,
      file: module.file,
      default: rule.default,
      refTail: main.terms.slice(0, n),
      key: isSet ? valueOrKey : null,
      value: isSet ? null : valueOrKey,
      args: this.argVars,
      body: main.body,
      else: elseChain,
      varNames,
    };
  }
}
