/**
 * The approval-decision rules as pure functions of (approval as read, decision request,
 * approver checks' verdict, clock), beside the claim rules (`claim.ts`). The approvals API
 * plans a decision before it writes anything, and each store plans it again inside its own
 * atomic section (SQLite: an IMMEDIATE transaction; PostgreSQL: the guarded UPDATE, or the
 * row locked for a revoke), so every backend settles and refuses identically, with one text.
 */
import type { JsonObject } from "../manifest.js";
import type { ApprovalDecisionKind, ApprovalEvent, ApprovalRecord, ApprovalStatus, ConsumeApprovalRequest, ConsumeApprovalResult, DecideResult } from "./store.js";

/** The status an approval has after each decision kind. `revoke` withdraws a pending or given approval. */
export const approvalStatusAfter: Readonly<Record<ApprovalDecisionKind, ApprovalStatus>> = {
  approve: "approved",
  edit: "edited",
  reject: "rejected",
  revoke: "revoked",
};

/** Why the approver may not decide (the approver checks of src/approvals/approver-checks.ts). */
export type ApproverRefusal = "invalid_approver" | "not_found" | "self_approval" | "approver_role_required" | "approver_roles_unconfigured";

/** The approver checks' verdict: null when the approver may make the decision. */
export type ApproverVerdict = { readonly why: ApproverRefusal; readonly message: string } | null;

export interface DecisionRequest {
  readonly approval_id: string;
  readonly decision: ApprovalDecisionKind;
  /** The approver's user id as given (for the texts). */
  readonly approver?: string;
  /**
   * An approve towards a quorum: the approver's identity as votes compare it (`normalIdentity`)
   * and the identities that voted so far. The plan is then a vote, not the settling decision.
   */
  readonly vote?: { readonly identity: string; readonly voted: readonly string[] };
  /**
   * For a revoke: the call that claimed the approval's operation (not released as retryable) or
   * consumed it, with its recorded envelope (null while it runs or its outcome is unknown); null
   * when none did; absent when not read here (the store checks it in its atomic section).
   */
  readonly executed?: { readonly outcome: JsonObject | null } | null;
}

export type DecisionRefusal =
  | { readonly ok: false; readonly why: "not_found" | "already_decided" | "expired" | "already_voted" | ApproverRefusal; readonly message: string }
  | { readonly ok: false; readonly why: "already_executed"; readonly message: string; readonly outcome: JsonObject | null };

/**
 * What to write: `settle` sets the approval's status and appends the decision event (the
 * approval then reads as `approval`); `vote` records the approver's vote and leaves the
 * approval pending until the votes complete its quorum.
 */
export type DecisionPlan =
  | { readonly ok: true; readonly kind: "settle"; readonly status: ApprovalStatus }
  | { readonly ok: true; readonly kind: "vote" }
  | DecisionRefusal;

/** The refusal text every layer answers with for `why`. */
export function decisionRefusalText(approvalId: string, why: "not_found" | "already_decided" | "expired" | "already_voted", approver?: string): string {
  if (why === "not_found") return `approval ${approvalId} does not exist`;
  if (why === "already_voted") return `${approver ?? "this approver"} already approved ${approvalId}; the quorum needs approvals from distinct approvers`;
  return `approval ${approvalId} cannot be decided: ${why}`;
}

/** The text of a revoke that came after the call under the approval claimed its operation. */
export function alreadyExecutedText(approval: Pick<ApprovalRecord, "id" | "operation_id">, outcome: JsonObject | null): string {
  const state = outcome === null ? "is running or its outcome is not known yet" : `answered ${JSON.stringify(outcome["outcome"] ?? null)}`;
  return `approval ${approval.id} was not revoked: the call it approved already executed (operation ${approval.operation_id ?? "(none)"} ${state})`;
}

/**
 * The decision's plan on `approval` (null: no such approval) at `nowMs`. Reject, approve and
 * edit need a pending, unexpired approval; revoke needs a pending or approved one that no call
 * executed under. An approve towards a quorum is a vote, one per approver.
 */
