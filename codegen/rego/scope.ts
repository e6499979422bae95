/**
 * Scoping stage: resolves every name in a rule or query and renames locals.
 * - vars naming imports, rules of the package, `input`/`data` become absolute refs;
 * - call operators become builtin names or absolute `data.` function paths;
 * - local variables (declared with `:=`/`some`, or free) become `__localN__`,
 *   one per scope; comprehension and `every` bodies are nested scopes that can
 *   read the enclosing body's variables (their `captures`).
 * Reports `var x assigned above`, `var x declared above`, `var x referenced above`,
 * `cannot assign to input` (rego_compile_error) and `undefined function`
 * (rego_type_error).
 */
import type { Diagnostic } from "../diagnostics.js";
import type { Body, Expr, Location, RefTerm, Term, VarTerm, WithModifier } from "./ast.js";
import { callableBuiltinNames, lookupBuiltin, isUndeclaredOpaBuiltin } from "./builtins.js";
import { closestName } from "../suggest.js";
import type { LocalVarGenerator } from "./locals.js";
import { directFreeNames } from "./free-names.js";
import { closureOnlySomeNames } from "./closure-only-some.js";
import { forEachVar, forEachVarInBody } from "./walk.js";

/** What the scoper needs to know about the program outside the rule. */
export interface ScopeContext {
  readonly file: string;
  /** Absolute package path, or null for queries without a package. */
  readonly pkg: readonly string[] | null;
  /** Rule names (first head segment) of the package. */
  readonly ruleNames: ReadonlySet<string>;
  /** Import alias -> absolute path. */
  readonly imports: ReadonlyMap<string, readonly string[]>;
  /** Is this absolute path a function group? Returns its arity, or null. */
  readonly functionArity: (path: readonly string[]) => number | null;
  /** Queries keep their top-level variable names so results can be reported. */
  readonly keepTopLevelNames: boolean;
}

/** `assigned` (`:=`), `declared` (`some`, `every`), `param` (function parameters: repeats unify). */
export type DeclareHow = "assigned" | "declared" | "param";

interface Scope {
  readonly parent: Scope | null;
  readonly depth: number;
  readonly declared: Map<string, string>;
  readonly free: Map<string, string>;
  readonly freeNames: ReadonlySet<string>;
  /** `some` names this body mentions only in nested closures (closure-only-some.ts). */
  readonly closureOnlySome: ReadonlySet<string>;
}

export class Scoper {
  /** Generated name -> depth of the scope that owns it. */
  private readonly owner = new Map<string, number>();

  constructor(
    private readonly ctx: ScopeContext,
    private readonly gen: LocalVarGenerator,
    private readonly errors: Diagnostic[],
  ) {}

  private err(code: string, message: string, location: Location, hint?: string): void {
    this.errors.push(hint === undefined ? { code, message, location } : { code, message, location, hint });
  }

  newScope(parent: Scope | null, body: Body, extra: readonly Term[] = []): Scope {
    return { parent, depth: parent === null ? 0 : parent.depth + 1, declared: new Map(), free: new Map(), freeNames: directFreeNames(body, extra), closureOnlySome: closureOnlySomeNames(body, extra) };
  }

  private local(scope: Scope, name: string, map: Map<string, string>): string {
    let g = map.get(name);
    if (g === undefined) {
      g = scope.depth === 0 && this.ctx.keepTopLevelNames ? this.gen.keep(name) : this.gen.fresh("user", name);
      map.set(name, g);
      this.owner.set(g, scope.depth);
    }
    return g;
  }

  /** Declares `name` as the already generated `generated` (a function parameter shared by clauses). */
  predeclare(scope: Scope, name: string, generated: string): void {
    scope.declared.set(name, generated);
  }

