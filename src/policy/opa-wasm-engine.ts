/**
 * PolicyEngine over a compiled policy.wasm, evaluated by the unmodified
 * @open-policy-agent/opa-wasm SDK. Its versions (version.ts) hash the wasm bytes and the
 * canonical data, together and apart.
 */
import { readFile } from "node:fs/promises";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import type { JsonObject } from "../manifest.js";
import { BUDGET_EXCEEDED, checkPolicyBudget, DEFAULT_POLICY_BUDGET, moduleFuel } from "./budget.js";
import { deny, toDecision } from "./engine.js";
import { BUILTINS, type CustomBuiltins } from "./builtins/index.js";
import { readInputPaths } from "./input-projection.js";
import { PolicyLoadError } from "./load-error.js";
import { jsonProjection } from "./projected-json.js";
import type { JsonProjection } from "./projected-json.js";
import { createHostBuiltins } from "./host-builtins/index.js";
import { checkPolicyDeadline, DEFAULT_POLICY_DEADLINE_MS, isHostBudgetExceeded } from "./host-meter.js";
import { evaluationErrorText, moduleStrictErrors, NO_STRICT_SWITCH } from "./strict-errors.js";
import type { EvaluateOptions, PolicyDecision, PolicyEngine, PolicyInput } from "./engine.js";
import { policyCodeVersion, policyDataVersion, policyVersion } from "./version.js";

export { policyVersion } from "./version.js";

export interface OpaWasmEngineOptions {
  readonly wasm: Uint8Array;
  /** Entrypoint as a rule path with slashes, e.g. "toolgate/authz/decision". */
  readonly entrypoint: string;
  /** Loaded with setData; `data.toolgate.config` holds the shipped policy's limits and roles. */
  readonly data?: JsonObject;
  /** Custom builtins the policy was compiled with (`defineBuiltins`, tools.yaml `policy.builtins`). */
  readonly builtins?: CustomBuiltins;
  /** Steps per evaluation unless `evaluate` is given one (default DEFAULT_POLICY_BUDGET; see budget.ts). */
  readonly budget?: number;
  /** Wall-clock milliseconds per evaluation unless `evaluate` is given one (default DEFAULT_POLICY_DEADLINE_MS; host-meter.ts). */
  readonly deadlineMs?: number;
  /** Builtin errors deny with `policy_evaluation_error` unless `evaluate` says otherwise (default false; strict-errors.ts). */
  readonly strictBuiltinErrors?: boolean;
}

export { isPolicyLoadError, PolicyLoadError } from "./load-error.js";

export interface OpaWasmEngine extends PolicyEngine {
  /** The synchronous decision (what evaluate() resolves to). */
  decide(input: PolicyInput, options?: EvaluateOptions): PolicyDecision;
}

