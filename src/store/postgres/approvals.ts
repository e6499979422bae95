/**
 * Approvals on PostgreSQL: a row per request plus append-only decision events.
 * A decision is planned on the row as read (`planStoreDecision`, ../decision-plan.ts) and
 * written by one statement (UPDATE ... WHERE <decidable> then INSERT the event from its
 * RETURNING), so two approvers racing settle it exactly once.
 */
import type pg from "pg";
import type { JsonObject } from "../../manifest.js";
import type {
  ApprovalEvent,
  ApprovalRecord,
  ApprovalStatus,
  ConsumeApprovalRequest,
  ConsumeApprovalResult,
  DecideResult,
  NewApproval,
} from "../store.js";
import { approvalDecisionContent } from "../chain/content.js";
import { contentHash } from "../chain/link.js";
import { runPrepared } from "./pool.js";
import { explainConsume, planStoreDecision } from "../decision-plan.js";
import {
  approvalColumns,
  eventColumns,
  latestEventJoin,
  toApproval,
  toApprovalEvent,
  type ApprovalEventRow,
  type ApprovalRow,
} from "./rows.js";

const insertSql = `
INSERT INTO approvals (id, tenant, run_id, requested_by, tool, args, preview, fingerprint, operation_id,
  created_at, expires_at, policy_version, status, args_hash, policy_code_version, policy_data_version)
VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::json, $8, $9, toolgate_ts($10::bigint), toolgate_ts($11::bigint), $12, 'pending',
  $13, $14, $15)`;

const getSql = `SELECT ${approvalColumns} FROM approvals a ${latestEventJoin} WHERE a.id = $1`;

const findPendingSql = `
SELECT ${approvalColumns} FROM approvals a ${latestEventJoin}
 WHERE a.tenant = $1 AND a.fingerprint = $2 AND a.status = 'pending' AND a.expires_at > toolgate_ts($3::bigint)
   AND ($4::text IS NULL OR a.args_hash = $4::text)
 ORDER BY a.created_at DESC LIMIT 1`;

// $1 id, $2 decision, $3 new status, $4 approver, $5 reason, $6 edited_args, $7 decided_at_ms, $8 policy_version,
// $9 approver_roles, $10 policy_code_version, $11 policy_data_version, $12 the content hash the audit chain links.
// Approve/edit/reject need a pending, unexpired approval; revoke is allowed while pending or approved.
const decideSql = `
WITH settled AS (
  UPDATE approvals SET status = $3
   WHERE id = $1
     AND ((status = 'pending' AND expires_at > toolgate_ts($7::bigint))
          OR ($2 = 'revoke' AND status IN ('pending', 'approved')))
  RETURNING id
)
INSERT INTO approval_events (approval_id, decision, approver, reason, edited_args, decided_at, policy_version,
  approver_roles, policy_code_version, policy_data_version, content_hash)
SELECT id, $2, $4, $5, $6::jsonb, toolgate_ts($7::bigint), $8, $9::jsonb, $10, $11, $12 FROM settled
RETURNING approval_id`;

// Single use: only an approved approval of this tenant and operation that nobody consumed yet.
const consumeSql = `
UPDATE approvals SET consumed_by = $3, consumed_at = toolgate_ts($4::bigint)
 WHERE id = $1 AND tenant = $2 AND status = 'approved' AND consumed_by IS NULL AND operation_id = $3
RETURNING id`;

export async function createApproval(db: pg.Pool, a: NewApproval): Promise<ApprovalRecord> {
  await runPrepared(db, "apr_insert", insertSql, [
    a.id,
    a.tenant,
    a.run_id,
    a.requested_by,
    a.tool,
    JSON.stringify(a.args),
    JSON.stringify(a.preview),
    a.fingerprint,
    a.operation_id,
    a.created_at_ms,
    a.expires_at_ms,
    a.policy_version,
    a.args_hash,
    a.policy_code_version,
    a.policy_data_version,
  ]);
  return { ...a, status: "pending", decision: null, consumed_by: null, consumed_at_ms: null };
}

export async function getApproval(db: pg.Pool, id: string): Promise<ApprovalRecord | null> {
  const row = (await runPrepared<ApprovalRow>(db, "apr_get", getSql, [id])).rows[0];
  return row === undefined ? null : toApproval(row);
}

export async function findPendingApproval(
  db: pg.Pool,
  tenant: string,
  fingerprint: string,
  nowMs: number,
  argsHash?: string,
): Promise<ApprovalRecord | null> {
  const row = (await runPrepared<ApprovalRow>(db, "apr_find_pending", findPendingSql, [tenant, fingerprint, nowMs, argsHash ?? null])).rows[0];
  return row === undefined ? null : toApproval(row);
}