  /** Declares `name` in `scope` (`some x`, `x :=`, function args, every key/value). */
  declare(scope: Scope, v: VarTerm, how: DeclareHow): string {
    if (v.name === "_") return this.wildcard();
    if (v.name === "input" || v.name === "data") this.err("rego_compile_error", `variables must not shadow ${v.name} (reserved name)`, v.location);
    const existing = scope.declared.get(v.name);
    if (how === "param" && existing !== undefined) return existing;
    if (scope.declared.has(v.name)) this.err("rego_compile_error", `var ${v.name} ${how} above`, v.location, `use a new name, or \`${v.name} == ...\` to compare`);
    else if (scope.free.has(v.name)) this.err("rego_compile_error", `var ${v.name} referenced above`, v.location, `declare ${v.name} before its first use, or use \`=\` instead of \`:=\``);
    const g = scope.depth === 0 && this.ctx.keepTopLevelNames ? this.gen.keep(v.name) : this.gen.fresh("user", v.name);
    scope.declared.set(v.name, g);
    this.owner.set(g, scope.depth);
    return g;
  }

  private wildcard(): string {
    const g = this.gen.fresh("wildcard", "_");
    this.owner.set(g, Number.MAX_SAFE_INTEGER);
    return g;
  }

  private globalRef(path: readonly string[], location: Location): RefTerm {
    const [root, ...rest] = path;
    return {
      type: "ref",
      head: { type: "var", name: root as string, location },
      path: rest.map((value) => ({ type: "string", value, location })),
      location,
    };
  }

  /** A name that is not a local: import alias, package rule, or root document. */
  private globalPath(name: string): readonly string[] | null {
    const imp = this.ctx.imports.get(name);
    if (imp !== undefined) return imp;
    if (this.ctx.pkg !== null && this.ctx.ruleNames.has(name)) return [...this.ctx.pkg, name];
    if (name === "input" || name === "data") return [name];
    return null;
  }

  resolveVar(scope: Scope, v: VarTerm): Term {
    if (v.name === "_") return { ...v, name: this.wildcard() };
    for (let s: Scope | null = scope; s !== null; s = s.parent) {
      const d = s.declared.get(v.name);
      if (d !== undefined && s !== scope && s.closureOnlySome.has(v.name)) return { ...v, name: this.freeLocal(scope, s, v.name) };
      if (d !== undefined) return { ...v, name: d };
    }
    const g = this.globalPath(v.name);
    if (g !== null) return this.globalRef(g, v.location);
    return { ...v, name: this.freeLocal(scope, null, v.name) };
  }

  /** A free variable belongs to the outermost scope below `above` that mentions it directly (closures). */
  private freeLocal(scope: Scope, above: Scope | null, name: string): string {
    let target: Scope = scope;
    for (let s: Scope | null = scope; s !== null && s !== above; s = s.parent) if (s.freeNames.has(name)) target = s;
    return this.local(target, name, target.free);
  }

  resolveTerm(scope: Scope, t: Term): Term {
    switch (t.type) {
      case "var":
        return this.resolveVar(scope, t);
      case "ref": {
        const head = this.resolveTerm(scope, t.head);
        const path = t.path.map((p) => this.resolveTerm(scope, p));
        if (head.type === "ref") return { ...t, head: head.head, path: [...head.path, ...path] };
        return { ...t, head, path };
      }
      case "array":
      case "set":
        return { ...t, items: t.items.map((i) => this.resolveTerm(scope, i)) };
      case "object":
        return { ...t, items: t.items.map(([k, v]) => [this.resolveTerm(scope, k), this.resolveTerm(scope, v)] as const) };
      case "call":
        return { ...t, operator: this.resolveOperator(t.operator, t.location), args: t.args.map((a) => this.resolveTerm(scope, a)) };
      case "arraycomprehension":
      case "setcomprehension": {
        const inner = this.newScope(scope, t.body, [t.term]);
        const body = this.resolveBody(inner, t.body);
        const term = this.resolveTerm(inner, t.term);
        return { ...t, body, term, captures: this.captures(inner, body, [term]) };
      }
      case "objectcomprehension": {
        const inner = this.newScope(scope, t.body, [t.key, t.value]);
        const body = this.resolveBody(inner, t.body);
        const key = this.resolveTerm(inner, t.key);
        const value = this.resolveTerm(inner, t.value);
        return { ...t, body, key, value, captures: this.captures(inner, body, [key, value]) };
      }
      default:
        return t;
    }
  }

