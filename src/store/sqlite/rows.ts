/**
 * Row <-> record mapping for the SQLite store: JSON columns are TEXT (the mapping itself is
 * ../rows.ts). Hot statements read rows as arrays (better-sqlite3's `.raw()`): building an
 * object per row costs a property per column, so these read the columns by position, in
 * the order of the column lists below.
 */
import type { ApprovalEvent, ApprovalRecord, OperationRecord } from "../store.js";
import { latestEventOf, toApprovalEventRecord, toApprovalRecord, toOperationRecord } from "../rows.js";
import type { ApprovalColumns, ApprovalEventColumns, LatestEventColumns, OperationColumns } from "../rows.js";

export type OperationRow = OperationColumns<string>;
export type ApprovalRow = ApprovalColumns<string>;
export type ApprovalEventRow = ApprovalEventColumns<string>;
export type ApprovalWithEventRow = ApprovalRow & LatestEventColumns<string>;

export const parseJson = (text: string): unknown => JSON.parse(text);

export const toOperation = (row: OperationRow): OperationRecord => toOperationRecord(row, parseJson);
export const toApprovalEvent = (row: ApprovalEventRow): ApprovalEvent => toApprovalEventRecord(row, parseJson);
export const toApproval = (row: ApprovalRow, decision: ApprovalEvent | null): ApprovalRecord => toApprovalRecord(row, decision, parseJson);
export const toApprovalWithEvent = (row: ApprovalWithEventRow): ApprovalRecord => toApprovalRecord(row, latestEventOf(row.id, row, parseJson), parseJson);

/** The operations table's columns, in the order `operationFromValues` reads them. */
export const operationColumns = [
  "tenant", "operation_id", "tool", "fingerprint", "status", "fence_token", "lease_owner", "lease_expires_at_ms",
  "attempts", "envelope", "created_at_ms", "updated_at_ms", "expires_at_ms",
] as const satisfies readonly (keyof OperationRow)[];

/** The approvals table's columns, in the order `approvalFromValues` reads them (then `eventColumns`). */
export const approvalColumns = [
  "id", "tenant", "run_id", "requested_by", "tool", "args", "preview", "fingerprint", "operation_id", "created_at_ms",
  "expires_at_ms", "policy_version", "status", "args_hash", "policy_code_version", "policy_data_version", "consumed_by", "consumed_at_ms",
] as const satisfies readonly (keyof ApprovalRow)[];

/** The latest decision event's columns, read after an approval's. */
export const eventColumns = [
  "decision", "approver", "reason", "edited_args", "decided_at_ms", "policy_version", "approver_roles", "policy_code_version", "policy_data_version",
] as const satisfies readonly (keyof ApprovalEventRow)[];

type Values = readonly unknown[];
const s = (v: Values, i: number): string => v[i] as string;
const sn = (v: Values, i: number): string | null => v[i] as string | null;
const n = (v: Values, i: number): number => v[i] as number;

/** The operation in `operationColumns` order from position `at` of a raw row. */
export function operationFromValues(v: Values, at: number): OperationRecord {
  return toOperation({
    tenant: s(v, at), operation_id: s(v, at + 1), tool: s(v, at + 2), fingerprint: s(v, at + 3), status: s(v, at + 4),
    fence_token: n(v, at + 5), lease_owner: s(v, at + 6), lease_expires_at_ms: n(v, at + 7), attempts: n(v, at + 8),
    envelope: sn(v, at + 9), created_at_ms: n(v, at + 10), updated_at_ms: n(v, at + 11), expires_at_ms: n(v, at + 12),
  });
}

/** The approval in `approvalColumns` order from position `at`, its latest event's `eventColumns` right after. */
export function approvalFromValues(v: Values, at: number): ApprovalRecord {
  const e = at + approvalColumns.length;
  return toApprovalWithEvent({
    id: s(v, at), tenant: s(v, at + 1), run_id: s(v, at + 2), requested_by: s(v, at + 3), tool: s(v, at + 4), args: s(v, at + 5),
    preview: s(v, at + 6), fingerprint: s(v, at + 7), operation_id: sn(v, at + 8), created_at_ms: n(v, at + 9), expires_at_ms: n(v, at + 10),
    policy_version: s(v, at + 11), status: s(v, at + 12), args_hash: s(v, at + 13), policy_code_version: s(v, at + 14),
    policy_data_version: s(v, at + 15), consumed_by: sn(v, at + 16), consumed_at_ms: v[at + 17] as number | null,
    e_decision: sn(v, e), e_approver: sn(v, e + 1), e_reason: sn(v, e + 2), e_edited_args: sn(v, e + 3), e_decided_at_ms: v[e + 4] as number | null,
    e_policy_version: sn(v, e + 5), e_approver_roles: sn(v, e + 6), e_policy_code_version: sn(v, e + 7), e_policy_data_version: sn(v, e + 8),
  });
}
