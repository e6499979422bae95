/**
 * PolicyEngine over a compiled policy.wasm, evaluated by the unmodified
 * @open-policy-agent/opa-wasm SDK. The version is a hash of the wasm bytes and the
 * canonical data, so an approval given under one policy never carries over to another.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import canonicalize from "canonicalize";
import type { JsonObject } from "../manifest.js";
import { deny, toDecision } from "./engine.js";
import { createHostBuiltins } from "./host-builtins/index.js";
import type { PolicyDecision, PolicyEngine, PolicyInput } from "./engine.js";

export interface OpaWasmEngineOptions {
  readonly wasm: Uint8Array;
  /** Entrypoint as a rule path with slashes, e.g. "toolgate/authz/decision". */
  readonly entrypoint: string;
  /** Loaded with setData; `data.toolgate.config` holds the shipped policy's limits and roles. */
  readonly data?: JsonObject;
}

export class PolicyLoadError extends Error {
  override name = "PolicyLoadError";
}
export const isPolicyLoadError = (e: unknown): e is PolicyLoadError =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "PolicyLoadError";

export function policyVersion(wasm: Uint8Array, data: JsonObject | undefined): string {
  const h = createHash("sha256").update(wasm);
  h.update("\0");
  h.update(canonicalize(data ?? {}) ?? "{}");
  return `sha256:${h.digest("hex").slice(0, 32)}`;
}

export async function loadOpaWasmEngine(opts: OpaWasmEngineOptions): Promise<PolicyEngine> {
  let policy: Awaited<ReturnType<typeof loadPolicy>>;
  // Builtins the compiler delegates to the host (regex, glob, time, ...) are answered in JavaScript;
  // this set reads the clock once per evaluation and locates strict builtin errors.
  const host = createHostBuiltins();
  try {
    policy = await loadPolicy(opts.wasm, undefined, host.builtins);
    host.attach({ exports: (policy.wasmInstance as WebAssembly.Instance).exports, memory: policy.mem });
  } catch (err) {
    throw new PolicyLoadError(`policy.wasm does not load: ${String(err)}`);
  }
  const entrypoints = policy.entrypoints as Record<string, number>;
  if (!Object.prototype.hasOwnProperty.call(entrypoints, opts.entrypoint)) {
    throw new PolicyLoadError(`policy.wasm has no entrypoint "${opts.entrypoint}" (has: ${Object.keys(entrypoints).join(", ")})`);
  }
  if (opts.data !== undefined) policy.setData(opts.data);
  const version = policyVersion(opts.wasm, opts.data);
  const entrypoint = entrypoints[opts.entrypoint] as number;
  return {
    version,
    async evaluate(input: PolicyInput): Promise<PolicyDecision> {
      try {
        host.startEvaluation();
        const results: unknown = policy.evaluate(input, entrypoint);
        // One result for a defined rule; an empty set means the decision is undefined.
        if (!Array.isArray(results) || results.length !== 1) return deny("policy_undefined");
        return toDecision((results[0] as { result?: unknown }).result);
      } catch {
        return deny("policy_evaluation_error");
      }
    },
  };
}

/** Reads policy.wasm (and an optional data.json) from disk. */
export async function loadOpaWasmEngineFromFiles(paths: {
  readonly wasm: string;
  readonly data?: string;
  readonly entrypoint: string;
}): Promise<PolicyEngine> {
  const wasm = new Uint8Array(await readFile(paths.wasm));
  const data = paths.data === undefined ? undefined : (JSON.parse(await readFile(paths.data, "utf8")) as JsonObject);
  return loadOpaWasmEngine(data === undefined ? { wasm, entrypoint: paths.entrypoint } : { wasm, entrypoint: paths.entrypoint, data });
}
