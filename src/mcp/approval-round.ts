/**
 * Approvals through the protocol (MCP 2026-07-28 `input_required`). A call that needs approval
 * answers `input_required` instead of the terminal envelope when the client declared
 * elicitation: URL mode points at the approval's inbox page, form mode (only where the tools.yaml
 * approval rules let this principal decide) asks approve or reject inline. Both carry a sealed
 * `requestState`. The retry with that state is checked (seal, principal, call, not revoked) and
 * then runs the call with the approval id through `runtime.call`, so the
 * operation's idempotency record decides the one effect. A write sent without an operation id
 * gets one minted by the server (`minted-operation.ts`), which the state carries.
 */
import { acceptedContent, inputRequired, inputResponse } from "@modelcontextprotocol/server";
import type { CallToolResult, InputRequests, InputRequiredResult } from "@modelcontextprotocol/server";
import type { TrustedContext } from "../generated-runtime.js";
import type { ToolManifestEntry } from "../manifest.js";
import type { Envelope } from "../runtime/envelope.js";
import { checkApprover } from "../approvals/approver-checks.js";
import type { Runtime } from "../runtime/runtime.js";
import type { CallRequest } from "../runtime/types.js";
import { storableText } from "../call-data/unstorable-text.js";
import type { ApprovalRoundState, RequestStateSeal } from "./request-state.js";
import { checkBinding, RequestStateError } from "./request-state.js";
import type { ApprovalLink } from "./tool-result.js";
import { approvalUrl } from "./tool-result.js";

/** The elicitation modes the request's client declared (2026-07-28 per-request capabilities). */
export interface ElicitationSupport {
  readonly form: boolean;
  readonly url: boolean;
}

/** The keys of the embedded requests in `inputRequests`. */
export const INBOX_KEY = "approval_page";
export const INLINE_KEY = "approval_decision";

/** The form an inline approver answers: approve or reject, and an optional reason. */
const decisionSchema = {
  type: "object",
  properties: {
    decision: { type: "string", title: "Decision", enum: ["approve", "reject"], description: "approve runs the call as shown; reject refuses it" },
    reason: { type: "string", title: "Reason", maxLength: 500 },
  },
  required: ["decision"],
} as const;

export interface ApprovalRoundDeps {
  readonly runtime: Runtime;
  readonly seal: RequestStateSeal;
  readonly approvalLink?: ApprovalLink;
  readonly now: () => number;
}

/** A call about to be answered `approval_required`: what the round needs to know about it. */
export interface PendingApprovalCall {
  readonly ctx: TrustedContext;
  readonly tool: ToolManifestEntry;
  readonly request: CallRequest;
  readonly argsDigest: string;
  readonly approvalId: string;
  /** When the approval (and so the state) expires, Unix milliseconds. */
  readonly expiresAtMs: number;
}

/** May this principal decide its own approval inline (the same rule the inbox's decide applies)? */
async function mayDecideInline(deps: ApprovalRoundDeps, call: PendingApprovalCall): Promise<boolean> {
  const approval = await deps.runtime.approvals.get(call.approvalId);
  if (approval === null) return false;
  return checkApprover(approval, call.tool.approval, { tenant: call.ctx.tenant, user: call.ctx.user, roles: call.ctx.roles }, "approve") === null;
}

function previewText(call: PendingApprovalCall): string {
  const args = call.request.args as Record<string, unknown>;
  const fields = (call.tool.approval?.preview ?? Object.keys(args)).filter((f) => Object.prototype.hasOwnProperty.call(args, f));
  return fields.map((f) => `${f}: ${JSON.stringify(args[f])}`).join(", ");
}

/**
 * `input_required` for a call answered `approval_required`, or null when the client can take
 * neither mode (no elicitation declared, or URL mode only and no inbox link configured).
 */
export async function approvalInputRequired(deps: ApprovalRoundDeps, call: PendingApprovalCall, support: ElicitationSupport): Promise<InputRequiredResult | null> {
  const requests: InputRequests = {};
  const approvalId = call.approvalId;
  if (support.url && deps.approvalLink !== undefined) {
    requests[INBOX_KEY] = inputRequired.elicitUrl({
      message: `${call.tool.name} needs approval (${previewText(call)}). Open the approvals inbox to decide; the call runs once it is approved.`,
      url: approvalUrl(deps.approvalLink, approvalId),
    });
  }
  if (support.form && (await mayDecideInline(deps, call))) {
    requests[INLINE_KEY] = inputRequired.elicit({
      message: `Approve ${call.tool.name}? ${previewText(call)}`,
      requestedSchema: decisionSchema as never,
    });
  }
  if (Object.keys(requests).length === 0) return null;
  const state: ApprovalRoundState = {
    tenant: call.ctx.tenant,
    user: call.ctx.user,
    tool: call.tool.name,
    args_digest: call.argsDigest,
    operation_id: call.request.operation_id ?? "",
    approval_id: approvalId,
    expires_at_ms: call.expiresAtMs,
  };
  return inputRequired({ inputRequests: requests, requestState: await deps.seal.seal(state) });
}

