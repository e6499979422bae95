/**
 * The engine the runtime and the CLI load by default: the fast engine
 * (fast-engine.ts), which decides as the SDK engine (opa-wasm-engine.ts) on every
 * input (a property test compares them on inputs generated from the manifest's
 * schemas). The SDK engine stays available as `loadOpaWasmEngine`.
 */
import type { PolicyEngine } from "./engine.js";
import { loadFastEngine } from "./fast-engine.js";
import type { FastEngineOptions } from "./fast-engine.js";
import { readPolicyFiles } from "./opa-wasm-engine.js";
import type { PolicyFilePaths } from "./opa-wasm-engine.js";

export function loadPolicyEngine(opts: FastEngineOptions): Promise<PolicyEngine> {
  return loadFastEngine(opts);
}

/** Reads policy.wasm (and an optional data.json) from disk and loads the default engine. */
export async function loadPolicyEngineFromFiles(paths: PolicyFilePaths): Promise<PolicyEngine> {
  return loadPolicyEngine(await readPolicyFiles(paths));
}
