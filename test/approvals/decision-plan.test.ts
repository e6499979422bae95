/**
 * planDecision: the approval-decision rules as a pure function of (approval as read, request,
 * the approver checks' verdict, clock). Each refusal comes out typed, with its one text, and
 * with nothing to write; each allowed decision names the row change (the status, or a vote).
 */
import { describe, expect, it } from "vitest";
import { checkApprover } from "../../src/approvals/approver-checks.js";
import type { ApproverContext } from "../../src/approvals/approver.js";
import {
  approvalStatusAfter,
  explainConsume,
  planDecision,
  planStoreDecision,
} from "../../src/store/decision-plan.js";
import type { ApproverVerdict, DecisionPlan } from "../../src/store/decision-plan.js";
import type { ApprovalDecisionKind, ApprovalEvent, ApprovalRecord } from "../../src/store/store.js";
import { approvalRecord, decisionEvent, T0, TTL } from "./decision-fixtures.js";

const approval = (over: Partial<ApprovalRecord> = {}): ApprovalRecord => approvalRecord("apr_1", { operation_id: "op_1", ...over });
const event = (decision: ApprovalDecisionKind, at = T0 + 1): ApprovalEvent => decisionEvent("apr_1", decision, at);

const bob: ApproverContext = { tenant: "t1", user: "bob", roles: ["ops"] };
const spec = { approver_roles: ["ops"], self_approve: false };

/** The plan for `approver`'s `decision`, with the approver checks' real verdict. */
function plan(decision: ApprovalDecisionKind, approver: ApproverContext = bob, a: ApprovalRecord | null = approval(), nowMs = T0 + 1, over: Partial<Parameters<typeof planDecision>[1]> = {}): DecisionPlan {
  const verdict: ApproverVerdict = a === null ? null : checkApprover(a, spec, approver, decision, { identity_case: "insensitive", default_approver_roles: [] });
  return planDecision(a, { approval_id: "apr_1", decision, approver: approver.user, ...over }, verdict, nowMs);
}

describe("planDecision", () => {
  it("an approval past its expiry cannot be approved, edited or rejected: expired, nothing written", () => {
    for (const d of ["approve", "edit", "reject"] as const) {
      expect(plan(d, bob, approval(), T0 + TTL)).toEqual({ ok: false, why: "expired", message: "approval apr_1 cannot be decided: expired" });
      expect(plan(d, bob, approval(), T0 + TTL + 1)).toMatchObject({ ok: false, why: "expired" });
    }
    // One millisecond before the expiry it still can.
    expect(plan("approve", bob, approval(), T0 + TTL - 1)).toEqual({ ok: true, kind: "settle", status: "approved" });
    // A revoke withdraws a pending approval even after its expiry.
    expect(plan("revoke", bob, approval(), T0 + TTL + 1, { executed: null })).toEqual({ ok: true, kind: "settle", status: "revoked" });
  });

  it("a decided approval cannot be decided again: already_decided; only an approved one can still be revoked", () => {
    for (const status of ["approved", "edited", "rejected", "revoked"] as const) {
      for (const d of ["approve", "edit", "reject"] as const) {
        expect(plan(d, bob, approval({ status }))).toEqual({ ok: false, why: "already_decided", message: "approval apr_1 cannot be decided: already_decided" });
      }
    }
    for (const status of ["edited", "rejected", "revoked"] as const) expect(plan("revoke", bob, approval({ status }), T0 + 1, { executed: null })).toMatchObject({ ok: false, why: "already_decided" });
    expect(plan("revoke", bob, approval({ status: "approved" }), T0 + 1, { executed: null })).toEqual({ ok: true, kind: "settle", status: "revoked" });
  });

  it("a revoke after a call executed under the approval is already_executed, with the call's outcome", () => {
    const outcome = { outcome: "success", value: 1 };
    expect(plan("revoke", bob, approval({ status: "approved" }), T0 + 1, { executed: { outcome } })).toEqual({
      ok: false,
      why: "already_executed",
      outcome,
      message: 'approval apr_1 was not revoked: the call it approved already executed (operation op_1 answered "success")',
    });
    expect(plan("revoke", bob, approval({ status: "approved" }), T0 + 1, { executed: { outcome: null } })).toMatchObject({ ok: false, why: "already_executed", outcome: null, message: expect.stringContaining("is running or its outcome is not known yet") });
  });

  it("a missing approval is not_found", () => {
    expect(plan("approve", bob, null)).toEqual({ ok: false, why: "not_found", message: "approval apr_1 does not exist" });
  });

  it("self-approval: the requester cannot approve or edit their own call unless the tool allows it", () => {
    const alice: ApproverContext = { tenant: "t1", user: "alice", roles: ["ops"] };
    for (const d of ["approve", "edit"] as const) {
      expect(plan(d, alice)).toMatchObject({ ok: false, why: "self_approval", message: expect.stringContaining(`alice requested this call and cannot ${d} it`) });
    }
    const allowed = checkApprover(approval(), { ...spec, self_approve: true }, alice, "approve");
    expect(planDecision(approval(), { approval_id: "apr_1", decision: "approve" }, allowed, T0 + 1)).toEqual({ ok: true, kind: "settle", status: "approved" });
  });

  it("four-eyes: the requester under another spelling of the same identity is still the requester; withdrawing stays allowed", () => {
    for (const user of ["ALICE", " alice ", "Alice"]) {
      expect(plan("approve", { tenant: "t1", user, roles: ["ops"] })).toMatchObject({ ok: false, why: "self_approval" });
    }
    // Without a permitted role the requester may still reject or revoke their own request.
    const alice: ApproverContext = { tenant: "t1", user: "alice", roles: [] };
    expect(plan("reject", alice)).toEqual({ ok: true, kind: "settle", status: "rejected" });
    expect(plan("revoke", alice, approval(), T0 + 1, { executed: null })).toEqual({ ok: true, kind: "settle", status: "revoked" });
  });

  it("wrong role: an approver without one of the tool's approver roles is refused, before any status is looked at", () => {
    const carol: ApproverContext = { tenant: "t1", user: "carol", roles: ["sales"] };
    expect(plan("approve", carol)).toEqual({ ok: false, why: "approver_role_required", message: "deciding reserve_funds needs one of the roles ops; carol has sales" });
    expect(plan("approve", carol, approval({ status: "approved" }))).toMatchObject({ ok: false, why: "approver_role_required" });
    // Another tenant's approver sees the approval as missing.
    expect(plan("approve", { ...bob, tenant: "t2" })).toEqual({ ok: false, why: "not_found", message: "approval apr_1 does not exist" });
  });

  it("quorum vote repeats: an approver who already voted is already_voted; a new approver's approve is a vote", () => {
    const voting = (identity: string, voted: string[]) => ({ vote: { identity, voted } });
    expect(plan("approve", bob, approval(), T0 + 1, voting("bob", ["bob"]))).toEqual({
      ok: false,
      why: "already_voted",
      message: "bob already approved apr_1; the quorum needs approvals from distinct approvers",
    });
    expect(plan("approve", bob, approval(), T0 + 1, voting("bob", ["dave"]))).toEqual({ ok: true, kind: "vote" });
    // A vote needs a decidable approval like any approve.
    expect(plan("approve", bob, approval(), T0 + TTL, voting("bob", []))).toMatchObject({ ok: false, why: "expired" });
    expect(plan("approve", bob, approval({ status: "approved" }), T0 + 1, voting("bob", []))).toMatchObject({ ok: false, why: "already_decided" });
    // Only approves are votes: a reject of a quorum approval settles it.
    expect(plan("reject", bob, approval(), T0 + 1, voting("bob", ["bob"]))).toEqual({ ok: true, kind: "settle", status: "rejected" });
  });

  it("the status map: each decision kind settles the approval in its own status", () => {
    expect(approvalStatusAfter).toEqual({ approve: "approved", edit: "edited", reject: "rejected", revoke: "revoked" });
    for (const d of ["approve", "edit", "reject", "revoke"] as const) {
      expect(plan(d, bob, approval(), T0 + 1, d === "revoke" ? { executed: null } : {})).toEqual({ ok: true, kind: "settle", status: approvalStatusAfter[d] });
    }
    expect(() => planDecision(approval(), { approval_id: "apr_1", decision: "bless" as ApprovalDecisionKind }, null, T0)).toThrow(/unknown approval decision "bless"/);
  });
});

