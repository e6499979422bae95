/**
 * The engine the runtime and the CLI load by default: the fast engine
 * (fast-engine.ts), which decides as the SDK engine (opa-wasm-engine.ts) on every
 * input (a property test compares them on inputs generated from the manifest's
 * schemas). The SDK engine stays available as `loadOpaWasmEngine`.
 */
import { readFile } from "node:fs/promises";
import type { JsonObject } from "../manifest.js";
import type { CustomBuiltins } from "./builtins/index.js";
import type { PolicyEngine } from "./engine.js";
import { loadFastEngine } from "./fast-engine.js";
import type { FastEngineOptions } from "./fast-engine.js";

export function loadPolicyEngine(opts: FastEngineOptions): Promise<PolicyEngine> {
  return loadFastEngine(opts);
}

/** Reads policy.wasm (and an optional data.json) from disk and loads the default engine. */
export async function loadPolicyEngineFromFiles(paths: {
  readonly wasm: string;
  readonly data?: string;
  readonly entrypoint: string;
  readonly builtins?: CustomBuiltins;
}): Promise<PolicyEngine> {
  const wasm = new Uint8Array(await readFile(paths.wasm));
  const data = paths.data === undefined ? undefined : (JSON.parse(await readFile(paths.data, "utf8")) as JsonObject);
  return loadPolicyEngine({
    wasm,
    entrypoint: paths.entrypoint,
    ...(data === undefined ? {} : { data }),
    ...(paths.builtins === undefined ? {} : { builtins: paths.builtins }),
  });
}
