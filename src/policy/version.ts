/**
 * Policy versions. The code version hashes the compiled module alone, the data version the
 * canonical data alone; `policyVersion` (both together) identifies the exact policy in force.
 * They are kept apart so the policy itself can decide which kind of change voids an approval.
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { JsonObject } from "../manifest.js";

const short = (h: ReturnType<typeof createHash>): string => `sha256:${h.digest("hex").slice(0, 32)}`;

export function policyCodeVersion(wasm: Uint8Array): string {
  return short(createHash("sha256").update(wasm));
}

export function policyDataVersion(data: JsonObject | undefined): string {
  return short(createHash("sha256").update(canonicalize(data ?? {}) ?? "{}"));
}

export function policyVersion(wasm: Uint8Array, data: JsonObject | undefined): string {
  const h = createHash("sha256").update(wasm);
  h.update("\0");
  h.update(canonicalize(data ?? {}) ?? "{}");
  return short(h);
}

export interface PolicyVersions {
  readonly version: string;
  readonly code_version: string;
  readonly data_version: string;
}

/** An engine that does not tell its code and data versions apart counts its whole version as code. */
export function versionsOf(engine: { readonly version: string; readonly code_version?: string; readonly data_version?: string }): PolicyVersions {
  return { version: engine.version, code_version: engine.code_version ?? engine.version, data_version: engine.data_version ?? "" };
}
