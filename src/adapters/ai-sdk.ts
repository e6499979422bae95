/**
 * toolgate/ai-sdk: the gated tools as a Vercel AI SDK (ai >= 7) tool set. Input schemas come
 * from the manifest; `needsApproval` is answered by the gate (a preflight that creates the
 * toolgate approval). The SDK's tool-approval responses are made by the adapter only:
 * `respond` records an authenticated approver's decision as the toolgate approval (roles,
 * four-eyes, self-approval per tool) and returns the matching response; `approvalResponses`
 * turns decisions made elsewhere (the inbox, the CLI) into responses. Every execution goes
 * through `runtime.call` with the call's toolgate approval, so a response the SDK accepts but
 * toolgate never gave runs nothing.
 */
import { jsonSchema, tool } from "ai";
import type { ModelMessage, Tool, ToolApprovalResponse, ToolSet } from "ai";
import type { ApproverContext } from "../approvals/approver.js";
import type { Runtime } from "../runtime/runtime.js";
import type { LinkedApproval } from "./approval-link.js";
import { advertisedInputSchema } from "./gate-arguments.js";
import { gatedCalls } from "./gated-calls.js";
import type { GatedCalls, GatedCallsOptions, HumanDecision, RecordedDecision } from "./gated-calls.js";

/** One `tool-approval-request` part of an SDK answer (`result.content`), as the adapter reads it. */
export interface AiSdkApprovalRequest {
  readonly type: "tool-approval-request";
  readonly approvalId: string;
  readonly toolCall: { readonly toolCallId: string; readonly toolName: string; readonly input: unknown };
}

export type AiSdkResponseOutcome =
  | { readonly ok: true; readonly response: ToolApprovalResponse; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly why: Exclude<RecordedDecision, { ok: true }>["why"] | "unknown_tool"; readonly message: string };

export interface AiSdkTools {
  /** Pass to generateText / streamText as `tools`. */
  readonly tools: ToolSet;
  readonly gate: GatedCalls;
  /** The approval requests in an SDK answer's `content` (or any list of parts). */
  approvalRequests(content: readonly unknown[]): AiSdkApprovalRequest[];
  /** The toolgate approval of a request and how it stands (for the host's approval UI). */
  approvalOf(request: AiSdkApprovalRequest): Promise<LinkedApproval>;
  /**
   * Records `approver`'s decision as the request's toolgate approval and returns the SDK
   * response to send back (in a `tool` message). An edit is approved in the SDK and runs the
   * edited call. Refused (not ok) when toolgate's rules do not admit this approver or decision.
   */
  respond(request: AiSdkApprovalRequest, decision: HumanDecision, approver: ApproverContext): Promise<AiSdkResponseOutcome>;
  /**
   * The responses toolgate's decisions give for the requests in `content`: approved (also
   * edited), rejected or expired (denied, with the reason the model reads); still pending
   * ones are left out.
   */
  approvalResponses(content: readonly unknown[]): Promise<ToolApprovalResponse[]>;
  /** `approvalResponses` as the tool message to append, or null when none is decided yet. */
  approvalMessage(content: readonly unknown[]): Promise<ModelMessage | null>;
}

const isApprovalRequest = (p: unknown): p is AiSdkApprovalRequest => {
  if (typeof p !== "object" || p === null) return false;
  const part = p as { type?: unknown; approvalId?: unknown; toolCall?: { toolCallId?: unknown; toolName?: unknown } };
  return part.type === "tool-approval-request" && typeof part.approvalId === "string" && typeof part.toolCall?.toolCallId === "string" && typeof part.toolCall.toolName === "string";
};

const responseFor = (approvalId: string, link: LinkedApproval): ToolApprovalResponse | null => {
  switch (link.status) {
    case "approved":
    case "edited":
      return { type: "tool-approval-response", approvalId, approved: true };
    case "rejected":
    case "expired":
      return { type: "tool-approval-response", approvalId, approved: false, reason: link.message };
    case "none":
      return { type: "tool-approval-response", approvalId, approved: false, reason: "toolgate has no approval for this call in this run; nothing ran" };
    case "pending":
      return null;
  }
};

export async function createAiSdkTools(runtime: Runtime, options: GatedCallsOptions): Promise<AiSdkTools> {
  const gate = gatedCalls(runtime, options);
  const tools: Record<string, Tool> = {};
  for (const entry of await gate.tools()) {
    tools[entry.name] = tool({
      description: entry.description,
      inputSchema: jsonSchema<unknown>(advertisedInputSchema(entry) as Parameters<typeof jsonSchema>[0]),
      needsApproval: (input) => gate.needsApproval(entry, input),
      execute: (input, { toolCallId }) => gate.call(entry, input, toolCallId),
    });
  }
  const approvalOf = async (request: AiSdkApprovalRequest): Promise<LinkedApproval> => {
    const entry = gate.toolNamed(request.toolCall.toolName);
    return entry === undefined ? { status: "none" } : gate.approvalOf(entry, request.toolCall.input);
  };
  const approvalResponses = async (content: readonly unknown[]): Promise<ToolApprovalResponse[]> => {
    const out: ToolApprovalResponse[] = [];
    for (const request of content.filter(isApprovalRequest)) {
      const response = responseFor(request.approvalId, await approvalOf(request));
      if (response !== null) out.push(response);
    }
    return out;
  };
  return {
    tools,
    gate,
    approvalRequests: (content) => content.filter(isApprovalRequest),
    approvalOf,
    async respond(request, decision, approver) {
      const entry = gate.toolNamed(request.toolCall.toolName);
      if (entry === undefined) return { ok: false, why: "unknown_tool", message: `${request.toolCall.toolName} is not a tool of this gate` };
      const out = await gate.decide(entry, request.toolCall.input, decision, approver);
      if (!out.ok) return out;
      const response = responseFor(request.approvalId, await gate.approvalOf(entry, request.toolCall.input));
      // Recorded just now, so it is decided; a concurrent revoke shows as a denial.
      return { ok: true, response: response ?? { type: "tool-approval-response", approvalId: request.approvalId, approved: false, reason: "undecided" }, warnings: out.warnings };
    },
    approvalResponses,
    async approvalMessage(content) {
      const responses = await approvalResponses(content);
      return responses.length === 0 ? null : { role: "tool", content: responses };
    },
  };
}
