/** The gate the eval tests run against: the shipped manifest, its validators and tool schemas, the built policy. */
import { manifest, validators } from "../../generated/index.js";
import { loadToolsFile } from "../../codegen/toolsyaml/index.js";
import type { JsonObject } from "../../src/manifest.js";
import { loadOpaWasmEngineFromFiles } from "../../src/policy/index.js";
import type { RunOptions } from "../../src/evals/index.js";

export function shippedInputSchemas(): Record<string, JsonObject> {
  const { loaded, errors } = loadToolsFile("tools.yaml");
  if (loaded === null) throw new Error(`tools.yaml does not load: ${JSON.stringify(errors)}`);
  return Object.fromEntries(Object.entries(loaded.raw.tools).map(([name, t]) => [name, t.input as JsonObject]));
}

export async function shippedRunOptions(): Promise<RunOptions> {
  const policy = await loadOpaWasmEngineFromFiles({ wasm: "generated/policy.wasm", data: "policies/data.json", entrypoint: manifest.policy.entrypoint });
  return { manifest, validators, inputSchemas: shippedInputSchemas(), policy };
}
