/** Row <-> record mapping for the SQLite store (JSON columns are TEXT). */
import type { JsonObject } from "../../manifest.js";
import type {
  ApprovalDecisionKind,
  ApprovalEvent,
  ApprovalRecord,
  ApprovalStatus,
  OperationRecord,
  OperationStatus,
} from "../store.js";

export interface OperationRow {
  tenant: string;
  operation_id: string;
  tool: string;
  fingerprint: string;
  status: string;
  fence_token: number;
  lease_owner: string;
  lease_expires_at_ms: number;
  attempts: number;
  envelope: string | null;
  created_at_ms: number;
  updated_at_ms: number;
  expires_at_ms: number;
}

export interface ApprovalRow {
  id: string;
  tenant: string;
  run_id: string;
  requested_by: string;
  tool: string;
  args: string;
  preview: string;
  fingerprint: string;
  operation_id: string | null;
  created_at_ms: number;
  expires_at_ms: number;
  policy_version: string;
  status: string;
  args_hash: string;
  policy_code_version: string;
  policy_data_version: string;
  consumed_by: string | null;
  consumed_at_ms: number | null;
}

export interface ApprovalEventRow {
  approval_id: string;
  decision: string;
  approver: string;
  reason: string | null;
  edited_args: string | null;
  decided_at_ms: number;
  policy_version: string;
  approver_roles: string;
  policy_code_version: string;
  policy_data_version: string;
}


const parseObject = (text: string): JsonObject => JSON.parse(text) as JsonObject;

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
    envelope: row.envelope === null ? null : parseObject(row.envelope),
    created_at_ms: Number(row.created_at_ms),
    updated_at_ms: Number(row.updated_at_ms),
    expires_at_ms: Number(row.expires_at_ms),
  };
}

export function toApprovalEvent(row: ApprovalEventRow): ApprovalEvent {
  return {
    approval_id: row.approval_id,
    decision: row.decision as ApprovalDecisionKind,
    approver: row.approver,
    approver_roles: JSON.parse(row.approver_roles) as string[],
    reason: row.reason,
    edited_args: row.edited_args === null ? null : parseObject(row.edited_args),
    decided_at_ms: Number(row.decided_at_ms),
    policy_version: row.policy_version,
    policy_code_version: row.policy_code_version,
    policy_data_version: row.policy_data_version,
  };
}

export function toApproval(row: ApprovalRow, decision: ApprovalEvent | null): ApprovalRecord {
  return {
    id: row.id,
    tenant: row.tenant,
    run_id: row.run_id,
    requested_by: row.requested_by,
    tool: row.tool,
    args: parseObject(row.args),
    preview: parseObject(row.preview),
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

