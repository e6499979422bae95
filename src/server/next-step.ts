/**
 * What happens next to an approval's call, derived from the store: the approval's status
 * and consumption, and the idempotency record of its operation. The inbox shows it after
 * every decision so an approver knows whether the call has run, waits for a decision, or
 * waits for the host to resume it.
 */
import type { ApprovalDetail } from "../approvals/types.js";
import { quorumText } from "../approvals/quorum.js";
import type { QuorumState } from "../approvals/quorum.js";
import type { OperationRecord } from "../store/store.js";

export type NextStepState =
  /** Pending and not expired. */
  | "awaiting_decision"
  /** Pending, approved by some approvers of a quorum, not yet by enough. */
  | "awaiting_approvals"
  /** Approved; no outcome yet: the host resumes it or the agent retries with the approval id. */
  | "awaiting_resume"
  /** Claimed by a caller right now. */
  | "running"
  /** The outcome is recorded (or the call timed out after starting and is consumed). */
  | "ran"
  /** Rejected, revoked or expired before it ran. */
  | "will_not_run";

export interface NextStep {
  readonly state: NextStepState;
  /** The approval whose call this is about (for an edit: the edited call's approval). */
  readonly approval_id: string;
  /** One or two sentences for the approver. */
  readonly text: string;
  /** The recorded outcome, when the call ran and its record is still kept: `success` or the failure's reason. */
  readonly outcome: string | null;
}

export interface NextStepInput {
  /** The approval as the approver sees it, or for an edited approval the edited call's approval. */
  readonly approval: ApprovalDetail;
  /** The operation's idempotency record; null when none exists, undefined when the store was not asked. */
  readonly operation: OperationRecord | null | undefined;
  /** True when this inbox runs a call on the host as soon as it is approved. */
  readonly executesOnApproval: boolean;
  readonly nowMs: number;
  /** The quorum the call needs, when it needs several approvers. */
  readonly quorum?: QuorumState | null;
}

const outcomeOf = (op: OperationRecord | null | undefined): string | null => {
  const env = op?.envelope;
  if (env === null || env === undefined) return null;
  if (env["outcome"] === "success") return "success";
  return typeof env["reason"] === "string" ? env["reason"] : typeof env["outcome"] === "string" ? env["outcome"] : null;
};

export function nextStep(input: NextStepInput): NextStep {
  const { approval: a, operation: op } = input;
  const step = (state: NextStepState, text: string, outcome: string | null = null): NextStep => ({ state, approval_id: a.id, text, outcome });
  const host = input.executesOnApproval
    ? "this inbox runs it on the host as soon as it is approved (exactly once, as resume does)"
    : "this inbox does not run calls: the host resumes it (runtime.approvals.resume) or the agent retries with the approval id";
  const expired = a.status === "expired" || (a.status === "pending" && a.expires_at_ms <= input.nowMs);
  if (a.status === "pending" && !expired && input.quorum != null && input.quorum.have > 0) {
    return step("awaiting_approvals", `Waiting for more approvals: ${quorumText(input.quorum)}. Once the quorum is complete, ${host}.`);
  }
  if (a.status === "pending" && !expired) {
    return step("awaiting_decision", `Waiting for a decision${input.quorum == null ? "" : ` (${input.quorum.need} approvals from distinct approvers needed)`}. Once approved, ${host}.`);
  }
  const ran = (): NextStep => {
    const outcome = outcomeOf(op);
    if (op?.status === "unknown") return step("ran", "The call started and timed out: its effect may have happened; a retry of the same operation reconciles it before anything runs again.");
    return step("ran", outcome === null ? "The call has run; its outcome is recorded." : `The call has run: ${outcome}.`, outcome);
  };
  // Consumption is recorded only for a call that ran under the approval (any outcome but "failed before any effect").
  if (a.consumed_by !== null) return ran();
  // A refused retry may leave the operation's record: for these statuses only consumption means the call ran.
  if (a.status === "rejected") return step("will_not_run", "The call will not run: the approval was rejected.");
  if (a.status === "revoked") return step("will_not_run", "The call will not run: the approval was revoked before it ran.");
  if (expired) return step("will_not_run", "The call will not run: the approval expired undecided.");
  if (a.status === "edited") return step("will_not_run", "The original call will not run: it was replaced by an edited call.");
  if (op?.status === "final" || op?.status === "unknown") return ran();
  if (op?.status === "in_progress" && op.lease_expires_at_ms > input.nowMs) return step("running", "The call is running on the host now.");
  if (op?.status === "retryable") {
    return step("awaiting_resume", `The call failed before any effect (${outcomeOf(op) ?? "retryable"}); it runs again when the host resumes it or the agent retries with approval id ${a.id}.`);
  }
  return step("awaiting_resume", `Approved; the call has not run yet. It waits for the host to resume it or the agent to retry with approval id ${a.id}${input.executesOnApproval ? " (it was approved elsewhere, or running it here did not start)" : ""}.`);
}
