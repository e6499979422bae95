/**
 * The compiler driver: parse -> group rules -> per rule (scope, flatten, safety)
 * -> type check -> recursion check. The stage list is a named table so tests
 * can stop after any stage (`stopAfter`).
 */
import type { Diagnostic } from "../diagnostics.js";
import type { Body, ElseClause, Expr, Location, Module, Term, VarTerm } from "./ast.js";
import { lookupBuiltin } from "./builtins.js";
import { Flattener } from "./flatten.js";
import { comparePaths, groupRules, placeRule, type GroupDraft, type PlacedRule } from "./groups.js";
import { LocalVarGenerator } from "./locals.js";
import { parseModule } from "./parser.js";
import { pathKey, type CompiledQuery, type CompiledRule, type Program, type RuleGroup } from "./program.js";
import { checkRecursion } from "./recursion.js";
import { SafetyChecker } from "./safety.js";
import { Scoper, type ScopeContext } from "./scope.js";
import { TypeChecker } from "./typecheck.js";
import { forEachVar, forEachVarInBody } from "./walk.js";

export interface SourceFile {
  readonly file: string;
  readonly source: string;
}

export type StageName = "parse" | "group" | "rules" | "typecheck" | "recursion";

/** The stages, in order. Each runs only when the ones before left no errors, like OPA. */
export const stages: readonly { name: StageName; why: string }[] = [
  { name: "parse", why: "source -> AST; parse errors stop compilation" },
  { name: "group", why: "head paths and rule kinds must be known before names resolve" },
  { name: "rules", why: "resolve names, rename locals, lift calls, order bodies for safety" },
  { name: "typecheck", why: "arity and literal argument types, on flattened calls" },
  { name: "recursion", why: "needs resolved data refs and function paths" },
];

export interface CompileOptions {
  /** Stop after this stage (for tests); the program is then null. */
  readonly stopAfter?: StageName;
  /** Maximum errors per file (OPA: 10). */
  readonly maxErrorsPerFile?: number;
}

export interface CompileResult {
  /** Null when there are errors (or when stopped early). */
  readonly program: Program | null;
  readonly errors: Diagnostic[];
  /** Parsed modules (for tools such as the formatter or debug dumps). */
  readonly modules: readonly Module[];
}

const LOCAL_RE = /^__local\d+__$/;

export function compileModules(files: readonly SourceFile[], options: CompileOptions = {}): CompileResult {
  const errors: Diagnostic[] = [];
  const cap = options.maxErrorsPerFile ?? 10;
  const finish = (program: Program | null, modules: readonly Module[]): CompileResult => ({
    program: errors.length === 0 ? program : null,
    errors: capErrors(errors, cap),
    modules,
  });

  // parse
  const modules: Module[] = [];
  for (const f of files) {
    const r = parseModule(f.source, f.file);
    errors.push(...r.errors);
    if (r.module !== null) modules.push(r.module);
  }
  if (errors.length > 0 || options.stopAfter === "parse") return finish(null, modules);

  // group
  const placed: PlacedRule[] = [];
  for (const m of modules) for (const r of m.rules) {
    const p = placeRule(m, r, errors);
    if (p !== null) placed.push(p);
  }
  const drafts = groupRules(placed, errors);
  const byPath = new Map(drafts.map((g) => [pathKey(g.path), g]));
  const functionArity = (path: readonly string[]): number | null => {
    const g = byPath.get(pathKey(path));
    return g !== undefined && g.kind === "function" ? g.arity : null;
  };
  if (errors.length > 0 || options.stopAfter === "group") return finish(null, modules);

  // rules
  const reserved = new Set<string>();
  for (const m of modules) collectReserved(m, reserved);
  const gen = new LocalVarGenerator(reserved);
  const arityOf = (op: readonly string[]): number | null =>
    op[0] === "data" ? functionArity(op) : (lookupBuiltin(op.join("."))?.variadic === true ? null : lookupBuiltin(op.join("."))?.args.length ?? null);
  const ctxFor = moduleContexts(modules, errors, functionArity);
  const compiled = new Map<PlacedRule, CompiledRule>();
  for (const p of placed) {
    const ctx = ctxFor.get(p.module);
    if (ctx === undefined) continue;
    compiled.set(p, compileRule(p, ctx, gen, arityOf, errors));
  }
  const groups: RuleGroup[] = drafts.map((d) => toGroup(d, compiled));
  // Undefined functions (type errors) do not stop the type check, as in OPA.
  if (errors.some((e) => e.code !== "rego_type_error") || options.stopAfter === "rules") return finish(null, modules);

  // typecheck
  const tc = new TypeChecker(functionArity, errors);
  for (const g of groups) for (const r of [...g.rules, ...(g.default === null ? [] : [g.default])]) {
    tc.body(r.body);
    tc.terms([r.value, r.key, ...r.refTail]);
    for (let e = r.else; e !== null; e = e.else) {
      tc.body(e.body);
      tc.terms([e.value]);
    }
  }
  if (errors.length > 0 || options.stopAfter === "typecheck") return finish(null, modules);

  // recursion
  checkRecursion(groups, errors);
  const program: Program = {
    groups,
    packages: uniquePaths(modules.map((m) => m.package.path)),
    builtinsUsed: [...tc.used].sort(),
  };
  return finish(options.stopAfter === "recursion" || options.stopAfter === undefined ? program : null, modules);
}

