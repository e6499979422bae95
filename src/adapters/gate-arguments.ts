/**
 * The arguments an agent sees for a gated tool: the tool's own input schema plus the
 * gate's `operation_id` (writes: required, never minted for the model) and
 * `approval_id` (tools that can need approval), and the split back into a CallRequest.
 * Shared by the MCP server and the framework adapters so every door advertises the same tool.
 */
import type { JsonObject, JsonValue, ToolManifestEntry } from "../manifest.js";
import type { CallRequest } from "../runtime/types.js";

export const OPERATION_ID_DESCRIPTION =
  "Identifies this operation: pick a new unique value for a new call, and reuse the same value when retrying this call (a retry with the same value never repeats the effect).";
export const APPROVAL_ID_DESCRIPTION =
  "The approval_id from an approval_required answer, once a human approved it; send it with the same arguments and operation_id.";

export class GateArgumentsError extends Error {
  override name = "GateArgumentsError";
}

/** Whether the tool takes the gate's `operation_id` / `approval_id` arguments. */
export function gateArguments(tool: ToolManifestEntry): { readonly operation_id: boolean; readonly approval_id: boolean } {
  const write = tool.effect !== "read";
  return { operation_id: write, approval_id: write || tool.approval !== null };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The tool's input schema with the gate's arguments added; throws when the tool itself declares one of them. */
export function advertisedInputSchema(tool: ToolManifestEntry): JsonObject {
  const schema = tool.input_schema;
  const properties = isObject(schema["properties"]) ? (schema["properties"] as JsonObject) : {};
  const required = Array.isArray(schema["required"]) ? (schema["required"] as JsonValue[]) : [];
  const extra: Record<string, JsonValue> = {};
  const extraRequired: string[] = [];
  const gate = gateArguments(tool);
  if (gate.operation_id) {
    extra["operation_id"] = { type: "string", minLength: 1, maxLength: 200, description: OPERATION_ID_DESCRIPTION };
    extraRequired.push("operation_id");
  }
  if (gate.approval_id) extra["approval_id"] = { type: "string", minLength: 1, maxLength: 200, description: APPROVAL_ID_DESCRIPTION };
  for (const name of Object.keys(extra)) {
    if (name in properties) {
      throw new GateArgumentsError(`tool ${tool.name} declares an argument named ${name}, which the gate reserves; rename it in tools.yaml`);
    }
  }
  if (Object.keys(extra).length === 0) return structuredClone(schema);
  return { ...structuredClone(schema), type: "object", properties: { ...structuredClone(properties), ...extra }, required: [...required, ...extraRequired] };
}

/** Splits an agent's arguments into the gate's CallRequest; nothing is defaulted, the runtime validates every field. */
export function toCallRequest(tool: ToolManifestEntry, raw: unknown): CallRequest {
  const gate = gateArguments(tool);
  if (!isObject(raw) || (!gate.operation_id && !gate.approval_id)) return { tool: tool.name, args: raw };
  const { operation_id, approval_id, ...args } = raw;
  const picked = { tool: tool.name, args: gate.operation_id ? args : { ...args, ...(operation_id === undefined ? {} : { operation_id }) } };
  // The runtime checks both ids (type, length) and answers invalid_arguments; the casts only carry them there.
  return {
    ...picked,
    ...(gate.operation_id && operation_id !== undefined ? { operation_id: operation_id as string } : {}),
    ...(approval_id !== undefined ? { approval_id: approval_id as string } : {}),
  };
}
