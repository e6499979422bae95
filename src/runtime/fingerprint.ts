/**
 * The idempotency fingerprint: SHA-256 (hex) of the RFC 8785 canonical JSON of
 * { tenant, tool, args } where args keeps only the tool's declared fingerprint
 * fields (all arguments when none are declared). Tenant is part of it so equal
 * calls of two tenants never share an identity.
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { JsonObject } from "../manifest.js";

export function pickFields(args: JsonObject, fields: readonly string[]): JsonObject {
  if (fields.length === 0) return args;
  const picked: JsonObject = {};
  for (const f of fields) {
    const v = args[f];
    if (v !== undefined) picked[f] = v;
  }
  return picked;
}

export function fingerprint(tenant: string, tool: string, args: JsonObject, fields: readonly string[]): string {
  const text = canonicalize({ tenant, tool, args: pickFields(args, fields) });
  if (text === undefined) throw new TypeError("fingerprint input is not JSON");
  return createHash("sha256").update(text).digest("hex");
}

/**
 * What an approval binds: SHA-256 (hex) of the RFC 8785 JSON of { tenant, tool, args } with
 * the complete arguments, so any difference in any argument is a different approval.
 */
export function argsHash(tenant: string, tool: string, args: JsonObject): string {
  const text = canonicalize({ tenant, tool, args });
  if (text === undefined) throw new TypeError("arguments are not JSON");
  return createHash("sha256").update(text).digest("hex");
}
