/**
 * The policy the worker processes run: the shipped policies/authz.rego compiled by
 * the project's compiler ONCE in the parent (compileShippedPolicyWasm), written to a
 * file, and loaded by every worker through the opa-wasm SDK, so all workers share
 * one policy version exactly as a real deployment would.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";
import { compileShippedPolicyWasm, ENTRYPOINT, shippedData } from "../runtime/harness.js";

export const policyWasmEnvVar = "TG_POLICY_WASM";

/** The checked-in build output, when `toolgate build` has produced it. */
const builtPolicy = fileURLToPath(new URL("../../generated/policy.wasm", import.meta.url));

/**
 * Path of the shipped policy's .wasm for workers to load: the checked-in build
 * output if present (CI proves it current), otherwise compiled now.
 */
export async function writeShippedPolicy(): Promise<string> {
  if (existsSync(builtPolicy)) return builtPolicy;
  const path = join(mkdtempSync(join(tmpdir(), "toolgate-policy-")), "policy.wasm");
  writeFileSync(path, await compileShippedPolicyWasm());
  return path;
}

export function loadPolicyFile(path: string): Promise<PolicyEngine> {
  return loadOpaWasmEngine({ wasm: readFileSync(path), entrypoint: ENTRYPOINT, data: shippedData() });
}
