/**
 * The compiler driver: an executed table of stages over one state. Parse ->
 * group rules -> per rule (scope, flatten, safety) -> type check -> recursion
 * check. Tests stop after any stage (`stopAfter`); `onStage` times each one.
 */
import type { Diagnostic } from "../diagnostics.js";
import type { Body, Expr, Module } from "./ast.js";
import type { CustomBuiltins } from "../../src/policy/builtins/index.js";
import { lookupBuiltin, withCustomBuiltins } from "./builtins.js";
import { comparePaths, groupRules, placeRule, type GroupDraft, type PlacedRule } from "./groups.js";
import { LocalVarGenerator } from "./locals.js";
import { parseModule, type RegoVersion } from "./parser.js";
import { pathKey, type CompiledRule, type Program, type RuleGroup } from "./program.js";
import { checkRecursion } from "./recursion.js";
import type { ScopeContext } from "./scope.js";
import { PLANNED, TypeChecker } from "./typecheck.js";
import { checkMockedCalls, type Entrypoints } from "./mocked-calls.js";
import { RuleCompiler } from "./rule.js";
import { forEachVar, forEachVarInBody } from "./walk.js";
import { zeroArityCallsToRefs } from "./zero-arity.js";
import { rewriteMetadataCalls } from "./metadata-calls.js";
import { checkAnnotationRedeclarations } from "./annotation-conflicts.js";

export function arityWith(functionArity: (path: readonly string[]) => number | null): (op: readonly string[]) => number | null {
  return (op) => {
    if (op[0] === "data") return functionArity(op);
    const b = lookupBuiltin(op.join("."));
    return b === undefined || b.variadic === true ? null : b.args.length;
  };
}

export interface SourceFile {
  readonly file: string;
  readonly source: string;
  /** "v0": pre-1.0 syntax (see parser.ts); default "v1". */
  readonly regoVersion?: RegoVersion;
}

export type StageName = "parse" | "group" | "scope" | "flatten" | "safety" | "typecheck" | "recursion";

export interface CompileOptions {
  /**
   * Stop after this stage (for tests). After scope, flatten or safety the program
   * shows the rules as that stage left them (later invariants do not hold yet);
   * after parse or group it is null.
   */
  readonly stopAfter?: StageName;
  /** Maximum errors per file (OPA: 10). */
  readonly maxErrorsPerFile?: number;
  /**
   * Builtins the backend can call. When given, a call of any other builtin is
   * `OPA builtin X is not supported yet`, unless some `with` replaces that builtin.
   */
  readonly supportedBuiltins?: ReadonlySet<string>;
  /**
   * Where evaluation starts (what the planner plans): entrypoint paths
   * (`["data", "pkg", "rule"]`) and query bodies. Decides which calls of a replaced
   * unsupported builtin are reached without their `with`; without it every rule is a
   * start, as `toolgate check` plans.
   */
  readonly entrypoints?: Entrypoints;
  /** Called after each stage ran, with its wall time in milliseconds. */
  readonly onStage?: (name: StageName, ms: number) => void;
  /** Custom builtins (tools.yaml `policy.builtins`), declared beside OPA's. */
  readonly builtins?: CustomBuiltins;
}

export interface CompileResult {
  /** Null when there are errors (or when stopped after parse/group). */
  readonly program: Program | null;
  readonly errors: Diagnostic[];
  /** Parsed modules (for tools such as the formatter or debug dumps). */
  readonly modules: readonly Module[];
}

/** What the stages pass along; each stage fills its part. */
export interface State {
  readonly files: readonly SourceFile[];
  readonly options: CompileOptions;
  readonly errors: Diagnostic[];
  modules: Module[];
  placed: PlacedRule[];
  drafts: GroupDraft[];
  functionArity: (path: readonly string[]) => number | null;
  gen: LocalVarGenerator;
  rules: RuleCompiler[];
  packages: (readonly string[])[];
  /** The program as the last stage left it (null until the rules are scoped). */
  program: Program | null;
}

export interface Stage {
  readonly name: StageName;
  readonly why: string;
  readonly run: (st: State) => void;
  /** Whether the later stages may run after this one reported `errors`. */
  readonly goOn: (errors: readonly Diagnostic[]) => boolean;
}

