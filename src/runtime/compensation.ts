/**
 * Compensation the agent can use: when an effect landed but its postcondition failed (stale or
 * contradicting observed state), the envelope names the resource, the observed state and the
 * compensating call (tool, arguments from tools.yaml `compensation_args:`, and a deterministic
 * operation id, so a repeated compensate is the same operation and replays).
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { JsonObject, JsonValue, ToolManifestEntry } from "../manifest.js";

export interface CompensationCall {
  readonly tool: string;
  readonly args: JsonObject;
  readonly operation_id: string;
}

/** The compensating operation's id: derived from tenant and the original operation id only. */
export function compensationOperationId(tenant: string, operationId: string): string {
  const text = canonicalize({ compensates: operationId, tenant }) ?? "";
  return `cmp_${createHash("sha256").update(text).digest("hex").slice(0, 40)}`;
}

/** The compensating call for what landed, or null when the tool declares none or a mapped value is missing. */
export function compensationFor(
  tool: ToolManifestEntry,
  tenant: string,
  operationId: string | null,
  args: JsonObject,
  resourceId: string | undefined,
  observed: JsonObject | undefined,
): CompensationCall | null {
  const mapping = tool.compensation_args;
  if (tool.compensation === null || mapping === undefined || operationId === null) return null;
  const out: JsonObject = {};
  for (const [key, source] of Object.entries(mapping)) {
    let v: JsonValue | undefined;
    if ("from" in source) v = resourceId;
    else if ("arg" in source) v = args[source.arg];
    else if ("observed" in source) v = observed?.[source.observed];
    else v = source.equals;
    if (v === undefined) return null;
    out[key] = v;
  }
  return { tool: tool.compensation, args: out, operation_id: compensationOperationId(tenant, operationId) };
}
