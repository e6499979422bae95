/** Query compilation against a compiled program (conformance queries, `toolgate test`). */
import type { Diagnostic } from "../diagnostics.js";
import type { Body } from "./ast.js";
import { arityWith, capErrors, mockedBuiltins } from "./compile.js";
import { Flattener } from "./flatten.js";
import { LocalVarGenerator } from "./locals.js";
import { pathKey, type CompiledQuery, type Program } from "./program.js";
import { SafetyChecker } from "./safety.js";
import { Scoper, type ScopeContext } from "./scope.js";
import { TypeChecker } from "./typecheck.js";
import { forEachVarInBody } from "./walk.js";

/**
 * Compiles a query against a compiled program. Top-level variables keep their
 * names (they are the query's results); nested locals get `__localqN__`-free
 * generated names distinct from the program's.
 */
export interface QueryOptions {
  /** As `compileModules`' option: calls of other builtins are errors unless a `with` replaces them. */
  readonly supportedBuiltins?: ReadonlySet<string>;
}

export function compileQuery(program: Program, body: Body, file = "query", options: QueryOptions = {}): { query: CompiledQuery | null; errors: Diagnostic[] } {
  try {
    return compileQueryUnsafe(program, body, file, options);
  } catch (e) {
    const message = e instanceof RangeError ? "query too deeply nested to compile" : `internal compiler error: ${e instanceof Error ? e.message : String(e)}`;
    return { query: null, errors: [{ code: "rego_compile_error", message, location: { file, row: 1, col: 1 } }] };
  }
}

function compileQueryUnsafe(program: Program, body: Body, file: string, options: QueryOptions): { query: CompiledQuery | null; errors: Diagnostic[] } {
  const errors: Diagnostic[] = [];
  const groups = new Map(program.groups.map((g) => [pathKey(g.path), g]));
  const functionArity = (path: readonly string[]): number | null => {
    const g = groups.get(pathKey(path));
    return g !== undefined && g.kind === "function" ? g.arity : null;
  };
  const reserved = new Set<string>();
  forEachVarInBody(body, (n) => reserved.add(n));
  const gen = new LocalVarGenerator(reserved, "__localq");
  const arityOf = arityWith(functionArity);
  const ctx: ScopeContext = { file, pkg: null, ruleNames: new Set(), imports: new Map(), functionArity, keepTopLevelNames: true };
  const scoper = new Scoper(ctx, gen, errors);
  const resolved = scoper.resolveBody(scoper.newScope(null, body), body);
  const fatal = (): boolean => errors.some((e) => e.code !== "rego_type_error");
  const flat = fatal() ? [] : new Flattener(gen, arityOf, errors).body(resolved);
  const ordered = errors.length > 0 ? { body: [] } : new SafetyChecker(gen, errors, arityOf).order(flat, new Set());
  if (errors.length === 0) {
    const supported = options.supportedBuiltins;
    const backend = supported === undefined ? null : { supported, mocked: mockedBuiltins([ordered.body]) };
    new TypeChecker(functionArity, errors, backend).body(ordered.body);
  }
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
