/**
 * Idempotency records on PostgreSQL. The claim is ONE statement,
 * INSERT ... ON CONFLICT DO UPDATE ... WHERE <claimable> (preceded, for a key with
 * no record, by the same INSERT with ON CONFLICT DO NOTHING): the primary key on
 * (tenant, operation_id) serialises racing workers, and the WHERE clause is
 * re-checked against the latest committed row version, so exactly one of N
 * concurrent claimers gets the lease. Recording is one conditional UPDATE on the
 * current fence token. Follow-up SELECTs only explain a "no"; they never decide.
 */
import type pg from "pg";
import { checkGuard, planClaim, planRecord } from "../claim.js";
import type { GuardState } from "../claim.js";
import type { ApprovalStatus, ClaimGuard, ClaimRequest, ClaimResult, DecisionLogEntry, OperationRecord, RecordOutcomeRequest, RecordOutcomeResult, RefundAttemptRequest } from "../store.js";
import { decisionInsertOneSql, decisionInsertSql, decisionParams, decisionRows } from "./decision-log.js";
import { runPrepared, runPreparedValue } from "./pool.js";
import { recordedOperation } from "../rows.js";
import { operationArray, operationFromArray, recordedArray, toOperation } from "./rows.js";

// $1 tenant, $2 operation_id, $3 tool, $4 fingerprint, $5 owner, $6 now_ms, $7 lease_ms, $8 retention_ms,
// $9 guard run_id (NULL: no guard), $10 guard approval_id (NULL: none to check), $11 the user the
// approval must have been requested by in run $9 (NULL: any principal of the tenant).
// The guard is part of the one statement: an interrupt or revoke committed before it stops the claim.
// The approval's row is key-share-locked until the claim commits, so a revoke (which locks it
// FOR UPDATE, then looks for the claim) either comes first and stops the claim, or sees it. A key
// share lock does not conflict with the UPDATE that consumes the approval (a no-key update), so an
// outcome being recorded and a claim waiting for its operation row never wait for each other.
const guardOk = `($9::text IS NULL OR (
    NOT EXISTS (SELECT 1 FROM interrupts s WHERE s.tenant = $1::text AND s.run_id = $9::text AND s.at IS NOT NULL)
    AND ($10::text IS NULL OR EXISTS (SELECT 1 FROM approvals a WHERE a.id = $10::text AND a.tenant = $1::text
         AND a.status = 'approved' AND a.expires_at > toolgate_ts($6::bigint)
         AND ($11::text IS NULL OR (a.requested_by = $11::text AND a.run_id = $9::text)) FOR KEY SHARE))))`;
// `gone` = the existing row is past its retention and counts as absent.
const gone = "(r.expires_at <= excluded.created_at AND r.lease_expires_at <= excluded.created_at)";
// The new record, inserted when the guard holds: both claim statements (and claim-first's,
// claim-first.ts) start with it.
export const insertClaimSql = `
INSERT INTO operations AS r
  (tenant, operation_id, tool, fingerprint, status, fence_token, lease_owner, lease_expires_at, attempts,
   claimed_from, envelope, created_at, updated_at, expires_at)
SELECT $1::text, $2::text, $3::text, $4::text, 'in_progress', 1, $5::text, toolgate_ts($6::bigint + $7::bigint), 1,
   NULL::text, NULL::json, toolgate_ts($6::bigint), toolgate_ts($6::bigint), toolgate_ts($6::bigint + $8::bigint)
 WHERE ${guardOk}`;
export const claimSql = `${insertClaimSql}
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
  -- Only a takeover after a released retryable answer counts an attempt (claim.ts countsAttempt).
  attempts         = CASE WHEN ${gone} THEN 1 WHEN r.status = 'retryable' THEN r.attempts + 1 ELSE r.attempts END,
  claimed_from     = CASE WHEN ${gone} THEN NULL ELSE r.status END,
  envelope         = CASE WHEN ${gone} THEN NULL ELSE r.envelope END,
  created_at       = CASE WHEN ${gone} THEN excluded.created_at ELSE r.created_at END,
  expires_at       = CASE WHEN ${gone} THEN excluded.expires_at ELSE r.expires_at END
WHERE ${gone}
   OR (r.tool = excluded.tool AND r.fingerprint = excluded.fingerprint AND r.status <> 'final'
       AND r.lease_expires_at <= excluded.created_at)
RETURNING ${operationArray} AS op`;

