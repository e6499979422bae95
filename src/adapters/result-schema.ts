/**
 * The JSON Schema of a gated tool's answer: the envelope, with the success value typed
 * by the tool's output schema. The tool's `$defs` move to the root so its `#/$defs/...`
 * references still resolve once the schema is nested under `value`.
 */
import type { JsonObject, JsonValue, ToolManifestEntry } from "../manifest.js";
import { envelopeJsonSchema } from "../runtime/envelope-schema.js";

export function resultJsonSchema(tool: ToolManifestEntry): JsonObject {
  const { $schema: _schema, $id: _id, $defs, definitions, ...value } = structuredClone(tool.output_schema);
  const branches = structuredClone(envelopeJsonSchema.oneOf) as unknown as JsonObject[];
  const success = branches[0] as { properties: Record<string, JsonValue> };
  success.properties["value"] = value;
  const terminal = branches[2] as { properties: Record<string, JsonValue> };
  // Added by the MCP server to approval_required when an approvals inbox is configured.
  terminal.properties["approval_url"] = { type: "string" };
  return {
    type: "object",
    oneOf: branches,
    ...($defs === undefined ? {} : { $defs }),
    ...(definitions === undefined ? {} : { definitions }),
  };
}
