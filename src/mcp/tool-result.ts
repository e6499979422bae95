/**
 * An envelope as an MCP tool result: the envelope is the structured content (plus
 * `approval_url` when an inbox link is configured) and its JSON the text; failures set
 * isError so a model branches on `outcome`, `reason` and `retry_after_ms`.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { approvalPageUrl } from "../approvals/link.js";
import type { Envelope } from "../runtime/envelope.js";

export type ApprovalLink = string | ((approvalId: string) => string);

/** A base URL links to `<base>/approvals/<id>`, where the approvals inbox serves one approval. */
export function approvalUrl(link: ApprovalLink, approvalId: string): string {
  return typeof link === "function" ? link(approvalId) : approvalPageUrl(link, approvalId);
}

export function toToolResult(envelope: Envelope, link?: ApprovalLink): CallToolResult {
  const structured: Record<string, unknown> = { ...envelope };
  if (envelope.outcome === "terminal_failure" && envelope.approval_id !== undefined && link !== undefined) {
    structured["approval_url"] = approvalUrl(link, envelope.approval_id);
  }
  const result: CallToolResult = { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
  if (envelope.outcome !== "success") result.isError = true;
  return result;
}
