/**
 * Natural idempotency keys (tools.yaml `idempotency.key`): the operation id of a call of such a
 * tool is derived from the key's argument values, so every call with the same key (tenant and
 * tool included) is one operation record, claimed atomically like any other: the mapping from
 * key to operation is the record's own primary key, not a second write. Whatever operation_id
 * the model sends is ignored; a different fingerprint under the same key is a conflict.
 */
import type { JsonObject, ToolManifestEntry } from "../manifest.js";
import { fingerprint } from "../call-data/fingerprint.js";

/** Prefix of derived operation ids; refused in a model-sent operation_id, so none can take a key's record. */
export const naturalKeyPrefix = "key~";

/** The derived operation id of a call of a tool with a natural key, or null for other tools. */
export function naturalOperationId(tenant: string, tool: ToolManifestEntry, args: JsonObject): string | null {
  const key = tool.idempotency_key;
  if (key === undefined || key.length === 0) return null;
  // The same hash as a fingerprint over the key fields alone: tenant and tool are part of it.
  return `${naturalKeyPrefix}${tool.name}~${fingerprint(tenant, tool.name, args, key)}`;
}

export const isReservedOperationId = (id: string): boolean => id.startsWith(naturalKeyPrefix);
