/**
 * The runner's only door to the compiler and the SDK. It calls the project's
 * public compile API and loads the result in the unmodified opa-wasm SDK.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { createHostBuiltins } from "../../src/policy/host-builtins/index.js";
import type { Diagnostic } from "../../codegen/diagnostics.js";
import { formatDiagnostic } from "../../codegen/diagnostics.js";

/** What the runner relies on from `codegen/compiler` (see its README). */
interface CompileApi {
  compilePolicy(options: {
    modules: SourceModule[];
    entrypoints: string[];
    queries?: { name: string; body: string }[];
    strictBuiltinErrors?: boolean;
    optimize?: boolean;
  }): { wasm?: Uint8Array | null; errors: readonly Diagnostic[] };
  /** Loads binaryen, which `optimize: true` needs. */
  loadOptimizer?(): Promise<void>;
}

// Loaded lazily so that a compiler that is missing or fails to load shows up as
// compile failures in the report instead of crashing the runner.
let compiler: Promise<CompileApi | string> | undefined;
export function loadCompiler(): Promise<CompileApi | string> {
  compiler ??= (import("../../codegen/compiler/index.js") as Promise<CompileApi>).then(
    (m) => (typeof m.compilePolicy === "function" ? m : "codegen/compiler exports no compilePolicy"),
    (err: unknown) => `cannot load codegen/compiler: ${errorText(err)}`,
  );
  return compiler;
}

export interface SourceModule {
  readonly file: string;
  readonly source: string;
}

export type Compiled =
  | { readonly ok: true; readonly wasm: Uint8Array }
  | { readonly ok: false; readonly message: string };

/** Compiles modules plus one named query; compile diagnostics come back as one message. */
export async function compileWithQuery(
  modules: readonly SourceModule[],
  queryName: string,
  queryBody: string,
  strictBuiltinErrors: boolean,
  optimize: boolean,
): Promise<Compiled> {
  const api = await loadCompiler();
  if (typeof api === "string") return { ok: false, message: api };
  let out: ReturnType<CompileApi["compilePolicy"]>;
  try {
    if (optimize) await api.loadOptimizer?.();
    out = api.compilePolicy({
      modules: [...modules],
      entrypoints: [],
      queries: [{ name: queryName, body: queryBody }],
      strictBuiltinErrors,
      optimize,
    });
  } catch (err) {
    return { ok: false, message: `compiler crashed: ${errorText(err)}` };
  }
  if (out.errors.length > 0 || out.wasm === undefined || out.wasm === null) {
    const text = out.errors.map(formatDiagnostic).join("\n");
    return { ok: false, message: text === "" ? "compiler returned no wasm" : text };
  }
  return { ok: true, wasm: out.wasm };
}

export type Evaluated =
  | { readonly ok: true; readonly resultSet: unknown }
  | { readonly ok: false; readonly message: string };

/**
 * Loads, sets data, evaluates. Input goes in as JSON text in an ArrayBuffer (an SDK
 * API): a falsy value such as `false` passed as an object would reach the policy as
 * "no input"; `undefined` means no input at all.
 */
export async function evaluateWasm(
  wasm: Uint8Array,
  entrypoint: string,
  data: unknown,
  inputJson: string | undefined,
): Promise<Evaluated> {
  try {
    // toolgate's host builtins, as the product loads them (time.now_ns fixed per evaluation).
    const host = createHostBuiltins();
    const policy = await loadPolicy(wasm, undefined, host.builtins);
    // Strict host-builtin errors then carry the call's file:row:col, as OPA's do.
    host.attach({ exports: (policy.wasmInstance as WebAssembly.Instance).exports, memory: policy.mem });
    policy.setData(data ?? {});
    const input = inputJson === undefined ? undefined : new TextEncoder().encode(inputJson).buffer;
    host.startEvaluation();
    return { ok: true, resultSet: policy.evaluate(input, entrypoint) };
  } catch (err) {
    return { ok: false, message: errorText(err) };
  }
}

/** The SDK throws strings (opa_abort), plain `{ message }` objects and Errors. */
export function errorText(err: unknown): string {
  if (typeof err === "string") return err;
  if (err instanceof Error) return err.message;
  if (typeof err === "object" && err !== null && "message" in err) return String(err.message);
  return String(err);
}