function uniquePaths(paths: readonly (readonly string[])[]): (readonly string[])[] {
  const seen = new Map<string, readonly string[]>();
  for (const p of paths) seen.set(pathKey(p), p);
  return [...seen.values()].sort(comparePaths);
}

function toGroup(d: GroupDraft, compiled: ReadonlyMap<PlacedRule, CompiledRule>): RuleGroup {
  const rules = d.rules.map((p) => compiled.get(p)).filter((r): r is CompiledRule => r !== undefined);
  const def = d.default === null ? null : compiled.get(d.default) ?? null;
  return { path: d.path, kind: d.kind, arity: d.arity, rules, default: def };
}

/** Source names that look like generated locals (`__local0__` in OPA's own test modules). */
function collectReserved(m: Module, out: Set<string>): void {
  const visit = (n: string): void => {
    if (LOCAL_RE.test(n)) out.add(n);
  };
  for (const r of m.rules) {
    forEachVarInBody(r.body, visit);
    const h = r.head;
    for (const t of h.ref) forEachVar(t, visit, true);
    if (h.kind === "contains") forEachVar(h.key, visit, true);
    else forEachVar(h.value, visit, true);
    if (h.kind === "function") for (const a of h.args) forEachVar(a, visit, true);
    for (let e = r.else; e !== null; e = e.else) {
      forEachVarInBody(e.body, visit);
      forEachVar(e.value, visit, true);
    }
  }
}

/** Per module: package rule names and imports (checking duplicate import aliases). */
function moduleContexts(
  modules: readonly Module[],
  errors: Diagnostic[],
  functionArity: (path: readonly string[]) => number | null,
): Map<Module, ScopeContext> {
  const ruleNames = new Map<string, Set<string>>();
  for (const m of modules) {
    const key = pathKey(m.package.path);
    let s = ruleNames.get(key);
    if (s === undefined) ruleNames.set(key, (s = new Set()));
    for (const r of m.rules) {
      const first = r.head.ref[0];
      if (first !== undefined && first.type === "var") s.add(first.name);
    }
  }
  const out = new Map<Module, ScopeContext>();
  for (const m of modules) {
    const imports = new Map<string, readonly string[]>();
    for (const imp of m.imports) {
      if (imp.path[0] === "future" || imp.path[0] === "rego") continue;
      const alias = imp.alias ?? (imp.path[imp.path.length - 1] as string);
      if (imports.has(alias)) {
        errors.push({ code: "rego_compile_error", message: `import must not shadow import ${(imports.get(alias) as readonly string[]).join(".")}`, location: imp.location });
        continue;
      }
      imports.set(alias, imp.path);
    }
    out.set(m, {
      file: m.file,
      pkg: m.package.path,
      ruleNames: ruleNames.get(pathKey(m.package.path)) ?? new Set(),
      imports,
      functionArity,
      keepTopLevelNames: false,
    });
  }
  return out;
}

function trueTerm(location: Location): Term {
  return { type: "boolean", value: true, location };
}

