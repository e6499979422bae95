/**
 * The policy the worker processes run: the shipped policies/authz.rego compiled to
 * WebAssembly ONCE (the checked-in generated/policy.wasm when present, otherwise
 * compiled by the project's compiler in the parent) and loaded by every worker
 * through the opa-wasm SDK, so all workers share one policy version as a real
 * deployment would. Workers import only the loader: the compiler is heavy to load.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../repo.js";
import { manifest } from "../../../generated/index.js";
import type { JsonObject } from "../../../src/manifest.js";
import type { PolicyEngine } from "../../../src/policy/engine.js";
import { loadOpaWasmEngine } from "../../../src/policy/opa-wasm-engine.js";

export const policyWasmEnvVar = "TG_POLICY_WASM";

const repo = (path: string): string => join(repoRoot, path);
/** The checked-in build output, when `toolgate build` has produced it. */
const builtPolicy = repo("generated/policy.wasm");

/** Path of the shipped policy's .wasm for workers to load. */
export async function writeShippedPolicy(): Promise<string> {
  if (existsSync(builtPolicy)) return builtPolicy;
  const { compileShippedPolicyWasm } = await import("../shipped-policy.js");
  const path = join(mkdtempSync(join(tmpdir(), "toolgate-policy-")), "policy.wasm");
  writeFileSync(path, await compileShippedPolicyWasm());
  return path;
}

export function loadPolicyFile(path: string): Promise<PolicyEngine> {
  const data = JSON.parse(readFileSync(repo("policies/data.json"), "utf8")) as JsonObject;
  return loadOpaWasmEngine({ wasm: readFileSync(path), entrypoint: manifest.policy.entrypoint, data });
}
