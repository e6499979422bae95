/** The gate the eval tests run against: the shipped manifest and validators, the built policy. */
import { manifest, validators } from "../../generated/index.js";
import { loadOpaWasmEngineFromFiles } from "../../src/policy/index.js";
import type { RunOptions } from "../../src/evals/index.js";

export async function shippedRunOptions(): Promise<RunOptions> {
  const policy = await loadOpaWasmEngineFromFiles({ wasm: "generated/policy.wasm", data: "policies/data.json", entrypoint: manifest.policy.entrypoint });
  return { manifest, validators, policy };
}