// The claim of a key with no record (most claims), with the parameters of claimSql: ON CONFLICT DO
// NOTHING spares the executor the takeover's SET and WHERE, which claimSql sets up on every run
// even when it inserts. It answers only whether it inserted: the row is planClaim's for no record.
// When it inserts nothing (a record exists, or the guard fails) claimSql runs and decides.
export const freshClaimSql = `${insertClaimSql}
ON CONFLICT (tenant, operation_id) DO NOTHING
RETURNING 'true'::json AS inserted`;

// $1 tenant, $2 operation_id, $3 fence_token, $4 status, $5 envelope, $6 now_ms, $7 keep_lease.
const recordSql = `
UPDATE operations
   SET status = $4::text, envelope = $5::json,
       lease_expires_at = CASE WHEN $7::boolean AND $4::text = 'unknown' THEN lease_expires_at
                               ELSE LEAST(lease_expires_at, toolgate_ts($6::bigint)) END,
       updated_at = toolgate_ts($6::bigint)
 WHERE tenant = $1 AND operation_id = $2 AND fence_token = $3 AND status <> 'final'
RETURNING ${recordedArray} AS op`;

const selectSql = `SELECT ${operationArray} AS op FROM operations WHERE tenant = $1 AND operation_id = $2`;

// A "no" from the claim statement is explained by reading the row; if the row
// changed in between so that it is claimable again, the statement runs again.
const maxClaimRounds = 8;

export async function readOperation(db: pg.Pool, tenant: string, operationId: string): Promise<OperationRecord | null> {
  const row = await runPreparedValue<unknown[]>(db, "op_select", selectSql, [tenant, operationId]);
  return row === undefined ? null : toOperation(operationFromArray(row));
}

/** $1..$11 of the claim statements (claim-first's too, which adds its own after them). */
export const claimParams = (req: ClaimRequest): unknown[] => [
  req.tenant,
  req.operation_id,
  req.tool,
  req.fingerprint,
  req.owner,
  req.now_ms,
  req.lease_ms,
  req.retention_ms,
  req.guard?.run_id ?? null,
  req.guard?.approval_id ?? null,
  req.guard?.requested_by ?? null,
];

export async function claimOperation(db: pg.Pool, req: ClaimRequest): Promise<ClaimResult> {
  const params = claimParams(req);
  const fresh = planClaim(null, req);
  if ((await runPreparedValue<boolean>(db, "op_claim_fresh", freshClaimSql, params)) === true) return fresh.result;
  for (let round = 0; round < maxClaimRounds; round++) {
    const claimed = await runPreparedValue<unknown[]>(db, "op_claim", claimSql, params);
    if (claimed !== undefined) {
      const row = operationFromArray(claimed);
      const record = toOperation(row);
      const previous = row.claimed_from === null ? null : (row.claimed_from as OperationRecord["status"]);
      return { kind: "claimed", record, previous };
    }
    const refused = req.guard === undefined ? null : checkGuard(req, await readGuardState(db, req.tenant, req.guard));
    if (refused !== null) return refused;
    const plan = planClaim(await readOperation(db, req.tenant, req.operation_id), req);
    if (plan.write === null) return plan.result;
  }
  throw new Error(`claim of ${req.tenant}/${req.operation_id} did not settle after ${maxClaimRounds} rounds`);
}

/** The columns of the guard's state, as `guardStateSql` reads them. */
export type GuardRow = {
  interrupt_reason: string | null;
  approval_tenant: string | null;
  approval_status: string | null;
  approval_expires_ms: string | null;
  approval_requested_by: string;
  approval_run_id: string;
};

/** The guard's state (the run's interrupt, the approval) in one row, reading the given parameters (e.g. `$1::text`). */
export const guardStateSql = (tenant: string, runId: string, approvalId: string): string =>
  `SELECT (SELECT reason FROM interrupts WHERE tenant = ${tenant} AND run_id = ${runId} AND at IS NOT NULL) AS interrupt_reason,
          a.tenant AS approval_tenant, a.status AS approval_status, toolgate_ms(a.expires_at) AS approval_expires_ms,
          a.requested_by AS approval_requested_by, a.run_id AS approval_run_id
     FROM (SELECT 1) one LEFT JOIN approvals a ON a.id = ${approvalId}`;

export const guardStateOf = (row: GuardRow | undefined): GuardState => ({
  interrupt: row?.interrupt_reason == null ? null : { reason: row.interrupt_reason },
  approval:
    row?.approval_tenant == null
      ? null
      : { tenant: row.approval_tenant, status: row.approval_status as ApprovalStatus, expires_at_ms: Number(row.approval_expires_ms), requested_by: row.approval_requested_by, run_id: row.approval_run_id },
});

