/**
 * What the audit chain's content hash covers, per kind of record: the same object whether it
 * is built from an entry about to be written or from a row read back, so a verifier recomputes
 * the hash a writer computed. Enters: entries, records, events. Leaves: plain JSON objects.
 */
import type { JsonObject, JsonValue } from "../../manifest.js";
import { decisionRecordOf } from "../rows.js";
import type { ApprovalEvent, DecisionLogEntry, DecisionLogRecord } from "../store.js";

export type ChainKind = "decision" | "approval_decision";

/**
 * The decision-log fields the chain covers (a field added to the log later is not: it would
 * change the content of every record written before it).
 */
const decisionFields = [
  "decision_id", "at_ms", "tenant", "run_id", "user", "tool", "operation_id", "fingerprint", "decision", "reason",
  "policy_version", "outcome", "outcome_reason", "path", "input", "result", "erased", "eval_ns", "shadow", "expires_at_ms", "error",
] as const satisfies readonly (keyof DecisionLogRecord)[];

/** A decision-log entry's content: its covered fields as the store reads them back (`decisionRecordOf`). */
export function decisionContent(e: DecisionLogEntry, decisionId: string): JsonObject {
  const record = decisionRecordOf(e, decisionId);
  const content: Record<string, JsonValue> = { kind: "decision" };
  for (const field of decisionFields) content[field] = record[field] as JsonValue;
  return content;
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