const noErrors = (errors: readonly Diagnostic[]): boolean => errors.length === 0;

/**
 * The stages, in order. Each runs only when the ones before left no errors
 * (except undefined-function type errors after scope), like OPA.
 */
export const stages: readonly Stage[] = [
  { name: "parse", why: "source -> AST; parse errors stop compilation", run: parseStage, goOn: noErrors },
  { name: "group", why: "head paths and rule kinds must be known before names resolve", run: groupStage, goOn: noErrors },
  {
    name: "scope",
    why: "resolve names through imports and packages, rename locals; needs the groups (functions)",
    run: scopeStage,
    // Undefined functions (type errors) do not stop later stages, as in OPA.
    goOn: (errors) => errors.every((e) => e.code === "rego_type_error"),
  },
  // Unsafe-var errors caused by a call of the wrong arity would only repeat it: stop after flatten's errors.
  { name: "flatten", why: "lift nested calls and comprehensions, desugar; needs resolved operators for arities", run: (st) => eachRule(st, (r) => r.flatten(arityWith(st.functionArity))), goOn: noErrors },
  { name: "safety", why: "order bodies so vars are bound before use; needs the flat shapes", run: (st) => eachRule(st, (r) => r.safety(arityWith(st.functionArity))), goOn: noErrors },
  { name: "typecheck", why: "arity and literal argument types, on flattened calls", run: typecheckStage, goOn: noErrors },
  { name: "recursion", why: "needs resolved data refs and function paths", run: (st) => checkRecursion(st.program?.groups ?? [], st.errors), goOn: noErrors },
];

const LOCAL_RE = /^__local\d+__$/;

/** A compilation in progress: the stages run so far and their state (see `startCompile`). */
export interface Compilation {
  readonly state: State;
  /** Index in `stages` of the next stage to run; `stages.length` when done or stopped. */
  next: number;
}

/** Parses and checks the files: every stage of the table, in order. Never throws. */
export function compileModules(files: readonly SourceFile[], options: CompileOptions = {}): CompileResult {
  return continueCompile(startCompile(files, options));
}

export function startCompile(files: readonly SourceFile[], options: CompileOptions = {}): Compilation {
  const state: State = {
    files, options, errors: [], modules: [], placed: [], drafts: [], functionArity: () => null,
    gen: new LocalVarGenerator(new Set()), rules: [], packages: [], program: null,
  };
  return { state, next: 0 };
}

/**
 * Runs the remaining stages (up to and including `until`, when given, else to the
 * end or `stopAfter`). Never throws: an internal failure becomes a located
 * `rego_compile_error`. The result holds every error so far.
 */
export function continueCompile(c: Compilation, until?: StageName): CompileResult {
  const st = c.state;
  const { options } = st;
  try {
    withCustomBuiltins(options.builtins, () => {
      while (c.next < stages.length) {
        const stage = stages[c.next] as Stage;
        const t0 = performance.now();
        stage.run(st);
        options.onStage?.(stage.name, performance.now() - t0);
        c.next++;
        if (!stage.goOn(st.errors) || options.stopAfter === stage.name) c.next = stages.length;
        if (stage.name === until) break;
      }
    });
  } catch (e) {
    c.next = stages.length;
    const message = e instanceof RangeError ? "policy too deeply nested to compile" : `internal compiler error: ${e instanceof Error ? e.message : String(e)}`;
    st.errors.push({ code: "rego_compile_error", message, location: { file: st.files[0]?.file ?? "", row: 1, col: 1 } });
    st.program = null;
  }
  const errors = capErrors(st.errors, options.maxErrorsPerFile ?? 10);
  const stoppedEarly = options.stopAfter === "parse" || options.stopAfter === "group" || (until === "parse" || until === "group");
  return { program: errors.length === 0 && !stoppedEarly ? st.program : null, errors, modules: st.modules };
}

function parseStage(st: State): void {
  const parsed: Module[] = [];
  for (const f of st.files) {
    const r = parseModule(f.source, f.file, f.regoVersion === undefined ? {} : { regoVersion: f.regoVersion });
    st.errors.push(...r.errors);
    if (r.module !== null) parsed.push(r.module);
  }
  st.modules = rewriteMetadataCalls(zeroArityCallsToRefs(parsed));
}

