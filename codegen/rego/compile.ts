/**
 * The compiler driver: parse -> group rules -> per rule (scope, flatten, safety)
 * -> type check -> recursion check. The stage list is a named table so tests
 * can stop after any stage (`stopAfter`).
 */
import type { Diagnostic } from "../diagnostics.js";
import type { Module } from "./ast.js";
import type { CustomBuiltins } from "../../src/policy/builtins/index.js";
import { lookupBuiltin, withCustomBuiltins } from "./builtins.js";
import { comparePaths, groupRules, placeRule, type GroupDraft, type PlacedRule } from "./groups.js";
import { LocalVarGenerator } from "./locals.js";
import { parseModule, type RegoVersion } from "./parser.js";
import { pathKey, type CompiledRule, type Program, type RuleGroup } from "./program.js";
import { checkRecursion } from "./recursion.js";
import type { ScopeContext } from "./scope.js";
import { TypeChecker } from "./typecheck.js";
import { RuleCompiler } from "./rule.js";
import { forEachVar, forEachVarInBody } from "./walk.js";
import { zeroArityCallsToRefs } from "./zero-arity.js";

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

/**
 * The stages, in order. Each runs only when the ones before left no errors
 * (except undefined-function type errors), like OPA.
 */
export const stages: readonly { name: StageName; why: string }[] = [
  { name: "parse", why: "source -> AST; parse errors stop compilation" },
  { name: "group", why: "head paths and rule kinds must be known before names resolve" },
  { name: "scope", why: "resolve names through imports and packages, rename locals; needs the groups (functions)" },
  { name: "flatten", why: "lift nested calls and comprehensions, desugar; needs resolved operators for arities" },
  { name: "safety", why: "order bodies so vars are bound before use; needs the flat shapes" },
  { name: "typecheck", why: "arity and literal argument types, on flattened calls" },
  { name: "recursion", why: "needs resolved data refs and function paths" },
];

export interface CompileOptions {
  /**
   * Stop after this stage (for tests). After scope, flatten or safety the program
   * shows the rules as that stage left them (later invariants do not hold yet);
   * after parse or group it is null.
   */
  readonly stopAfter?: StageName;
  /** Maximum errors per file (OPA: 10). */
  readonly maxErrorsPerFile?: number;
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

const LOCAL_RE = /^__local\d+__$/;

/** Never throws: an internal failure becomes a located `rego_compile_error`. */
export function compileModules(files: readonly SourceFile[], options: CompileOptions = {}): CompileResult {
  try {
    return withCustomBuiltins(options.builtins, () => compileModulesUnsafe(files, options));
  } catch (e) {
    const message = e instanceof RangeError ? "policy too deeply nested to compile" : `internal compiler error: ${e instanceof Error ? e.message : String(e)}`;
    return { program: null, errors: [{ code: "rego_compile_error", message, location: { file: files[0]?.file ?? "", row: 1, col: 1 } }], modules: [] };
  }
}

function compileModulesUnsafe(files: readonly SourceFile[], options: CompileOptions): CompileResult {
  const errors: Diagnostic[] = [];
  const cap = options.maxErrorsPerFile ?? 10;
  const finish = (program: Program | null, modules: readonly Module[]): CompileResult => ({
    program: errors.length === 0 ? program : null,
    errors: capErrors(errors, cap),
    modules,
  });

  // parse
  const parsed: Module[] = [];
  for (const f of files) {
    const r = parseModule(f.source, f.file, f.regoVersion === undefined ? {} : { regoVersion: f.regoVersion });
    errors.push(...r.errors);
    if (r.module !== null) parsed.push(r.module);
  }
  const modules = zeroArityCallsToRefs(parsed);
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

  // scope, flatten, safety: each for every rule before the next
  const reserved = new Set<string>();
  for (const m of modules) collectReserved(m, reserved);
  const gen = new LocalVarGenerator(reserved);
  const arityOf = arityWith(functionArity);
  const ctxFor = moduleContexts(modules, errors, functionArity);
  const rules = placed.map((p) => new RuleCompiler(p, gen, errors));
  for (const r of rules) {
    const ctx = ctxFor.get(r.placed.module);
    if (ctx !== undefined) r.scope(ctx);
  }
  const snapshot = (): RuleGroup[] => {
    const compiled = new Map<PlacedRule, CompiledRule>(rules.map((r) => [r.placed, r.result()]));
    return drafts.map((d) => toGroup(d, compiled));
  };
  const packages = uniquePaths(modules.map((m) => m.package.path));
  const partial = (): Program => ({ groups: snapshot(), packages, builtinsUsed: [] });
  // Undefined functions (type errors) do not stop later stages, as in OPA.
  if (errors.some((e) => e.code !== "rego_type_error")) return finish(null, modules);
  if (options.stopAfter === "scope") return finish(partial(), modules);
  for (const r of rules) r.flatten(arityOf);
  // Unsafe-var errors caused by a call of the wrong arity would only repeat it: stop here.
  if (errors.length > 0) return finish(null, modules);
  if (options.stopAfter === "flatten") return finish(partial(), modules);
  for (const r of rules) r.safety(arityOf);
  if (errors.length > 0) return finish(null, modules);
  const groups = snapshot();
  if (options.stopAfter === "safety") return finish({ groups, packages, builtinsUsed: [] }, modules);

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
  const program: Program = { groups, packages, builtinsUsed: [...tc.used].sort() };
  if (errors.length > 0 || options.stopAfter === "typecheck") return finish(program, modules);

  // recursion
  checkRecursion(groups, errors);
  return finish(program, modules);
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
