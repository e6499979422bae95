/** The public contract of the Rego -> WebAssembly compiler (see README.md). */
import type { Diagnostic } from "../diagnostics.js";
import type { CoveragePoint } from "../plan/coverage.js";
import type { Policy } from "../plan/ir.js";
import type { RegoVersion } from "../rego/parser.js";
import type { CustomBuiltins } from "../../src/policy/builtins/index.js";

export type { RegoVersion } from "../rego/parser.js";

/** Stage names in pipeline order; `stopAfter` ends the pipeline after the named one. */
export const STAGE_NAMES = ["parse", "check", "plan", "emit", "optimize"] as const;
export type StageName = (typeof STAGE_NAMES)[number];

export interface SourceFile {
  /** Path used in diagnostics, e.g. "policies/authz.rego". */
  readonly file: string;
  readonly source: string;
  /** "v0" parses pre-1.0 Rego (`p { }`, `p[x] { }`); default "v1". `import rego.v1` in a file always means v1. */
  readonly regoVersion?: RegoVersion;
}

export interface QuerySpec {
  /** Entrypoint name the query is exposed under (must not clash with a rule path). */
  readonly name: string;
  /** A Rego query body, e.g. `data.test.p = x`. */
  readonly body: string;
}

export interface CompileOptions {
  readonly modules: readonly SourceFile[];
  /** Rule paths with slashes, e.g. "toolgate/authz/decision". */
  readonly entrypoints: readonly string[];
  /** Queries compiled as extra entrypoints; each result is an object of var -> value. */
  readonly queries?: readonly QuerySpec[];
  /** Builtin errors abort evaluation (eval_builtin_error) instead of being undefined. */
  readonly strictBuiltinErrors?: boolean;
  /** Run binaryen's optimiser over the generated functions (default false; `await loadOptimizer()` from codegen/wasm/link first). */
  readonly optimize?: boolean;
  /** Fuel checks for bounded evaluation (default true; see codegen/wasm/emit/fuel.ts). */
  readonly fuel?: boolean;
  readonly stopAfter?: StageName;
  /** Record coverage points (see README): result `coverage`, export `toolgate_coverage_ptr`. */
  readonly coverage?: boolean;
  /** Index rules that test an input path against constants, evaluating only those that can match (default true). */
  readonly ruleIndex?: boolean;
  /** Custom builtins (tools.yaml `policy.builtins`): declared for the checks, called through the host. */
  readonly builtins?: CustomBuiltins;
}

export interface CompileResult {
  /** The module, or null when there were errors or the pipeline stopped early. */
  readonly wasm: Uint8Array | null;
  readonly errors: Diagnostic[];
  readonly plan?: Policy;
  /** Entrypoint name (rule path or query name) -> id passed to `evaluate`. */
  readonly entrypointIds: Record<string, number>;
  /** With `coverage: true`: point i is the byte at `toolgate_coverage_ptr() + i`. */
  readonly coverage?: { readonly points: CoveragePoint[] };
  /**
   * Wall time of each stage that ran, in order: the front end's own stages
   * (parse, group, scope, flatten, safety, typecheck, recursion), `query`
   * (compiling the queries), then plan, emit, optimize.
   */
  readonly timings: readonly StageTiming[];
}

export interface StageTiming {
  readonly stage: string;
  readonly ms: number;
  /** The stage's own phases (emit: reading runtime.wasm, generating, validating, encoding). */
  readonly parts?: readonly StageTiming[];
}
