/**
 * The approvals inbox on PostgreSQL: listing a tenant's approvals page by page
 * (keyset pagination on created_at, id), and the pending call behind each approval.
 * Announcements are claimed with FOR UPDATE SKIP LOCKED so that several `serve`
 * processes never announce one approval twice.
 */
import type pg from "pg";
import type { JsonObject } from "../../manifest.js";
import type { ApprovalListQuery, ApprovalRecord, NewPendingCall, PendingCall } from "../store.js";
import { runPrepared } from "./pool.js";
import { toPendingCallRecord } from "../rows.js";
import type { PendingCallColumns } from "../rows.js";
import { approvalColumns, latestEventJoin, pgJson, toApproval, type ApprovalRow } from "./rows.js";

const pendingColumns = `approval_id, tenant, run_id, user_id, roles, tool, args, operation_id, policy_reason,
  toolgate_ms(created_at) AS created_at_ms, replaced_by, toolgate_ms(announced_at) AS announced_at_ms`;

type PendingCallRow = PendingCallColumns<JsonObject | string[]>;

const toPendingCall = (row: PendingCallRow): PendingCall => toPendingCallRecord(row, pgJson);

const insertSql = `
INSERT INTO pending_calls (approval_id, tenant, run_id, user_id, roles, tool, args, operation_id, policy_reason, created_at)
VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb, $8, $9, toolgate_ts($10::bigint))
ON CONFLICT (approval_id) DO NOTHING`;

const insertValues = (c: NewPendingCall): unknown[] => [
  c.approval_id,
  c.tenant,
  c.run_id,
  c.user,
  JSON.stringify(c.roles),
  c.tool,
  JSON.stringify(c.args),
  c.operation_id,
  c.policy_reason,
  c.created_at_ms,
];

export async function listApprovals(db: pg.Pool, q: ApprovalListQuery): Promise<ApprovalRecord[]> {
  const where = ["a.tenant = $1"];
  const values: unknown[] = [q.tenant];
  const add = (sql: (n: string) => string, v: unknown): void => {
    values.push(v);
    where.push(sql(`$${values.length}`));
  };
  if (q.tool !== undefined) add((n) => `a.tool = ${n}`, q.tool);
  if (q.status !== undefined) add((n) => `a.status = ${n}`, q.status);
  if (q.requested_by !== undefined) add((n) => `a.requested_by = ${n}`, q.requested_by);
  if (q.created_before_ms !== undefined) add((n) => `a.created_at < toolgate_ts(${n}::bigint)`, q.created_before_ms);
  if (q.after !== undefined) {
    values.push(q.after.created_at_ms, q.after.id);
    const [at, id] = [`$${values.length - 1}`, `$${values.length}`];
    where.push(`(a.created_at, a.id) < (toolgate_ts(${at}::bigint), ${id}::text)`);
  }
  values.push(q.limit);
  const sql = `SELECT ${approvalColumns} FROM approvals a ${latestEventJoin}
    WHERE ${where.join(" AND ")} ORDER BY a.created_at DESC, a.id DESC LIMIT $${values.length}`;
  const res = await db.query<ApprovalRow>(sql, values);
  return res.rows.map(toApproval);
}

export async function savePendingCall(db: pg.Pool, c: NewPendingCall): Promise<boolean> {
  const res = await runPrepared(db, "pending_insert", insertSql, insertValues(c));
  return res.rowCount === 1;
}

export async function getPendingCall(db: pg.Pool, approvalId: string): Promise<PendingCall | null> {
  const res = await runPrepared<PendingCallRow>(
    db,
    "pending_get",
    `SELECT ${pendingColumns} FROM pending_calls WHERE approval_id = $1`,
    [approvalId],
  );
  const row = res.rows[0];
  return row === undefined ? null : toPendingCall(row);
}

export async function replacePendingCall(db: pg.Pool, approvalId: string, c: NewPendingCall): Promise<void> {
  // One statement: the replacement exists before the link to it does.
  await db.query(
    `WITH ins AS (${insertSql} RETURNING approval_id)
     UPDATE pending_calls SET replaced_by = $1 WHERE approval_id = $11`,
    [...insertValues(c), approvalId],
  );
}

export async function claimAnnouncements(db: pg.Pool, nowMs: number, limit: number): Promise<PendingCall[]> {
  const res = await db.query<PendingCallRow>(
    `UPDATE pending_calls SET announced_at = toolgate_ts($1::bigint)
      WHERE approval_id IN (
        SELECT p.approval_id FROM pending_calls p JOIN approvals a ON a.id = p.approval_id
         WHERE p.announced_at IS NULL AND a.status = 'pending'
         ORDER BY p.created_at, p.approval_id LIMIT $2 FOR UPDATE OF p SKIP LOCKED)
      RETURNING ${pendingColumns}`,
    [nowMs, limit],
  );
  return res.rows.map(toPendingCall).sort((a, b) => a.created_at_ms - b.created_at_ms || a.approval_id.localeCompare(b.approval_id));
}

export async function unmarkAnnouncement(db: pg.Pool, approvalId: string): Promise<void> {
  await db.query("UPDATE pending_calls SET announced_at = NULL WHERE approval_id = $1", [approvalId]);
}