function groupStage(st: State): void {
  for (const m of st.modules) for (const r of m.rules) {
    const p = placeRule(m, r, st.errors);
    if (p !== null) st.placed.push(p);
  }
  st.drafts = groupRules(st.placed, st.errors);
  checkAnnotationRedeclarations(st.modules, st.errors);
  const byPath = new Map(st.drafts.map((g) => [pathKey(g.path), g]));
  st.functionArity = (path) => {
    const g = byPath.get(pathKey(path));
    return g !== undefined && g.kind === "function" ? g.arity : null;
  };
  st.packages = uniquePaths(st.modules.map((m) => m.package.path));
}

function scopeStage(st: State): void {
  const reserved = new Set<string>();
  for (const m of st.modules) collectReserved(m, reserved);
  st.gen = new LocalVarGenerator(reserved);
  const ctxFor = moduleContexts(st.modules, st.errors, st.functionArity);
  st.rules = st.placed.map((p) => new RuleCompiler(p, st.gen, st.errors));
  for (const r of st.rules) {
    const ctx = ctxFor.get(r.placed.module);
    if (ctx !== undefined) r.scope(ctx);
  }
  snapshot(st);
}

function eachRule(st: State, f: (r: RuleCompiler) => void): void {
  for (const r of st.rules) f(r);
  snapshot(st);
}

/** The program from the rules as the stages left them so far. */
function snapshot(st: State): void {
  const compiled = new Map<PlacedRule, CompiledRule>(st.rules.map((r) => [r.placed, r.result()]));
  st.program = { groups: st.drafts.map((d) => toGroup(d, compiled)), packages: st.packages, builtinsUsed: [] };
}

function typecheckStage(st: State): void {
  const groups = st.program?.groups ?? [];
  const supported = st.options.supportedBuiltins;
  const bodies = groups.flatMap((g) => [...g.rules, ...(g.default === null ? [] : [g.default])]).flatMap((r) => {
    const out = [r.body];
    for (let e = r.else; e !== null; e = e.else) out.push(e.body);
    return out;
  });
  const mocked = mockedBuiltins(bodies);
  const tc = new TypeChecker(st.functionArity, st.errors, supported === undefined ? null : { supported, mocked });
  for (const g of groups) for (const r of [...g.rules, ...(g.default === null ? [] : [g.default])]) {
    tc.body(r.body);
    tc.terms([r.value, r.key, ...r.refTail]);
    for (let e = r.else; e !== null; e = e.else) {
      tc.body(e.body);
      tc.terms([e.value]);
    }
  }
  if (supported !== undefined) {
    // A builtin the backend lacks that some `with` replaces: only calls reached without that `with` are errors.
    const candidates = new Set([...mocked].filter((n) => lookupBuiltin(n) !== undefined && !PLANNED.has(n) && !supported.has(n)));
    checkMockedCalls(groups, candidates, st.errors, st.options.entrypoints);
  }
  st.program = { groups, packages: st.packages, builtinsUsed: [...tc.used].sort() };
}

/** Builtins some `with` in these bodies replaces (calls of them need no implementation). */
export function mockedBuiltins(bodies: readonly Body[]): Set<string> {
  const out = new Set<string>();
  const body = (b: readonly Expr[]): void => {
    for (const e of b) {
      for (const w of e.with) {
        const t = w.target;
        if (t.type === "ref" && t.head.type === "var" && t.head.name !== "data" && t.head.name !== "input") {
          out.add([t.head.name, ...t.path.map((p) => (p.type === "string" ? p.value : ""))].join("."));
        }
      }
      if (e.type === "not" || e.type === "every") body(e.body);
      if (e.type === "callexpr") for (const a of e.args) if (a.type === "arraycomprehension" || a.type === "setcomprehension" || a.type === "objectcomprehension") body(a.body);
    }
  };
  for (const b of bodies) body(b);
  return out;
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
    if (n.startsWith("__local") && LOCAL_RE.test(n)) out.add(n);
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

export function capErrors(errors: readonly Diagnostic[], cap: number): Diagnostic[] {
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
