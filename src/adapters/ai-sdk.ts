/**
 * toolgate/ai-sdk: the gated tools as a Vercel AI SDK tool set. Input schemas come from
 * the manifest; `needsApproval` is answered by the gate (a preflight that creates the
 * toolgate approval), and the SDK's approval responses are derived from toolgate's
 * decision (`approvalResponses`), so only an authenticated approver approves.
 * Every execution goes through `runtime.call` and returns the envelope to the model.
 */
import { jsonSchema, tool } from "ai";
import type { ModelMessage, Tool, ToolApprovalResponse, ToolSet } from "ai";
import type { Runtime } from "../runtime/runtime.js";
import { advertisedInputSchema } from "./gate-arguments.js";
import { gatedCalls } from "./gated-calls.js";
import type { GatedCalls, GatedCallsOptions } from "./gated-calls.js";

export interface AiSdkTools {
  /** Pass to generateText / streamText as `tools`. */
  readonly tools: ToolSet;
  readonly gate: GatedCalls;
  /**
   * For the approval requests in an SDK answer (its `content`), the responses toolgate's
   * decisions give: approved or rejected once decided, left out while still pending.
   * Send them back as a `tool` message to resume.
   */
  approvalResponses(content: readonly unknown[]): Promise<ToolApprovalResponse[]>;
  /** Convenience: `approvalResponses` as the tool message to append, or null when none is decided yet. */
  approvalMessage(content: readonly unknown[]): Promise<ModelMessage | null>;
}

interface ApprovalRequestPart {
  readonly type: "tool-approval-request";
  readonly approvalId: string;
  readonly toolCall: { readonly toolCallId: string };
}

const isApprovalRequest = (p: unknown): p is ApprovalRequestPart =>
  typeof p === "object" && p !== null && (p as { type?: unknown }).type === "tool-approval-request";

export async function createAiSdkTools(runtime: Runtime, options: GatedCallsOptions): Promise<AiSdkTools> {
  const gate = gatedCalls(runtime, options);
  const tools: Record<string, Tool> = {};
  for (const entry of await gate.tools()) {
    tools[entry.name] = tool({
      description: entry.description,
      inputSchema: jsonSchema<unknown>(advertisedInputSchema(entry) as Parameters<typeof jsonSchema>[0]),
      needsApproval: (input, { toolCallId }) => gate.needsApproval(entry, input, toolCallId),
      execute: (input, { toolCallId }) => gate.call(entry, input, toolCallId),
    });
  }
  const approvalResponses = async (content: readonly unknown[]): Promise<ToolApprovalResponse[]> => {
    const out: ToolApprovalResponse[] = [];
    for (const part of content.filter(isApprovalRequest)) {
      const standing = await gate.standing(part.toolCall.toolCallId);
      if (standing === "approved") out.push({ type: "tool-approval-response", approvalId: part.approvalId, approved: true });
      else if (standing === "rejected") out.push({ type: "tool-approval-response", approvalId: part.approvalId, approved: false, reason: "rejected by the approver in toolgate" });
    }
    return out;
  };
  return {
    tools,
    gate,
    approvalResponses,
    async approvalMessage(content) {
      const responses = await approvalResponses(content);
      return responses.length === 0 ? null : { role: "tool", content: responses };
    },
  };
}
