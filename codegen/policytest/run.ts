/**
 * Runs policy tests: parse every file, find the tests, compile all modules with
 * each test rule as an entrypoint, evaluate each through the opa-wasm SDK.
 */
import { readFileSync } from "node:fs";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { MODULE_EXPORTS } from "../../src/policy/abi.js";
import type { CustomBuiltins } from "../../src/policy/builtins/index.js";
import { createHostBuiltins } from "../../src/policy/host-builtins/index.js";
import type { Diagnostic } from "../diagnostics.js";
import type { Module } from "../rego/ast.js";
import { parseModule, type RegoVersion } from "../rego/index.js";
import type { CompileOptions, CompileResult } from "../compiler/types.js";
import { discoverTests, type PolicyTest } from "./discover.js";
import { buildCoverage, type CoverageReport } from "./coverage.js";
import { todoRanges } from "./todo-ranges.js";
import { explainFailure, type Explanation } from "./explain.js";

export type TestStatus = "pass" | "fail" | "error" | "skip";

export interface TestResult {
  readonly test: PolicyTest;
  readonly status: TestStatus;
  readonly ms: number;
  /** FAIL: what the rule evaluated to; ERROR: the evaluation error. */
  readonly message?: string;
  /** FAIL with `explain`: the expression that did not hold and the values before it. */
  readonly explanation?: Explanation;
  /** Lines the test's `print()` calls wrote, in order (never mixed into a report). */
  readonly output?: readonly string[];
}

export interface RunOptions {
  readonly files: readonly string[];
  readonly run?: RegExp;
  readonly coverage?: boolean;
  /** Find the failing expression and bound values of each failing test (`-v`). */
  readonly explain?: boolean;
  /** The data document (`loadDataFiles`); default `{}`. */
  readonly data?: Readonly<Record<string, unknown>>;
  /** "v0": the files are pre-1.0 Rego (`--v0-compatible`). */
  readonly regoVersion?: RegoVersion;
  /** Custom builtins (tools.yaml `policy.builtins`). */
  readonly builtins?: CustomBuiltins;
}

export interface RunReport {
  readonly results: readonly TestResult[];
  /** Parse and compile errors: no test ran. */
  readonly errors: readonly Diagnostic[];
  readonly coverage?: CoverageReport;
  /** Why coverage was asked for and is missing. */
  readonly coverageError?: string;
}

export async function runPolicyTests(opts: RunOptions): Promise<RunReport> {
  const version = opts.regoVersion === undefined ? {} : { regoVersion: opts.regoVersion };
  const sources = opts.files.map((file) => ({ file, source: readFileSync(file, "utf8"), ...version }));
  const modules: Module[] = [];
  const parseErrors: Diagnostic[] = [];
  for (const s of sources) {
    const r = parseModule(s.source, s.file, version);
    parseErrors.push(...r.errors);
    if (r.module !== null) modules.push(r.module);
  }
  if (parseErrors.length > 0) return { results: [], errors: parseErrors };

  const all = discoverTests(modules).filter((t) => opts.run === undefined || opts.run.test(t.name));
  const toRun = all.filter((t) => !t.todo);
  const skipped = all.filter((t) => t.todo).map((test): TestResult => ({ test, status: "skip", ms: 0 }));
  if (toRun.length === 0) return { results: skipped, errors: [] };

  // With `coverage`, the compiler instruments the module (off by default, so production modules stay lean).
  // Unoptimised: the optimiser costs seconds and tests check semantics, not size.
  const options = {
    modules: sources,
    entrypoints: toRun.map((t) => t.entrypoint),
    coverage: opts.coverage === true,
    optimize: false,
    ...(opts.builtins === undefined ? {} : { builtins: opts.builtins }),
  };
  // Loaded on use so that the rest of the CLI works while the compiler is broken.
  let compilePolicy: CompilerModule["compilePolicy"];
  try {
    ({ compilePolicy } = await import("../compiler/index.js"));
  } catch (err) {
    const location = { file: "codegen/compiler/index.ts", row: 1, col: 1 };
    return { results: skipped, errors: [{ code: "compiler_unavailable", message: errorText(err), location }] };
  }
  const compiled = compilePolicy(options as CompileOptions);
  if (compiled.errors.length > 0 || compiled.wasm === null) return { results: skipped, errors: compiled.errors };

  const host = createHostBuiltins(opts.builtins === undefined ? {} : { builtins: opts.builtins });
  const policy = await loadPolicy(compiled.wasm, undefined, host.builtins);
  host.attach({ exports: (policy.wasmInstance as WebAssembly.Instance).exports, memory: policy.mem });
  policy.setData(opts.data ?? {});
  const results: TestResult[] = [];
  for (const test of toRun) {
    host.startEvaluation();
    const { result: evaluated, lines } = capturePrints(() => evaluateTest(policy, test));
    const r = lines.length === 0 ? evaluated : { ...evaluated, output: lines };
    const explanation = r.status === "fail" && opts.explain === true ? await explainFailure(test, modules, sources, compilePolicy) : null;
    results.push(explanation === null ? r : { ...r, explanation });
  }

  const base: RunReport = { results: [...results, ...skipped], errors: [] };
  if (opts.coverage !== true) return base;
  const todo = todoRanges(modules);
  const points = compiled.coverage?.points;
  const ptr = ((policy.wasmInstance as WebAssembly.Instance).exports as Record<string, unknown>)[MODULE_EXPORTS.coveragePtr];
  if (points === undefined || typeof ptr !== "function") {
    return { ...base, coverageError: "the compiled module carries no coverage instrumentation (compiler option `coverage`)" };
  }
  const hits = new Uint8Array(policy.mem.buffer, (ptr as () => number)(), points.length).slice();
  return { ...base, coverage: buildCoverage(points, hits, todo) };
}

interface CompilerModule {
  compilePolicy(options: CompileOptions): CompileResult;
}

type Loaded = Awaited<ReturnType<typeof loadPolicy>>;

/**
 * The SDK writes `print()` lines with console.log; while a test evaluates (synchronously)
 * they are collected for its result instead, so a JSON report stays one document.
 */
function capturePrints<T>(run: () => T): { result: T; lines: string[] } {
  const lines: string[] = [];
  const original = console.log;
  console.log = (...args: unknown[]): void => {
    lines.push(args.map(String).join(" "));
  };
  try {
    return { result: run(), lines };
  } finally {
    console.log = original;
  }
}

function evaluateTest(policy: Loaded, test: PolicyTest): TestResult {
  const start = performance.now();
  try {
    const rs: unknown = policy.evaluate(undefined, test.entrypoint);
    const ms = performance.now() - start;
    const value = Array.isArray(rs) && rs.length === 1 ? (rs[0] as { result?: unknown }).result : undefined;
    if (value === true) return { test, status: "pass", ms };
    const message = value === undefined ? "undefined" : `got ${JSON.stringify(value)}`;
    return { test, status: "fail", ms, message };
  } catch (err) {
    return { test, status: "error", ms: performance.now() - start, message: errorText(err) };
  }
}

/** The SDK throws strings (opa_abort), `{ message }` objects and Errors. */
function errorText(err: unknown): string {
  if (typeof err === "string") return err;
  if (err instanceof Error) return err.message;
  if (typeof err === "object" && err !== null && "message" in err) return String(err.message);
  return String(err);
}