/** Scope, flatten and order one rule (with its else chain). */
function compileRule(
  p: PlacedRule,
  ctx: ScopeContext,
  gen: LocalVarGenerator,
  arityOf: (op: readonly string[]) => number | null,
  errors: Diagnostic[],
): CompiledRule {
  const { rule } = p;
  const head = rule.head;
  const scoper = new Scoper(ctx, gen, errors);
  const flat = new Flattener(gen, arityOf);
  const safety = new SafetyChecker(gen, errors, arityOf);
  const headTerms: Term[] = [...p.tail];
  if (head.kind === "contains") headTerms.push(head.key);
  else headTerms.push(head.value);
  const rawArgs = head.kind === "function" ? head.args : [];

  // Function parameters: one var each; patterns are unified at the start of every body.
  const argVars: VarTerm[] = [];
  const argPatterns: { v: VarTerm; pattern: Term }[] = [];
  const paramNames = new Map<string, string>();

  const clause = (body: Body, terms: readonly Term[]): { body: Expr[]; terms: Term[] } => {
    const scope = scoper.newScope(null, body, [...terms, ...rawArgs]);
    // Every clause (else links too) names a parameter var like the first clause does.
    for (const [name, g] of paramNames) scoper.predeclare(scope, name, g);
    const args = rawArgs.map((a) => scoper.declarePattern(scope, a, "param"));
    rawArgs.forEach((a, i) => {
      const r = args[i] as Term;
      if (a.type === "var" && r.type === "var") paramNames.set(a.name, r.name);
    });
    if (argVars.length === 0) {
      args.forEach((a, i) => {
        const v: VarTerm = a.type === "var" ? a : { type: "var", name: gen.fresh("temp"), location: a.location };
        argVars.push(v);
        if (a.type !== "var") argPatterns.push({ v, pattern: a });
        void i;
      });
    }
    const resolved = scoper.resolveBody(scope, body);
    const rterms = terms.map((t) => scoper.resolveTerm(scope, t));
    const out: Expr[] = [];
    // Re-declared clauses (else) reuse the first clause's parameter names.
    args.forEach((a, i) => {
      const v = argVars[i] as VarTerm;
      if (a.type !== "var" || a.name !== v.name) out.push({ type: "callexpr", operator: ["eq"], args: [v, a], negated: false, with: [], location: a.location });
    });
    out.push(...flat.body(resolved));
    // Head refs are evaluated in the body (`q := xs[_]` -> `t = xs[_]`, head `q := t`), as OPA's rewriteRefsInHead.
    const lifted = rterms.map((t) => flat.liftHead(t, out, true));
    const ordered = safety.order(out, new Set(argVars.map((v) => v.name)));
    safety.checkTerms(lifted, ordered.bound, rule.location);
    return { body: ordered.body, terms: lifted };
  };

  const main = clause(rule.body, headTerms);
  const n = p.tail.length;
  const refTail = main.terms.slice(0, n);
  const valueOrKey = main.terms[n] ?? trueTerm(rule.location);
  const elseChain = (e: ElseClause | null): ElseClause | null => {
    if (e === null) return null;
    const c = clause(e.body, [e.value]);
    return { ...e, value: c.terms[0] ?? trueTerm(e.location), body: c.body, else: elseChain(e.else) };
  };
  void argPatterns;
  const varNames: Record<string, string> = {};
  return {
    location: rule.location,
    file: p.module.file,
    default: rule.default,
    refTail,
    key: head.kind === "contains" ? valueOrKey : null,
    value: head.kind === "contains" ? null : valueOrKey,
    args: argVars,
    body: main.body,
    else: elseChain(rule.else),
    varNames: fillVarNames(varNames, gen, main.body),
  };
}

function fillVarNames(out: Record<string, string>, gen: LocalVarGenerator, body: Body): Record<string, string> {
  forEachVarInBody(body, (n) => {
    const s = gen.sourceNames.get(n);
    if (s !== undefined && s !== "_") out[n] = s;
  });
  return out;
}

function capErrors(errors: readonly Diagnostic[], cap: number): Diagnostic[] {
  const byFile = new Map<string, Diagnostic[]>();
  const seen = new Set<string>();
  for (const e of errors) {
    const key = `${e.location.file}:${e.location.row}:${e.location.col}:${e.code}:${e.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    let list = byFile.get(e.location.file);
    if (list === undefined) byFile.set(e.location.file, (list = []));
    list.push(e);
  }
  const out: Diagnostic[] = [];
  for (const list of byFile.values()) {
    list.sort((a, b) => a.location.row - b.location.row || a.location.col - b.location.col);
    out.push(...list.slice(0, cap));
  }
  return out.sort((a, b) =>
    a.location.file === b.location.file ? a.location.row - b.location.row || a.location.col - b.location.col : a.location.file < b.location.file ? -1 : 1,
  );
}

/**
 * Compiles a query against a compiled program. Top-level variables keep their
 * names (they are the query's results); nested locals get `__localqN__`-free
 * generated names distinct from the program's.
 */
export function compileQuery(program: Program, body: Body, file = "query"): { query: CompiledQuery | null; errors: Diagnostic[] } {
  const errors: Diagnostic[] = [];
  const groups = new Map(program.groups.map((g) => [pathKey(g.path), g]));
  const functionArity = (path: readonly string[]): number | null => {
    const g = groups.get(pathKey(path));
    return g !== undefined && g.kind === "function" ? g.arity : null;
  };
  const reserved = new Set<string>();
  forEachVarInBody(body, (n) => reserved.add(n));
  const gen = new LocalVarGenerator(reserved, "__localq");
  const arityOf = (op: readonly string[]): number | null =>
    op[0] === "data" ? functionArity(op) : (lookupBuiltin(op.join("."))?.variadic === true ? null : lookupBuiltin(op.join("."))?.args.length ?? null);
  const ctx: ScopeContext = { file, pkg: null, ruleNames: new Set(), imports: new Map(), functionArity, keepTopLevelNames: true };
  const scoper = new Scoper(ctx, gen, errors);
  const scope = scoper.newScope(null, body);
  const resolved = scoper.resolveBody(scope, body);
  const flat = new Flattener(gen, arityOf).body(resolved);
  const ordered = new SafetyChecker(gen, errors, arityOf).order(flat, new Set());
  const tc = new TypeChecker(functionArity, errors);
  tc.body(ordered.body);
  const vars: string[] = [];
  const seen = new Set<string>();
  forEachVarInBody(resolved, (n) => {
    if (!seen.has(n) && !gen.temps.has(n) && !gen.sourceNames.has(n) && n !== "data" && n !== "input") {
      seen.add(n);
      vars.push(n);
    }
  });
  if (errors.length > 0) return { query: null, errors: capErrors(errors, 10) };
  return { query: { body: ordered.body, vars }, errors: [] };
}