export async function loadOpaWasmEngine(opts: OpaWasmEngineOptions): Promise<OpaWasmEngine> {
  let policy: Awaited<ReturnType<typeof loadPolicy>>;
  // Builtins the compiler delegates to the host (regex, glob, time, ...) are answered in JavaScript;
  // this set reads the clock once per evaluation and locates strict builtin errors.
  const host = createHostBuiltins(opts.builtins === undefined ? {} : { builtins: opts.builtins });
  let module: WebAssembly.Module;
  try {
    module = await WebAssembly.compile(opts.wasm as Uint8Array<ArrayBuffer>);
    policy = await loadPolicy(module, undefined, host.builtins);
    host.attach({ exports: (policy.wasmInstance as WebAssembly.Instance).exports, memory: policy.mem });
  } catch (err) {
    throw new PolicyLoadError(`policy.wasm does not load: ${loadFailure(err)}`);
  }
  const entrypoints = policy.entrypoints as Record<string, number>;
  if (!Object.prototype.hasOwnProperty.call(entrypoints, opts.entrypoint)) {
    throw new PolicyLoadError(`policy.wasm has no entrypoint "${opts.entrypoint}" (has: ${Object.keys(entrypoints).join(", ")})`);
  }
  // Modules from this compiler say which parts of the input each entrypoint reads; others get it whole.
  const tree = readInputPaths(module)?.entrypoints[opts.entrypoint];
  const projection = tree === undefined ? null : jsonProjection(tree);
  if (opts.data !== undefined) policy.setData(opts.data);
  const version = policyVersion(opts.wasm, opts.data);
  const entrypoint = entrypoints[opts.entrypoint] as number;
  const budget = opts.budget === undefined ? DEFAULT_POLICY_BUDGET : checkPolicyBudget(opts.budget, "loadOpaWasmEngine");
  const exports = (policy.wasmInstance as WebAssembly.Instance).exports;
  const fuel = moduleFuel(exports);
  const strictSwitch = moduleStrictErrors(exports);
  const deadline = opts.deadlineMs === undefined ? DEFAULT_POLICY_DEADLINE_MS : checkPolicyDeadline(opts.deadlineMs, "loadOpaWasmEngine");
  const strict = opts.strictBuiltinErrors === true;
  if (strict && strictSwitch === null) throw new PolicyLoadError(NO_STRICT_SWITCH);
  let limited: { budget: number; deadlineMs: number } | null = null;
  const decide = (input: PolicyInput, options?: EvaluateOptions): PolicyDecision => {
    const strictNow = options?.strictBuiltinErrors ?? strict;
    // Fail closed: a module that cannot report its builtin errors cannot be evaluated strictly.
    if (strictNow && strictSwitch === null) return deny("policy_evaluation_error", NO_STRICT_SWITCH);
    try {
      const stepBudget = options?.budget ?? budget;
      const deadlineMs = options?.deadlineMs ?? deadline;
      fuel?.set(stepBudget);
      if (limited?.budget !== stepBudget || limited.deadlineMs !== deadlineMs) {
        host.limit({ budget: stepBudget, deadlineMs, fuel });
        limited = { budget: stepBudget, deadlineMs };
      }
      host.strictErrors(strictNow);
      strictSwitch?.set(strictNow);
      host.startEvaluation();
      const results: unknown = policy.evaluate(projection === null ? input : encodedInput(projection, input), entrypoint);
      // One result for a defined rule; an empty set means the decision is undefined.
      if (!Array.isArray(results) || results.length !== 1) return deny("policy_undefined");
      return toDecision((results[0] as { result?: unknown }).result);
    } catch (err) {
      if (fuel?.exceeded(err) === true || isHostBudgetExceeded(err)) return deny(BUDGET_EXCEEDED);
      return deny("policy_evaluation_error", evaluationErrorText(err));
    }
  };
  return {
    version,
    code_version: policyCodeVersion(opts.wasm),
    data_version: policyDataVersion(opts.data),
    decide,
    evaluate: async (input, options) => decide(input, options),
  };
}

/** The projected input as UTF-8 JSON bytes, which the SDK copies into the module as they are; an input that is not JSON goes to the SDK as it is. */
function encodedInput(projection: JsonProjection, input: PolicyInput): ArrayBuffer | PolicyInput {
  return projection(input) ?? input;
}

/** The SDK throws plain `{ message }` objects for a builtin the host lacks; a custom one gets a hint. */
function loadFailure(err: unknown): string {
  const message = typeof err === "object" && err !== null && typeof (err as { message?: unknown }).message === "string" ? (err as { message: string }).message : String(err);
  const missing = /not implemented: built-in function \d+: (?:toolgate\/(?:strict\/)?)?(\S+)/.exec(message)?.[1];
  if (missing === undefined || BUILTINS.has(missing)) return message;
  return `${message} (a custom builtin: pass the policy's custom builtins as the engine's \`builtins\` option)`;
}

/** Where a policy's files are on disk: the module, an optional data document, the entrypoint. */
export interface PolicyFilePaths {
  readonly wasm: string;
  readonly data?: string;
  readonly entrypoint: string;
  readonly builtins?: CustomBuiltins;
}

/**
 * Reads policy.wasm (and an optional data.json) into engine options, for either engine.
 * A file that cannot be read, or data that is not a JSON object, is a PolicyLoadError naming the file.
 */
export async function readPolicyFiles(paths: PolicyFilePaths): Promise<OpaWasmEngineOptions> {
  const read = async (file: string): Promise<Buffer> => {
    try {
      return await readFile(file);
    } catch (err) {
      throw new PolicyLoadError(`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
  };
  const wasm = new Uint8Array(await read(paths.wasm));
  let data: JsonObject | undefined;
  if (paths.data !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse((await read(paths.data)).toString("utf8"));
    } catch (err) {
      if (err instanceof PolicyLoadError) throw err;
      throw new PolicyLoadError(`${paths.data}: not JSON (${err instanceof Error ? err.message : String(err)}); fix the data file`);
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new PolicyLoadError(`${paths.data}: the data document must be a JSON object`);
    }
    data = parsed as JsonObject;
  }
  return {
    wasm,
    entrypoint: paths.entrypoint,
    ...(data === undefined ? {} : { data }),
    ...(paths.builtins === undefined ? {} : { builtins: paths.builtins }),
  };
}

/** Reads policy.wasm (and an optional data.json) from disk and loads the SDK engine. */
export async function loadOpaWasmEngineFromFiles(paths: PolicyFilePaths): Promise<PolicyEngine> {
  return loadOpaWasmEngine(await readPolicyFiles(paths));
}
