/**
 * The Rego -> WebAssembly compiler's public API. The pipeline is a table of named
 * stages; each takes the previous stage's plain data. `stopAfter` ends early (tests).
 */
import type { Diagnostic } from "../diagnostics.js";
import { compareDiagnostics } from "../diagnostics.js";
import type { CoveragePoint } from "../plan/coverage.js";
import type { Policy } from "../plan/ir.js";
import type { PlanQuery } from "../plan/planner.js";
import { planPolicy } from "../plan/planner.js";
import type { Body, Module } from "../rego/ast.js";
import { compileModules, compileQuery, parseModule, parseQuery } from "../rego/index.js";
import { zeroArityCallsToRefs } from "../rego/zero-arity.js";
import { builtinArities } from "../wasm/emit/builtins.js";
import { emitPolicy, isEmitError } from "../wasm/emit/index.js";
import type { CompileOptions, CompileResult, StageName } from "./types.js";

export type * from "./types.js";
export { STAGE_NAMES } from "./types.js";

interface State {
  modules: Module[];
  queries: PlanQuery[];
  plan?: Policy;
  coverage?: CoveragePoint[];
  entrypointIds: Record<string, number>;
  wasm: Uint8Array | null;
  errors: Diagnostic[];
}

interface Stage {
  readonly name: StageName;
  readonly run: (st: State, opts: CompileOptions) => void;
}

/**
 * Order matters: parsing must finish for every file before checking (rules refer
 * across files); planning needs the checked program; emitting needs the plan.
 */
const STAGES: readonly Stage[] = [
  { name: "parse", run: parseStage },
  { name: "check", run: checkStage },
  { name: "plan", run: planStage },
  { name: "emit", run: emitStage },
  { name: "optimize", run: () => {} /* binaryen optimises inside emit when opts.optimize is not false */ },
];

export function compilePolicy(opts: CompileOptions): CompileResult {
  const st: State = { modules: [], queries: [], entrypointIds: {}, wasm: null, errors: [] };
  for (const stage of STAGES) {
    stage.run(st, opts);
    if (st.errors.length > 0) break;
    if (opts.stopAfter === stage.name) break;
  }
  const errors = [...st.errors].sort(compareDiagnostics);
  const out: CompileResult = {
    wasm: errors.length > 0 ? null : st.wasm,
    errors,
    entrypointIds: st.entrypointIds,
    ...(st.plan === undefined ? {} : { plan: st.plan }),
    ...(st.coverage === undefined ? {} : { coverage: { points: st.coverage } }),
  };
  return out;
}

function parseStage(st: State, opts: CompileOptions): void {
  for (const f of opts.modules) {
    const r = parseModule(f.source, f.file, f.regoVersion === undefined ? {} : { regoVersion: f.regoVersion });
    st.errors.push(...r.errors);
    if (r.module !== null) st.modules.push(r.module);
  }
  st.modules = zeroArityCallsToRefs(st.modules);
  for (const q of opts.queries ?? []) {
    const r = parseQuery(q.body, `query:${q.name}`);
    st.errors.push(...r.errors);
    if (r.body !== null) st.queries.push({ name: q.name, body: r.body as Body });
  }
}

/**
 * The front end's checks (safety, types, recursion, unknown builtins) decide whether
 * the program is valid. The planner still reads the parsed modules; planning from
 * the front end's rewritten program is the next step (see README, known gaps).
 */
function checkStage(st: State, opts: CompileOptions): void {
  const r = compileModules(opts.modules);
  st.errors.push(...r.errors);
  if (r.program === null) return;
  for (const q of opts.queries ?? []) {
    const parsed = st.queries.find((x) => x.name === q.name);
    if (parsed === undefined) continue;
    st.errors.push(...compileQuery(r.program, parsed.body, `query:${q.name}`).errors);
  }
}

function planStage(st: State, opts: CompileOptions): void {
  const names = new Set(opts.entrypoints);
  for (const q of opts.queries ?? []) {
    if (names.has(q.name)) {
      st.errors.push({
        code: "rego_compile_error",
        message: `query name ${q.name} clashes with an entrypoint`,
        location: { file: `query:${q.name}`, row: 1, col: 1 },
      });
      return;
    }
  }
  const r = planPolicy({
    modules: st.modules, entrypoints: opts.entrypoints, queries: st.queries, builtins: builtinArities(), coverage: opts.coverage === true,
  });
  st.plan = r.policy;
  if (r.coverage !== undefined) st.coverage = r.coverage;
  st.entrypointIds = r.entrypointIds;
  st.errors.push(...r.errors);
}

function emitStage(st: State, opts: CompileOptions): void {
  if (st.plan === undefined) return;
  try {
    st.wasm = emitPolicy(st.plan, {
      strictBuiltinErrors: opts.strictBuiltinErrors === true,
      optimize: opts.optimize !== false,
      fuel: opts.fuel !== false,
    });
  } catch (e) {
    if (!isEmitError(e)) throw e;
    st.errors.push({ code: "wasm_emit_error", message: e.message, location: { file: "policy", row: 1, col: 1 } });
  }
}
