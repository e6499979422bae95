/**
 * decideAsApprover: the one place the inbox (CLI, HTTP) turns a human's request and
 * their trusted identity into a call of the approvals API's `decide`. Request fields
 * come from outside (a form, a JSON body, CLI flags), so they are checked here.
 */
import type { JsonObject } from "../manifest.js";
import type { InboxApprovals } from "./approvals-api.js";
import { decisionKinds, isDecisionKind } from "./approver-checks.js";
import type { DecisionKind } from "./approver-checks.js";
import type { ApproverContext } from "./approver.js";
import type { DecideOutcome } from "./decide.js";
import { ApprovalsError } from "./errors.js";


export interface HumanDecision {
  readonly decision: DecisionKind;
  readonly reason?: string;
  readonly edited_args?: JsonObject;
}

const MAX_REASON = 2_000;

/** Checks an untrusted decision body; throws ApprovalsError("invalid_request") saying which field is wrong. */
export function parseDecision(body: unknown): HumanDecision {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ApprovalsError("invalid_request", "body: must be a JSON object {decision, reason?, edited_args?}");
  }
  const b = body as Record<string, unknown>;
  if (!isDecisionKind(b.decision)) {
    throw new ApprovalsError("invalid_request", `decision: must be one of ${decisionKinds.join(", ")}`);
  }
  const decision: DecisionKind = b.decision;
  if (b.reason !== undefined && b.reason !== null && (typeof b.reason !== "string" || b.reason.length > MAX_REASON)) {
    throw new ApprovalsError("invalid_request", `reason: must be a string of at most ${MAX_REASON} characters`);
  }
  const reason = typeof b.reason === "string" && b.reason.trim() !== "" ? b.reason : undefined;
  if (decision === "edit") {
    const args = b.edited_args;
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      throw new ApprovalsError("invalid_request", "edited_args: required for edit, a JSON object with the full arguments of the edited call");
    }
    return { decision, ...(reason === undefined ? {} : { reason }), edited_args: args as JsonObject };
  }
  if (b.edited_args !== undefined && b.edited_args !== null) {
    throw new ApprovalsError("invalid_request", "edited_args: only allowed with decision edit");
  }
  return { decision, ...(reason === undefined ? {} : { reason }) };
}

/** Decides as `approver`; the approvals API enforces tenant and separation of duties. */
export function decideAsApprover(approvals: InboxApprovals, approvalId: string, req: HumanDecision, approver: ApproverContext): Promise<DecideOutcome> {
  return approvals.decide(
    approvalId,
    {
      decision: req.decision,
      ...(req.reason === undefined ? {} : { reason: req.reason }),
      ...(req.edited_args === undefined ? {} : { edited_args: req.edited_args }),
    },
    approver,
  );
}
