/**
 * What the audit chain's content hash covers, per kind of record: the same object whether it
 * is built from an entry about to be written or from a row read back, so a verifier recomputes
 * the hash a writer computed. Enters: entries, records, events. Leaves: plain JSON objects.
 */
import type { JsonObject, JsonValue } from "../../manifest.js";
import type { ApprovalEvent, DecisionLogEntry } from "../store.js";

export type ChainKind = "decision" | "approval_decision";

/** A decision-log entry's content, with the defaults its row reads back with. */
export function decisionContent(e: DecisionLogEntry, decisionId: string): JsonObject {
  return {
    kind: "decision",
    decision_id: decisionId,
    at_ms: e.at_ms,
    tenant: e.tenant,
    run_id: e.run_id,
    user: e.user,
    tool: e.tool,
    operation_id: e.operation_id,
    fingerprint: e.fingerprint,
    decision: e.decision,
    reason: e.reason,
    policy_version: e.policy_version,
    outcome: e.outcome,
    outcome_reason: e.outcome_reason,
    path: e.path ?? null,
    input: e.input ?? null,
    result: e.result ?? null,
    erased: [...(e.erased ?? [])],
    eval_ns: e.eval_ns ?? null,
    shadow: (e.shadow ?? null) as JsonValue,
    expires_at_ms: e.expires_at_ms ?? null,
    error: (e.error ?? null) as JsonValue,
  };
}

/** An approval decision's content (approve, edit, reject, revoke, as the store records it). */
export function approvalDecisionContent(ev: ApprovalEvent): JsonObject {
  return {
    kind: "approval_decision",
    approval_id: ev.approval_id,
    decision: ev.decision,
    approver: ev.approver,
    approver_roles: [...ev.approver_roles],
    reason: ev.reason,
    edited_args: ev.edited_args,
    decided_at_ms: ev.decided_at_ms,
    policy_version: ev.policy_version,
    policy_code_version: ev.policy_code_version,
    policy_data_version: ev.policy_data_version,
  };
}
