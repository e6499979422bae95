/** The shipped policy (policies/authz.rego and policies/data.json) compiled by the project's own compiler. */
import { readFileSync } from "node:fs";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { formatDiagnostic } from "../../codegen/diagnostics.js";
import type { JsonObject } from "../../src/manifest.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";

export const ENTRYPOINT = "toolgate/authz/decision";

/** Compiles the shipped policies/authz.rego with the project's own Rego -> WebAssembly compiler. */
export async function compileShippedPolicyWasm(): Promise<Uint8Array> {
  const file = "policies/authz.rego";
  const result = compilePolicy({ modules: [{ file, source: readFileSync(file, "utf8") }], entrypoints: [ENTRYPOINT] });
  if (result.wasm === null) throw new Error(`policies/authz.rego does not compile:\n${result.errors.map(formatDiagnostic).join("\n")}`);
  return result.wasm;
}

let shippedWasm: Promise<Uint8Array> | null = null;

/** The real policy, end to end: compiled authz.rego loaded through the opa-wasm SDK (with policies/data.json or `data`). */
export async function loadShippedPolicy(data?: JsonObject): Promise<PolicyEngine> {
  shippedWasm ??= compileShippedPolicyWasm();
  return loadOpaWasmEngine({ wasm: await shippedWasm, entrypoint: ENTRYPOINT, data: data ?? shippedData() });
}

export const shippedData = (): JsonObject => JSON.parse(readFileSync("policies/data.json", "utf8")) as JsonObject;
