/**
 * Row <-> record mapping for the PostgreSQL store. Every SELECT/RETURNING list
 * here converts timestamptz to epoch ms in SQL (toolgate_ms), so rows carry
 * numbers; int8 columns arrive as strings from pg and are converted with Number.
 */
import type { JsonObject } from "../../manifest.js";
import type { ApprovalEvent, ApprovalRecord, OperationRecord } from "../store.js";
import { latestEventOf, toApprovalEventRecord, toApprovalRecord, toOperationRecord } from "../rows.js";
import type { ApprovalColumns, ApprovalEventColumns, LatestEventColumns, OperationColumns } from "../rows.js";

/** pg parses json/jsonb columns itself. */
export const pgJson = (value: unknown): unknown => value;

/** The operation's columns in `OperationRow` order: the key and the SQL expression giving it. */
const operationFields = [
  ["tenant", "tenant"],
  ["operation_id", "operation_id"],
  ["tool", "tool"],
  ["fingerprint", "fingerprint"],
  ["status", "status"],
  ["fence_token", "fence_token"],
  ["lease_owner", "lease_owner"],
  ["lease_expires_at_ms", "toolgate_ms(lease_expires_at)"],
  ["attempts", "attempts"],
  ["claimed_from", "claimed_from"],
  ["envelope", "envelope"],
  ["created_at_ms", "toolgate_ms(created_at)"],
  ["updated_at_ms", "toolgate_ms(updated_at)"],
  ["expires_at_ms", "toolgate_ms(expires_at)"],
] as const;

type OperationKey = (typeof operationFields)[number][0];

/**
 * The operation's columns as ONE json array value (`operationFromArray` reads it back): the
 * driver then describes, parses and maps one field instead of fourteen. Numbers
 * (bigint) arrive as JSON numbers, the envelope as the JSON it is stored as.
 */
export const operationArray = `json_build_array(${operationFields.map(([, sql]) => sql).join(", ")})`;

/** An outcome's answer: `recordedOperationColumns` (../rows.ts) as one json array value. */
export const recordedArray = `json_build_array(tool, fingerprint, fence_token, lease_owner, toolgate_ms(lease_expires_at), attempts,
  toolgate_ms(created_at), toolgate_ms(expires_at))`;

export function operationFromArray(values: readonly unknown[]): OperationRow {
  const row: Partial<Record<OperationKey, unknown>> = {};
  for (let i = 0; i < operationFields.length; i++) row[operationFields[i]![0]] = values[i];
  return row as unknown as OperationRow;
}

export interface OperationRow extends OperationColumns<JsonObject> {
  claimed_from: string | null;
}

export const toOperation = (row: OperationRow): OperationRecord => toOperationRecord(row, pgJson);

/** Approval columns plus its latest decision event (LEFT JOIN LATERAL aliased `e`). */
export const approvalColumns = `a.id, a.tenant, a.run_id, a.requested_by, a.tool, a.args, a.preview, a.fingerprint,
  a.operation_id, toolgate_ms(a.created_at) AS created_at_ms, toolgate_ms(a.expires_at) AS expires_at_ms,
  a.policy_version, a.status, a.args_hash, a.policy_code_version, a.policy_data_version, a.consumed_by,
  toolgate_ms(a.consumed_at) AS consumed_at_ms,
  e.decision AS e_decision, e.approver AS e_approver, e.reason AS e_reason,
  e.edited_args AS e_edited_args, toolgate_ms(e.decided_at) AS e_decided_at_ms, e.policy_version AS e_policy_version,
  e.approver_roles AS e_approver_roles, e.policy_code_version AS e_policy_code_version,
  e.policy_data_version AS e_policy_data_version`;

export const latestEventJoin = `LEFT JOIN LATERAL (
    SELECT * FROM approval_events ev WHERE ev.approval_id = a.id ORDER BY ev.seq DESC LIMIT 1
  ) e ON true`;

export interface ApprovalRow extends ApprovalColumns<JsonObject>, LatestEventColumns<JsonObject | string[]> {}

export const toApproval = (row: ApprovalRow): ApprovalRecord => toApprovalRecord(row, latestEventOf(row.id, row, pgJson), pgJson);

export const eventColumns = `approval_id, decision, approver, reason, edited_args,
  toolgate_ms(decided_at) AS decided_at_ms, policy_version, approver_roles, policy_code_version, policy_data_version`;

export type ApprovalEventRow = ApprovalEventColumns<JsonObject | string[]>;

export const toApprovalEvent = (row: ApprovalEventRow): ApprovalEvent => toApprovalEventRecord(row, pgJson);