  /** Variables used inside `inner` that belong to an enclosing scope. */
  private captures(inner: Scope, body: Body, terms: readonly Term[]): string[] {
    const out = new Set<string>();
    const visit = (n: string): void => {
      const d = this.owner.get(n);
      if (d !== undefined && d < inner.depth) out.add(n);
    };
    forEachVarInBody(body, visit);
    for (const t of terms) forEachVar(t, visit, true);
    return [...out];
  }

  /** Call operator -> builtin name or absolute function path. */
  resolveOperator(op: readonly string[], location: Location): readonly string[] {
    const [first, ...rest] = op as [string, ...string[]];
    let path: readonly string[] | null = null;
    if (first === "data") path = op;
    else {
      const imp = this.ctx.imports.get(first);
      if (imp !== undefined) path = [...imp, ...rest];
      else if (this.ctx.pkg !== null && this.ctx.ruleNames.has(first)) path = [...this.ctx.pkg, ...op];
    }
    if (path !== null && path[0] === "data") {
      if (this.ctx.functionArity(path) === null) this.err("rego_type_error", `undefined function ${path.join(".")}`, location);
      return path;
    }
    const name = op.join(".");
    const b = lookupBuiltin(name);
    if (b === undefined && isUndeclaredOpaBuiltin(name)) this.err("rego_type_error", `OPA builtin ${name} is not supported yet`, location);
    else if (b === undefined) this.err("rego_type_error", `undefined function ${name}`, location, this.functionHint(name));
    else if (b.deprecated === true) this.err("rego_type_error", `deprecated built-in function calls in expression: ${name}`, location);
    return op;
  }

  /** "did you mean" the closest builtin (OPA's or custom) or function of this package. */
  private functionHint(name: string): string {
    const pkg = this.ctx.pkg;
    const functions = pkg === null ? [] : [...this.ctx.ruleNames].filter((n) => this.ctx.functionArity([...pkg, n]) !== null);
    const close = closestName(name, [...callableBuiltinNames(), ...functions]);
    return close === null ? "not a builtin, nor a function of this package or an import" : `did you mean \`${close}\`? (not a builtin, nor a function of this package or an import)`;
  }

  resolveBody(scope: Scope, body: Body): Body {
    return body.map((e) => this.resolveExpr(scope, e));
  }

  private resolveWith(scope: Scope, w: WithModifier): WithModifier {
    const value = this.builtinValue(w) ?? this.resolveTerm(scope, w.value);
    const t = w.target;
    const headName = t.type === "var" ? t.name : t.head.type === "var" ? t.head.name : null;
    const names = t.type === "var" ? [t.name] : t.head.type === "var" ? [t.head.name, ...t.path.map((p) => (p.type === "string" ? p.value : null))] : null;
    if (headName === null || names === null || names.some((n) => n === null)) {
      this.err("rego_compile_error", "with keyword target must reference existing input, data, or a function", w.location);
      return { ...w, value };
    }
    const dotted = names as string[];
    let path: readonly string[] | null = null;
    if (headName === "input" || headName === "data") path = dotted;
    else {
      const imp = this.ctx.imports.get(headName);
      if (imp !== undefined) path = [...imp, ...dotted.slice(1)];
      else if (this.ctx.pkg !== null && this.ctx.ruleNames.has(headName)) path = [...this.ctx.pkg, ...dotted];
      else if (lookupBuiltin(dotted.join(".")) !== undefined) path = dotted;
    }
    if (path === null) {
      this.err("rego_compile_error", "with keyword target must reference existing input, data, or a function", w.location);
      return { ...w, value };
    }
    return { ...w, target: this.globalRef(path, t.location), value };
  }

