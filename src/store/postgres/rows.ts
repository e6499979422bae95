/**
 * Row <-> record mapping for the PostgreSQL store. Every SELECT/RETURNING list
 * here converts timestamptz to epoch ms in SQL (toolgate_ms), so rows carry
 * numbers; int8 columns arrive as strings from pg and are converted with Number.
 */
import type { JsonObject } from "../../manifest.js";
import type {
  ApprovalDecisionKind,
  ApprovalEvent,
  ApprovalRecord,
  ApprovalStatus,
  OperationRecord,
  OperationStatus,
} from "../store.js";

type Int8 = string | number;

export const operationColumns = `tenant, operation_id, tool, fingerprint, status, fence_token, lease_owner,
  toolgate_ms(lease_expires_at) AS lease_expires_at_ms, attempts, claimed_from, envelope,
  toolgate_ms(created_at) AS created_at_ms, toolgate_ms(updated_at) AS updated_at_ms,
  toolgate_ms(expires_at) AS expires_at_ms`;

export interface OperationRow {
  tenant: string;
  operation_id: string;
  tool: string;
  fingerprint: string;
  status: string;
  fence_token: Int8;
  lease_owner: string;
  lease_expires_at_ms: Int8;
  attempts: number;
  claimed_from: string | null;
  envelope: JsonObject | null;
  created_at_ms: Int8;
  updated_at_ms: Int8;
  expires_at_ms: Int8;
}

export function toOperation(row: OperationRow): OperationRecord {
  return {
    tenant: row.tenant,
    operation_id: row.operation_id,
    tool: row.tool,
    fingerprint: row.fingerprint,
    status: row.status as OperationStatus,
    fence_token: Number(row.fence_token),
    lease_owner: row.lease_owner,
    lease_expires_at_ms: Number(row.lease_expires_at_ms),
    attempts: Number(row.attempts),
    envelope: row.envelope,
    created_at_ms: Number(row.created_at_ms),
    updated_at_ms: Number(row.updated_at_ms),
    expires_at_ms: Number(row.expires_at_ms),
  };
}

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

export interface ApprovalRow {
  id: string;
  tenant: string;
  run_id: string;
  requested_by: string;
  tool: string;
  args: JsonObject;
  preview: JsonObject;
  fingerprint: string;
  operation_id: string | null;
  created_at_ms: Int8;
  expires_at_ms: Int8;
  policy_version: string;
  status: string;
  args_hash: string;
  policy_code_version: string;
  policy_data_version: string;
  consumed_by: string | null;
  consumed_at_ms: Int8 | null;
  e_decision: string | null;
  e_approver: string | null;
  e_reason: string | null;
  e_edited_args: JsonObject | null;
  e_decided_at_ms: Int8 | null;
  e_policy_version: string | null;
  e_approver_roles: string[] | null;
  e_policy_code_version: string | null;
  e_policy_data_version: string | null;
}

export function toApproval(row: ApprovalRow): ApprovalRecord {
  const decision: ApprovalEvent | null =
    row.e_decision === null
      ? null
      : {
          approval_id: row.id,
          decision: row.e_decision as ApprovalDecisionKind,
          approver: row.e_approver ?? "",
          approver_roles: row.e_approver_roles ?? [],
          reason: row.e_reason,
          edited_args: row.e_edited_args,
          decided_at_ms: Number(row.e_decided_at_ms),
          policy_version: row.e_policy_version ?? "",
          policy_code_version: row.e_policy_code_version ?? "",
          policy_data_version: row.e_policy_data_version ?? "",
        };
  return {
    id: row.id,
    tenant: row.tenant,
    run_id: row.run_id,
    requested_by: row.requested_by,
    tool: row.tool,
    args: row.args,
    preview: row.preview,
    fingerprint: row.fingerprint,
    args_hash: row.args_hash,
    operation_id: row.operation_id,
    created_at_ms: Number(row.created_at_ms),
    expires_at_ms: Number(row.expires_at_ms),
    policy_version: row.policy_version,
    policy_code_version: row.policy_code_version,
    policy_data_version: row.policy_data_version,
    status: row.status as ApprovalStatus,
    decision,
    consumed_by: row.consumed_by,
    consumed_at_ms: row.consumed_at_ms === null ? null : Number(row.consumed_at_ms),
  };
}

export const eventColumns = `approval_id, decision, approver, reason, edited_args,
  toolgate_ms(decided_at) AS decided_at_ms, policy_version, approver_roles, policy_code_version, policy_data_version`;

export interface ApprovalEventRow {
  approval_id: string;
  decision: string;
  approver: string;
  reason: string | null;
  edited_args: JsonObject | null;
  decided_at_ms: Int8;
  policy_version: string;
  approver_roles: string[];
  policy_code_version: string;
  policy_data_version: string;
}

export function toApprovalEvent(row: ApprovalEventRow): ApprovalEvent {
  return {
    approval_id: row.approval_id,
    decision: row.decision as ApprovalDecisionKind,
    approver: row.approver,
    approver_roles: row.approver_roles,
    reason: row.reason,
    edited_args: row.edited_args,
    decided_at_ms: Number(row.decided_at_ms),
    policy_version: row.policy_version,
    policy_code_version: row.policy_code_version,
    policy_data_version: row.policy_data_version,
  };
}