/** Explains a guarded claim that wrote nothing (never decides on its own: the statement did). */
export async function readGuardState(db: pg.Pool | pg.PoolClient, tenant: string, guard: ClaimGuard): Promise<GuardState> {
  const res = await db.query<GuardRow>(guardStateSql("$1", "$2", "$3"), [tenant, guard.run_id, guard.approval_id]);
  return guardStateOf(res.rows[0]);
}

// The outcome, the approval's consumption and the decision-log rows in one statement (one
// commit): $8 approval to consume (NULL: none), then the rows: either the JSON array $9
// (queued entries, then the call's own entry marked `own`, inserted only when the outcome is
// recorded), or, with nothing queued, the call's own entry alone as parameters $9..$31.
const recordWith = (logged: string) => `
WITH rec AS (${recordSql}),
consumed AS (
  UPDATE approvals SET consumed_by = $2, consumed_at = toolgate_ts($6::bigint)
   WHERE $8::text IS NOT NULL AND id = $8::text AND tenant = $1 AND status = 'approved' AND consumed_by IS NULL
     AND operation_id = $2 AND $4::text <> 'retryable' AND EXISTS (SELECT 1 FROM rec)
  RETURNING id
),
logged AS (${logged} RETURNING 1)
SELECT * FROM rec`;
const recordAllSql = recordWith(decisionInsertSql("$9", "NOT r.own OR EXISTS (SELECT 1 FROM rec)"));
const recordOwnSql = recordWith(decisionInsertOneSql(9, "EXISTS (SELECT 1 FROM rec)"));

/** The queued decision-log entries and the call's own one (see RecordOutcomeRequest.decision), or null. */
export interface OutcomeLog {
  readonly queued: readonly DecisionLogEntry[];
  readonly own: DecisionLogEntry;
  /** The entries carry content hashes for the audit chain (see DecisionLogOptions.chain). */
  readonly chained: boolean;
}

export async function recordOutcome(db: pg.Pool, req: RecordOutcomeRequest, log: OutcomeLog | null = null): Promise<RecordOutcomeResult> {
  const params = [req.tenant, req.operation_id, req.fence_token, req.status, JSON.stringify(req.envelope), req.now_ms, req.keep_lease === true];
  const consume = req.consume_approval_id ?? null;
  const recorded =
    log === null && consume === null
      ? await runPreparedValue<unknown[]>(db, "op_record", recordSql, params)
      : log !== null && log.queued.length === 0
        ? await runPreparedValue<unknown[]>(db, "op_record_own", recordOwnSql, [...params, consume, ...decisionParams(log.own, log.chained)])
        : await runPreparedValue<unknown[]>(db, "op_record_all", recordAllSql, [
            ...params,
            consume,
            JSON.stringify(log === null ? [] : [...decisionRows(log.queued, false, log.chained), ...decisionRows([log.own], true, log.chained)]),
          ]);
  if (recorded !== undefined) return { recorded: true, record: recordedOperation(req, recorded) };
  const current = await readOperation(db, req.tenant, req.operation_id);
  const plan = planRecord(current, req);
  // The UPDATE matched nothing, so if the row would match now it was created after
  // the attempt (a fresh claim after a purge): for this caller it was missing.
  return plan.write === null ? plan.result : { recorded: false, why: "missing", record: current };
}

// $1 tenant, $2 operation_id, $3 fence_token, $4 now_ms.
const refundSql = `
UPDATE operations SET attempts = attempts - 1, updated_at = toolgate_ts($4::bigint)
 WHERE tenant = $1 AND operation_id = $2 AND fence_token = $3 AND status = 'in_progress' AND attempts > 1`;

export async function refundAttempt(db: pg.Pool, req: RefundAttemptRequest): Promise<boolean> {
  const res = await runPrepared(db, "op_refund", refundSql, [req.tenant, req.operation_id, req.fence_token, req.now_ms]);
  return (res.rowCount ?? 0) > 0;
}

/** Expired records without a live lease, then approvals that expired undecided. */
export async function purgeExpired(db: pg.Pool, nowMs: number): Promise<number> {
  const opsGone = await db.query(
    "DELETE FROM operations WHERE expires_at <= toolgate_ts($1::bigint) AND lease_expires_at <= toolgate_ts($1::bigint)",
    [nowMs],
  );
  const approvalsGone = await db.query(
    "DELETE FROM approvals WHERE status = 'expired' OR (status = 'pending' AND expires_at <= toolgate_ts($1::bigint))",
    [nowMs],
  );
  return (opsGone.rowCount ?? 0) + (approvalsGone.rowCount ?? 0);
}