  /**
   * `with count as object.union_n`: a builtin replacing a function is kept as
   * a ref spelling the builtin (head var `object`, path ["union_n"]); its head
   * is not a local, so later stages treat it as a global name.
   */
  private builtinValue(w: WithModifier): Term | null {
    const v = w.value;
    const dotted = v.type === "var" ? [v.name] : v.type === "ref" && v.head.type === "var" && v.path.every((p) => p.type === "string") ? [v.head.name, ...v.path.map((p) => (p.type === "string" ? p.value : ""))] : null;
    if (dotted === null || this.ctx.imports.has(dotted[0] as string) || this.ctx.ruleNames.has(dotted[0] as string)) return null;
    if (lookupBuiltin(dotted.join(".")) === undefined) return null;
    return this.globalRef(dotted, v.location);
  }

  resolveExpr(scope: Scope, e: Expr): Expr {
    // With values are evaluated in the enclosing scope, before the expression.
    const withs = e.with.map((w) => this.resolveWith(scope, w));
    const out = this.resolveExprCore(scope, e);
    return withs.length === 0 ? out : { ...out, with: withs };
  }

  private resolveExprCore(scope: Scope, e: Expr): Expr {
    switch (e.type) {
      case "termexpr":
        return { ...e, term: this.resolveTerm(scope, e.term) };
      case "callexpr": {
        if (e.operator.length === 1 && e.operator[0] === "assign") {
          const [lhs, rhs] = e.args as [Term, Term];
          const r = this.resolveTerm(scope, rhs);
          const l = this.declarePattern(scope, lhs, "assigned");
          return { ...e, args: [l, r] };
        }
        const operator = this.resolveOperator(e.operator, e.location);
        return { ...e, operator, args: e.args.map((a) => this.resolveTerm(scope, a)) };
      }
      case "some":
        return { ...e, vars: e.vars.map((v) => ({ ...v, name: this.declare(scope, v, "declared") })) };
      case "somein": {
        const domain = this.resolveTerm(scope, e.domain);
        const key = e.key === null ? null : this.declarePattern(scope, e.key, "declared");
        const value = this.declarePattern(scope, e.value, "declared");
        return { ...e, key, value, domain };
      }
      case "every": {
        const domain = this.resolveTerm(scope, e.domain);
        const inner = this.newScope(scope, e.body);
        const key = e.key === null ? null : this.declarePattern(inner, e.key, "declared");
        const value = this.declarePattern(inner, e.value, "declared");
        const body = this.resolveBody(inner, e.body);
        return { ...e, key, value, domain, body, captures: this.captures(inner, body, []) };
      }
      case "not":
        return { ...e, body: this.resolveBody(scope, e.body) };
    }
  }

  /** Declares every var of an assignment/`some` pattern; refs are not assignable. */
  declarePattern(scope: Scope, t: Term, how: DeclareHow): Term {
    switch (t.type) {
      case "var":
        return { ...t, name: this.declare(scope, t, how) };
      case "array":
        return { ...t, items: t.items.map((i) => this.declarePattern(scope, i, how)) };
      case "object":
        // Keys are matched, values are declared.
        return { ...t, items: t.items.map(([k, v]) => [this.resolveTerm(scope, k), this.declarePattern(scope, v, how)] as const) };
      case "ref": {
        const root = t.head.type === "var" ? t.head.name : "";
        if (how === "param" && t.path.length === 0 && (root === "input" || root === "data")) {
          this.err("rego_compile_error", `variables must not shadow ${root} (reserved name)`, t.location);
        }
        if (how === "assigned") {
          this.err("rego_compile_error", root === "input" || root === "data" ? `cannot assign to ${root}` : "cannot assign to ref", t.location);
        }
        return this.resolveTerm(scope, t);
      }
      case "null":
      case "boolean":
      case "number":
      case "string":
        // `:=` binds variables only (OPA: `1 := x`, `[1, y] := xs` are errors); parameters may be constants.
        if (how === "assigned") this.err("rego_compile_error", `cannot assign to ${t.type}`, t.location);
        return t;
      default:
        if (how === "assigned") this.err("rego_compile_error", `cannot assign to ${t.type}`, t.location);
        return this.resolveTerm(scope, t);
    }
  }
}