describe("planStoreDecision", () => {
  it("writes the status and answers the approval as the decision settled it", () => {
    const ev = event("approve");
    expect(planStoreDecision(approval(), ev)).toEqual({ write: "approved", result: { ok: true, approval: { ...approval(), status: "approved", decision: ev } } });
  });

  it("answers every refusal with the approval as read and writes nothing", () => {
    expect(planStoreDecision(null, event("approve"))).toEqual({ write: null, result: { ok: false, why: "not_found", approval: null } });
    expect(planStoreDecision(approval(), event("approve", T0 + TTL))).toEqual({ write: null, result: { ok: false, why: "expired", approval: approval() } });
    const approved = approval({ status: "approved" });
    expect(planStoreDecision(approved, event("reject"))).toEqual({ write: null, result: { ok: false, why: "already_decided", approval: approved } });
    expect(planStoreDecision(approved, event("revoke"), { outcome: null })).toEqual({ write: null, result: { ok: false, why: "already_executed", approval: approved, outcome: null } });
  });
});

describe("explainConsume", () => {
  const req = { approval_id: "apr_1", tenant: "t1", operation_id: "op_1", now_ms: T0 };
  it("refuses what is not approved, another tenant's, and what another operation consumed; the consuming operation again is ok", () => {
    expect(explainConsume(null, req)).toEqual({ ok: false, why: "not_approved" });
    expect(explainConsume(approval({ status: "pending" }), req)).toEqual({ ok: false, why: "not_approved" });
    expect(explainConsume(approval({ status: "approved", tenant: "t2" }), req)).toEqual({ ok: false, why: "not_approved" });
    expect(explainConsume(approval({ status: "approved", consumed_by: "op_2" }), req)).toEqual({ ok: false, why: "already_consumed" });
    expect(explainConsume(approval({ status: "approved", consumed_by: "op_1" }), req)).toEqual({ ok: true });
    // Approved and unconsumed, yet the store's update changed nothing: another operation id than the approval's.
    expect(explainConsume(approval({ status: "approved" }), req)).toEqual({ ok: false, why: "not_approved" });
  });
});