const decideParams = (ev: ApprovalEvent, status: ApprovalStatus): unknown[] => [
  ev.approval_id,
  ev.decision,
  status,
  ev.approver,
  ev.reason,
  ev.edited_args === null ? null : JSON.stringify(ev.edited_args),
  ev.decided_at_ms,
  ev.policy_version,
  JSON.stringify(ev.approver_roles),
  ev.policy_code_version,
  ev.policy_data_version,
  contentHash(approvalDecisionContent(ev)),
];

// The approval, locked FOR UPDATE: every guarded claim that key-share-locked it has committed,
// and none can pass its guard until this transaction ends.
const lockSql = `SELECT id FROM approvals WHERE id = $1 FOR UPDATE`;

// What a call under the approval did, read after the lock (a new snapshot, so every claim that
// held the lock is visible): the operation's status and envelope, and who consumed it.
const executedSql = `
SELECT a.consumed_by, o.status AS op_status, o.envelope AS op_envelope
  FROM approvals a
  LEFT JOIN operations o ON o.tenant = a.tenant AND o.operation_id = a.operation_id AND o.tool = a.tool
 WHERE a.id = $1`;

/**
 * A revoke, in a transaction: the approval's row is locked first, then the claim a call made
 * under it is looked for and the revoke planned (`planStoreDecision`). A guarded claim
 * key-share-locks the same row (operations.ts), so of a revoke and a claim exactly one wins:
 * the revoke stops the claim, or answers already_executed.
 */
async function revoke(db: pg.Pool, ev: ApprovalEvent): Promise<DecideResult> {
  const client = await db.connect();
  let done = false;
  try {
    await client.query("BEGIN");
    const locked = await client.query(lockSql, [ev.approval_id]);
    let executed: { outcome: JsonObject | null } | null = null;
    if (locked.rowCount === 1) {
      const row = (await client.query<{ consumed_by: string | null; op_status: string | null; op_envelope: JsonObject | null }>(executedSql, [ev.approval_id])).rows[0];
      const claimed = row !== undefined && row.op_status !== null && row.op_status !== "retryable";
      if (row !== undefined && (claimed || row.consumed_by !== null)) executed = { outcome: claimed && row.op_status === "final" ? row.op_envelope : null };
    }
    const current = (await client.query<ApprovalRow>(getSql, [ev.approval_id])).rows[0];
    const plan = planStoreDecision(current === undefined ? null : toApproval(current), ev, executed);
    if (plan.write === null) {
      await client.query("ROLLBACK");
      done = true;
      return plan.result;
    }
    const res = await client.query(decideSql, decideParams(ev, plan.write));
    await client.query("COMMIT");
    done = true;
    return res.rowCount === 1 ? plan.result : explain(db, ev);
  } finally {
    if (!done) await client.query("ROLLBACK").catch(() => undefined);
    client.release();
  }
}

/** Explains a decision whose UPDATE wrote nothing (another decision or the expiry came first) from the row as it is now. */
async function explain(db: pg.Pool, ev: ApprovalEvent): Promise<DecideResult> {
  const plan = planStoreDecision(await getApproval(db, ev.approval_id), ev);
  if (plan.write !== null) throw new Error(`the decision of ${ev.approval_id} was neither written nor refused`);
  return plan.result;
}

/**
 * Planned on the row as read (`planStoreDecision`), written by the guarded UPDATE, whose WHERE
 * is the plan's rule again: of two approvers racing, exactly one settles it.
 */
export async function decideApproval(db: pg.Pool, ev: ApprovalEvent): Promise<DecideResult> {
  if (ev.decision === "revoke") return revoke(db, ev);
  const plan = planStoreDecision(await getApproval(db, ev.approval_id), ev);
  if (plan.write === null) return plan.result;
  const res = await runPrepared(db, "apr_decide", decideSql, decideParams(ev, plan.write));
  // Answer with the approval as this decision settled it, even if a later one already followed.
  return res.rowCount === 1 ? plan.result : explain(db, ev);
}

export async function consumeApproval(db: pg.Pool, req: ConsumeApprovalRequest): Promise<ConsumeApprovalResult> {
  const res = await runPrepared(db, "apr_consume", consumeSql, [req.approval_id, req.tenant, req.operation_id, req.now_ms]);
  return res.rowCount === 1 ? { ok: true } : explainConsume(await getApproval(db, req.approval_id), req);
}

export async function listApprovalEvents(db: pg.Pool, approvalId: string): Promise<ApprovalEvent[]> {
  const res = await db.query<ApprovalEventRow>(
    `SELECT ${eventColumns} FROM approval_events WHERE approval_id = $1 ORDER BY seq`,
    [approvalId],
  );
  return res.rows.map(toApprovalEvent);
}
