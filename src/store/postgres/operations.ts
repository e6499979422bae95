/**
 * Idempotency records on PostgreSQL. The claim is ONE statement,
 * INSERT ... ON CONFLICT DO UPDATE ... WHERE <claimable>: the primary key on
 * (tenant, operation_id) serialises racing workers, and the WHERE clause is
 * re-checked against the latest committed row version, so exactly one of N
 * concurrent claimers gets the lease. Recording is one conditional UPDATE on the
 * current fence token. Follow-up SELECTs only explain a "no"; they never decide.
 */
import type pg from "pg";
import { planClaim, planRecord } from "../claim.js";
import type { ClaimRequest, ClaimResult, OperationRecord, RecordOutcomeRequest, RecordOutcomeResult, RefundAttemptRequest } from "../store.js";
import { runPrepared } from "./pool.js";
import { operationColumns, toOperation, type OperationRow } from "./rows.js";

// $1 tenant, $2 operation_id, $3 tool, $4 fingerprint, $5 owner, $6 now_ms, $7 lease_ms, $8 retention_ms.
// `gone` = the existing row is past its retention and counts as absent.
const gone = "(r.expires_at <= excluded.created_at AND r.lease_expires_at <= excluded.created_at)";
const claimSql = `
INSERT INTO idempotency_records AS r
  (tenant, operation_id, tool, fingerprint, status, fence_token, lease_owner, lease_expires_at, attempts,
   claimed_from, envelope, created_at, updated_at, expires_at)
VALUES ($1, $2, $3, $4, 'in_progress', 1, $5, toolgate_ts($6::bigint + $7::bigint), 1,
   NULL, NULL, toolgate_ts($6::bigint), toolgate_ts($6::bigint), toolgate_ts($6::bigint + $8::bigint))
ON CONFLICT (tenant, operation_id) DO UPDATE SET
  status           = 'in_progress',
  fence_token      = r.fence_token + 1,
  lease_owner      = excluded.lease_owner,
  lease_expires_at = excluded.lease_expires_at,
  updated_at       = excluded.updated_at,
  -- Past retention the old record is gone: start over, but the token keeps growing
  -- so a holder of the old record stays fenced out.
  tool             = CASE WHEN ${gone} THEN excluded.tool ELSE r.tool END,
  fingerprint      = CASE WHEN ${gone} THEN excluded.fingerprint ELSE r.fingerprint END,
  attempts         = CASE WHEN ${gone} THEN 1 ELSE r.attempts + 1 END,
  claimed_from     = CASE WHEN ${gone} THEN NULL ELSE r.status END,
  envelope         = CASE WHEN ${gone} THEN NULL ELSE r.envelope END,
  created_at       = CASE WHEN ${gone} THEN excluded.created_at ELSE r.created_at END,
  expires_at       = CASE WHEN ${gone} THEN excluded.expires_at ELSE r.expires_at END
WHERE ${gone}
   OR (r.tool = excluded.tool AND r.fingerprint = excluded.fingerprint AND r.status <> 'final'
       AND r.lease_expires_at <= excluded.created_at)
RETURNING ${operationColumns}`;

// $1 tenant, $2 operation_id, $3 fence_token, $4 status, $5 envelope, $6 now_ms, $7 keep_lease.
const recordSql = `
UPDATE idempotency_records
   SET status = $4, envelope = $5::jsonb,
       lease_expires_at = CASE WHEN $7::boolean AND $4 = 'unknown' THEN lease_expires_at
                               ELSE LEAST(lease_expires_at, toolgate_ts($6::bigint)) END,
       updated_at = toolgate_ts($6::bigint)
 WHERE tenant = $1 AND operation_id = $2 AND fence_token = $3 AND status <> 'final'
RETURNING ${operationColumns}`;

const selectSql = `SELECT ${operationColumns} FROM idempotency_records WHERE tenant = $1 AND operation_id = $2`;

// A "no" from the claim statement is explained by reading the row; if the row
// changed in between so that it is claimable again, the statement runs again.
const maxClaimRounds = 8;

export async function readOperation(db: pg.Pool, tenant: string, operationId: string): Promise<OperationRecord | null> {
  const res = await runPrepared<OperationRow>(db, "op_select", selectSql, [tenant, operationId]);
  const row = res.rows[0];
  return row === undefined ? null : toOperation(row);
}

export async function claimOperation(db: pg.Pool, req: ClaimRequest): Promise<ClaimResult> {
  for (let round = 0; round < maxClaimRounds; round++) {
    const res = await runPrepared<OperationRow>(db, "op_claim", claimSql, [
      req.tenant,
      req.operation_id,
      req.tool,
      req.fingerprint,
      req.owner,
      req.now_ms,
      req.lease_ms,
      req.retention_ms,
    ]);
    const row = res.rows[0];
    if (row !== undefined) {
      const record = toOperation(row);
      const previous = row.claimed_from === null ? null : (row.claimed_from as OperationRecord["status"]);
      return { kind: "claimed", record, previous };
    }
    const plan = planClaim(await readOperation(db, req.tenant, req.operation_id), req);
    if (plan.write === null) return plan.result;
  }
  throw new Error(`claim of ${req.tenant}/${req.operation_id} did not settle after ${maxClaimRounds} rounds`);
}

export async function recordOutcome(db: pg.Pool, req: RecordOutcomeRequest): Promise<RecordOutcomeResult> {
  const res = await runPrepared<OperationRow>(db, "op_record", recordSql, [
    req.tenant,
    req.operation_id,
    req.fence_token,
    req.status,
    JSON.stringify(req.envelope),
    req.now_ms,
    req.keep_lease === true,
  ]);
  const row = res.rows[0];
  if (row !== undefined) return { recorded: true, record: toOperation(row) };
  const current = await readOperation(db, req.tenant, req.operation_id);
  const plan = planRecord(current, req);
  // The UPDATE matched nothing, so if the row would match now it was created after
  // the attempt (a fresh claim after a purge): for this caller it was missing.
  return plan.write === null ? plan.result : { recorded: false, why: "missing", record: current };
}

// $1 tenant, $2 operation_id, $3 fence_token, $4 now_ms.
const refundSql = `
UPDATE idempotency_records SET attempts = attempts - 1, updated_at = toolgate_ts($4::bigint)
 WHERE tenant = $1 AND operation_id = $2 AND fence_token = $3 AND status = 'in_progress' AND attempts > 1`;

export async function refundAttempt(db: pg.Pool, req: RefundAttemptRequest): Promise<boolean> {
  const res = await runPrepared(db, "op_refund", refundSql, [req.tenant, req.operation_id, req.fence_token, req.now_ms]);
  return (res.rowCount ?? 0) > 0;
}

/** Expired records without a live lease, then approvals that expired undecided. */
export async function purgeExpired(db: pg.Pool, nowMs: number): Promise<number> {
  const opsGone = await db.query(
    "DELETE FROM idempotency_records WHERE expires_at <= toolgate_ts($1::bigint) AND lease_expires_at <= toolgate_ts($1::bigint)",
    [nowMs],
  );
  const approvalsGone = await db.query(
    "DELETE FROM approvals WHERE status = 'expired' OR (status = 'pending' AND expires_at <= toolgate_ts($1::bigint))",
    [nowMs],
  );
  return (opsGone.rowCount ?? 0) + (approvalsGone.rowCount ?? 0);
}
