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
import type { Body } from "../rego/ast.js";
import { compileModules, compileQuery, continueCompile, parseQuery, startCompile, type Compilation } from "../rego/index.js";
import type { Program } from "../rego/program.js";
import { builtinArities } from "../wasm/emit/builtins.js";
import { emitPolicy, isEmitError } from "../wasm/emit/index.js";
import type { CustomBuiltins } from "../../src/policy/builtins/index.js";
import { supportedBuiltins } from "./check.js";
import { withCustomBuiltins } from "../rego/builtins.js";
import type { CompileOptions, CompileResult, StageName, StageTiming } from "./types.js";

export type * from "./types.js";
export { checkPolicy } from "./check.js";
/** Loads binaryen for `optimize: true` (the default build does without it). */
export { loadOptimizer } from "../wasm/link/optimize.js";
export { STAGE_NAMES } from "./types.js";

interface State {
  front: Compilation | null;
  program: Program | null;
  /** Parsed query bodies, then their checked form. */
  parsedQueries: { name: string; body: Body }[];
  queries: PlanQuery[];
  plan?: Policy;
  coverage?: CoveragePoint[];
  entrypointIds: Record<string, number>;
  wasm: Uint8Array | null;
  errors: Diagnostic[];
  timings: StageTiming[];
}

export interface Stage {
  readonly name: StageName;
  readonly run: (st: State, opts: CompileOptions) => void;
}

/**
 * Order matters: parsing must finish for every file before checking (rules refer
 * across files); planning needs the checked program; emitting needs the plan.
 * The front end's own stages (codegen/rego `stages`) run inside parse and check
 * and are timed one by one.
 */
export const STAGES: readonly Stage[] = [
  { name: "parse", run: parseStage },
  { name: "check", run: checkStage },
  { name: "plan", run: planStage },
  { name: "emit", run: emitStage },
  { name: "optimize", run: () => {} /* binaryen optimises inside emit when opts.optimize is true; emit times both */ },
];

export function compilePolicy(opts: CompileOptions): CompileResult {
  const st: State = { front: null, program: null, parsedQueries: [], queries: [], entrypointIds: {}, wasm: null, errors: [], timings: [] };
  withCustomBuiltins(opts.builtins, () => {
    for (const stage of STAGES) {
      const t0 = performance.now();
      stage.run(st, opts);
      if (stage.name === "plan") st.timings.push({ stage: stage.name, ms: performance.now() - t0 });
      if (st.errors.length > 0) break;
      if (opts.stopAfter === stage.name) break;
    }
  });
  const errors = [...st.errors].sort(compareDiagnostics);
  const out: CompileResult = {
    wasm: errors.length > 0 ? null : st.wasm,
    errors,
    entrypointIds: st.entrypointIds,
    timings: st.timings,
    ...(st.plan === undefined ? {} : { plan: st.plan }),
    ...(st.coverage === undefined ? {} : { coverage: { points: st.coverage } }),
  };
  return out;
}

function parseStage(st: State, opts: CompileOptions): void {
  for (const q of opts.queries ?? []) {
    const r = parseQuery(q.body, `query:${q.name}`);
    st.errors.push(...r.errors);
    if (r.body !== null) st.parsedQueries.push({ name: q.name, body: r.body as Body });
  }
  st.front = startCompile(opts.modules, {
    supportedBuiltins: supportedBuiltins(st.parsedQueries, opts.builtins),
    entrypoints: { paths: opts.entrypoints.map((e) => ["data", ...e.split("/")]), queries: st.parsedQueries.map((q) => q.body) },
    ...(opts.builtins === undefined ? {} : { builtins: opts.builtins }),
    onStage: (stage, ms) => st.timings.push({ stage, ms }),
  });
  st.errors.push(...continueCompile(st.front, "parse").errors);
}

/** The front end's checks (safety, types, recursion, unknown builtins); then each query against the program. */
function checkStage(st: State, opts: CompileOptions): void {
  if (st.front === null) return;
  const r = continueCompile(st.front);
  st.errors = [...st.errors.filter((e) => e.location.file.startsWith("query:")), ...r.errors];
  if (r.program === null) return;
  st.program = r.program;
  const t0 = performance.now();
  const supported = supportedBuiltins(st.parsedQueries, opts.builtins);
  for (const q of st.parsedQueries) {
    const c = compileQuery(r.program, q.body, `query:${q.name}`, { supportedBuiltins: supported });
    st.errors.push(...c.errors);
    if (c.query !== null) st.queries.push({ name: q.name, query: c.query });
  }
  st.timings.push({ stage: "query", ms: performance.now() - t0 });
}

function planStage(st: State, opts: CompileOptions): void {
  if (st.program === null) return;
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
    program: st.program,
    files: opts.modules.map((m) => m.file),
    entrypoints: opts.entrypoints,
    queries: st.queries,
    builtins: builtinArities(opts.builtins),
    coverage: opts.coverage === true,
    ruleIndex: opts.ruleIndex !== false,
  });
  st.plan = r.policy;
  if (r.coverage !== undefined) st.coverage = r.coverage;
  st.entrypointIds = r.entrypointIds;
  st.errors.push(...r.errors);
}

function emitStage(st: State, opts: CompileOptions): void {
  if (st.plan === undefined) return;
  const phases: StageTiming[] = [];
  try {
    st.wasm = emitPolicy(st.plan, {
      strictBuiltinErrors: opts.strictBuiltinErrors === true,
      optimize: opts.optimize === true,
      ...(opts.builtins === undefined ? {} : { customBuiltins: opts.builtins }),
      fuel: opts.fuel !== false,
      onPhase: (stage, ms) => phases.push({ stage, ms }),
    });
  } catch (e) {
    if (!isEmitError(e)) throw e;
    st.errors.push({ code: "wasm_emit_error", message: e.message, location: { file: "policy", row: 1, col: 1 } });
  }
  // Optimising happens inside emitPolicy; it is reported as its own stage.
  const optimize = phases.filter((p) => p.stage === "optimize");
  const rest = phases.filter((p) => p.stage !== "optimize");
  st.timings.push({ stage: "emit", ms: rest.reduce((a, p) => a + p.ms, 0), parts: rest });
  st.timings.push({ stage: "optimize", ms: optimize.reduce((a, p) => a + p.ms, 0) });
}
