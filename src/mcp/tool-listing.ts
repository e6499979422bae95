/**
 * A manifest entry as an MCP tool: advertised input schema (with the gate's
 * operation_id / approval_id), the envelope as output schema, and annotations that
 * are true because the gate enforces them.
 */
import type { Tool, ToolAnnotations } from "@modelcontextprotocol/server";
import type { ToolManifestEntry } from "../manifest.js";
import { advertisedInputSchema } from "../adapters/gate-arguments.js";
import { resultJsonSchema } from "../adapters/result-schema.js";

/** read -> readOnly; reversible_write -> not destructive; destructive -> destructive; external_write -> open world; a fingerprint -> idempotent. */
export function toolAnnotations(tool: ToolManifestEntry): ToolAnnotations {
  const a: ToolAnnotations = {};
  switch (tool.effect) {
    case "read":
      a.readOnlyHint = true;
      break;
    case "reversible_write":
      a.readOnlyHint = false;
      a.destructiveHint = false;
      break;
    case "external_write":
      a.readOnlyHint = false;
      a.openWorldHint = true;
      break;
    case "destructive":
      a.readOnlyHint = false;
      a.destructiveHint = true;
      break;
  }
  if (tool.fingerprint.length > 0) a.idempotentHint = true;
  return a;
}

export function toMcpTool(tool: ToolManifestEntry): Tool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: advertisedInputSchema(tool) as Tool["inputSchema"],
    outputSchema: resultJsonSchema(tool) as Tool["outputSchema"],
    annotations: toolAnnotations(tool),
  };
}
