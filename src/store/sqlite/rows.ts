/** Row <-> record mapping for the SQLite store: JSON columns are TEXT (the mapping itself is ../rows.ts). */
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
