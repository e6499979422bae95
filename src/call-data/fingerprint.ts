/**
 * The idempotency fingerprint: SHA-256 (hex) of the RFC 8785 canonical JSON of
 * { tenant, tool, args } where args keeps only the tool's declared fingerprint
 * fields (all arguments when none are declared). Tenant is part of it so equal
 * calls of two tenants never share an identity.
 */
import { hash } from "node:crypto";
import type { JsonObject } from "../manifest.js";
import { canonicalJson, canonicalMembers } from "./canonical-json.js";

export function pickFields(args: JsonObject, fields: readonly string[]): JsonObject {
  if (fields.length === 0) return args;
  const picked: JsonObject = {};
  for (const f of fields) {
    if (!Object.prototype.hasOwnProperty.call(args, f)) continue;
    const v = args[f];
    // An own "__proto__" member stays a member (assigning it would set the prototype instead).
    if (v !== undefined) Object.defineProperty(picked, f, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return picked;
}

/** SHA-256 (hex) of the canonical JSON of { tenant, tool, args } ("args" < "tenant" < "tool": keys in RFC 8785 order). */
function hashCall(tenant: string, tool: string, args: JsonObject): string {
  return hashText(tenant, tool, canonicalJson(args));
}

function hashText(tenant: string, tool: string, argsJson: string): string {
  return hash("sha256", `{"args":${argsJson},"tenant":${canonicalJson(tenant)},"tool":${canonicalJson(tool)}}`, "hex");
}

export function fingerprint(tenant: string, tool: string, args: JsonObject, fields: readonly string[]): string {
  return hashCall(tenant, tool, pickFields(args, fields));
}

/**
 * What an approval binds: SHA-256 (hex) of the RFC 8785 JSON of { tenant, tool, args } with
 * the complete arguments, so any difference in any argument is a different approval.
 */
export function argsHash(tenant: string, tool: string, args: JsonObject): string {
  return hashCall(tenant, tool, args);
}

/**
 * A call's fingerprint and argument hash together, equal to `fingerprint(...)` and
 * `argsHash(...)`: the arguments are canonicalised once, and when every argument present is a
 * fingerprint field (or none are declared) the two hash the same text, hashed once.
 */
export function callHashes(tenant: string, tool: string, args: JsonObject, fields: readonly string[]): { readonly fingerprint: string; readonly args_hash: string } {
  const members = canonicalMembers(args);
  let all = "{";
  let picked = "{";
  let every = true;
  for (let i = 0; i < members.length; i++) {
    const m = members[i]!;
    all += (i > 0 ? "," : "") + m.text;
    if (fields.length === 0 || fields.includes(m.key)) picked += (picked.length > 1 ? "," : "") + m.text;
    else every = false;
  }
  const argsHash = hashText(tenant, tool, all + "}");
  return { fingerprint: every ? argsHash : hashText(tenant, tool, picked + "}"), args_hash: argsHash };
}

/**
 * What an operation record carries as its fingerprint: the call's fingerprint bound to the user
 * who made it (the fingerprint already binds the tenant). The same operation id sent by another
 * user of the tenant is an idempotency conflict, so a stored outcome is replayed only to the
 * principal whose call recorded it.
 */
export function operationFingerprint(callFingerprint: string, user: string): string {
  return hash("sha256", `["${callFingerprint}",${canonicalJson(user)}]`, "hex");
}