export function planDecision(approval: ApprovalRecord | null, req: DecisionRequest, verdict: ApproverVerdict, nowMs: number): DecisionPlan {
  if (!Object.hasOwn(approvalStatusAfter, req.decision)) throw new Error(`unknown approval decision ${JSON.stringify(req.decision)}`);
  const refuse = (why: "not_found" | "already_decided" | "expired" | "already_voted"): DecisionPlan => ({ ok: false, why, message: decisionRefusalText(req.approval_id, why, req.approver) });
  if (approval === null) return refuse("not_found");
  if (verdict !== null) return { ok: false, why: verdict.why, message: verdict.message };
  if (req.decision === "revoke") {
    if (approval.status !== "pending" && approval.status !== "approved") return refuse("already_decided");
    if (req.executed != null) return { ok: false, why: "already_executed", message: alreadyExecutedText(approval, req.executed.outcome), outcome: req.executed.outcome };
    return { ok: true, kind: "settle", status: approvalStatusAfter.revoke };
  }
  if (approval.status !== "pending") return refuse("already_decided");
  if (approval.expires_at_ms <= nowMs) return refuse("expired");
  if (req.vote !== undefined && req.decision === "approve") {
    return req.vote.voted.includes(req.vote.identity) ? refuse("already_voted") : { ok: true, kind: "vote" };
  }
  return { ok: true, kind: "settle", status: approvalStatusAfter[req.decision] };
}

/** The approval as a settled decision leaves it: its new status and `event` as its latest decision. */
export const settledApproval = (approval: ApprovalRecord, status: ApprovalStatus, event: ApprovalEvent): ApprovalRecord => ({ ...approval, status, decision: event });

/** What a store must do for a decision: set the approval's status to `write` (and append the event), then answer `result`. */
export interface StoreDecisionPlan {
  readonly write: ApprovalStatus | null;
  readonly result: DecideResult;
}

/**
 * A store's plan for `event` on `approval` as read in its atomic section, with `executed` for a
 * revoke (see DecisionRequest). `Store.decideApproval` is called after the approver checks, so
 * there is no verdict here, and a quorum's votes are recorded apart (`addApprovalVote`).
 */
export function planStoreDecision(approval: ApprovalRecord | null, event: ApprovalEvent, executed?: { readonly outcome: JsonObject | null } | null): StoreDecisionPlan {
  const plan = planDecision(approval, { approval_id: event.approval_id, decision: event.decision, ...(executed === undefined ? {} : { executed }) }, null, event.decided_at_ms);
  if (plan.ok && plan.kind === "settle" && approval !== null) return { write: plan.status, result: { ok: true, approval: settledApproval(approval, plan.status, event) } };
  if (approval === null) return { write: null, result: { ok: false, why: "not_found", approval: null } };
  if (!plan.ok && plan.why === "already_executed") return { write: null, result: { ok: false, why: "already_executed", approval, outcome: plan.outcome } };
  if (!plan.ok && (plan.why === "already_decided" || plan.why === "expired")) return { write: null, result: { ok: false, why: plan.why, approval } };
  throw new Error(`the decision of ${event.approval_id} planned ${plan.ok ? plan.kind : plan.why} in a store`);
}

/**
 * Why a consumption that changed nothing is refused, from the approval as read after it:
 * `ok` when this operation consumed it before (recording is idempotent).
 */
export function explainConsume(approval: Pick<ApprovalRecord, "tenant" | "status" | "consumed_by"> | null, req: ConsumeApprovalRequest): ConsumeApprovalResult {
  if (approval === null || approval.tenant !== req.tenant || approval.status !== "approved") return { ok: false, why: "not_approved" };
  if (approval.consumed_by === req.operation_id) return { ok: true };
  return { ok: false, why: approval.consumed_by === null ? "not_approved" : "already_consumed" };
}