/** The retry of a call with a `requestState`: verified and bound before anything runs. */
export interface ApprovalRetry {
  readonly ctx: TrustedContext;
  readonly tool: ToolManifestEntry;
  readonly request: CallRequest;
  readonly argsDigest: string;
  readonly wireState: string;
  readonly inputResponses: Record<string, unknown> | undefined;
  readonly support: ElicitationSupport;
}

export type RetryOutcome =
  | { readonly kind: "envelope"; readonly envelope: Envelope }
  | { readonly kind: "input_required"; readonly result: InputRequiredResult };

export async function retryWithState(deps: ApprovalRoundDeps, retry: ApprovalRetry, traceparent: { traceparent: string } | undefined): Promise<RetryOutcome> {
  const state = await deps.seal.open(retry.wireState, deps.now());
  checkBinding(state, retry.ctx, retry.tool.name, retry.argsDigest);
  if (retry.request.operation_id !== undefined && retry.request.operation_id !== state.operation_id) {
    throw new RequestStateError("request_state_other_call", "the state belongs to another operation; retry with exactly the arguments of the call that returned it");
  }
  const approval = await deps.runtime.approvals.get(state.approval_id);
  if (approval === null || approval.tenant !== retry.ctx.tenant) throw new RequestStateError("request_state_forged", "the state names no approval of this tenant");
  // The operation is the state's: the client's own id (the digest bound it) or the one the server minted.
  const request: CallRequest = state.operation_id === "" ? retry.request : { ...retry.request, operation_id: state.operation_id };
  const withApproval: CallRequest = { ...request, approval_id: approval.id };
  if (approval.consumed_by !== null) {
    // Used by another operation: the state has nothing left to run.
    if (approval.consumed_by !== state.operation_id) throw new RequestStateError("request_state_used", `approval ${approval.id} was used by another operation; nothing ran`);
    // The state's own operation already ran (an earlier retry, or the host resumed it on decision):
    // the gate answers its recorded outcome through the operation's idempotency, with no second effect.
    return { kind: "envelope", envelope: await deps.runtime.call(retry.ctx, withApproval, traceparent) };
  }
  if (approval.status === "revoked") throw new RequestStateError("request_state_revoked", `approval ${approval.id} was revoked; nothing ran`);
  if (approval.status === "pending") {
    const inline = inputResponse(retry.inputResponses, INLINE_KEY);
    if (inline.kind === "elicit" && inline.action === "accept") {
      const content = acceptedContent(retry.inputResponses, INLINE_KEY) ?? {};
      const decision = content["decision"];
      if (decision === "approve" || decision === "reject") {
        // 500 code points, as the form's maxLength counts (a UTF-16 cut could split an emoji, which decide refuses); NUL and lone surrogates made storable.
        const reason = typeof content["reason"] === "string" ? { reason: storableText(Array.from(content["reason"]).slice(0, 500).join("")) } : {};
        // A refused inline decision (not permitted, decided meanwhile) leaves the approval as the store has it.
        const out = await deps.runtime.approvals.decide(approval.id, { decision, ...reason }, { tenant: retry.ctx.tenant, user: retry.ctx.user, roles: retry.ctx.roles });
        if (out.ok) return { kind: "envelope", envelope: await deps.runtime.call(retry.ctx, withApproval, traceparent) };
      }
    }
    // Declined or cancelled (either mode): the client stops asking and gets today's envelope.
    const gaveUp = [INLINE_KEY, INBOX_KEY].some((key) => {
      const r = inputResponse(retry.inputResponses, key);
      return r.kind === "elicit" && r.action !== "accept";
    });
    const again = (await deps.runtime.approvals.get(approval.id))?.status ?? "pending";
    if (again === "pending" && !gaveUp) {
      const result = await approvalInputRequired(
        deps,
        { ctx: retry.ctx, tool: retry.tool, request, argsDigest: retry.argsDigest, approvalId: approval.id, expiresAtMs: state.expires_at_ms },
        retry.support,
      );
      if (result !== null) return { kind: "input_required", result };
    }
  }
  // Decided (approved, rejected, expired, edited) or no mode left to ask in: the gate answers, through the operation's idempotency.
  return { kind: "envelope", envelope: await deps.runtime.call(retry.ctx, withApproval, traceparent) };
}

export type ToolCallAnswer = CallToolResult | InputRequiredResult;
