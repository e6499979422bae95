/**
 * Claim-first on PostgreSQL: the fresh guarded claim of a key with no record and authorize's
 * call-state read, in ONE statement (one round trip). The INSERT ... ON CONFLICT DO NOTHING
 * is a data-modifying CTE; the statement's SELECTs run on the snapshot taken before it, so
 * the operation they read is the record that existed (none, when the insert happened), and
 * the interrupt flag and the approval they read are the rows the guard checked. Releasing a
 * fresh claim that never ran is one guarded DELETE.
 */
import type pg from "pg";
import { isExpired, planClaim } from "../claim.js";
import type { ClaimFirstRequest, ClaimFirstResult, OperationRecord } from "../store.js";
import { claimParams, insertClaimSql } from "./operations.js";
import { runPrepared, runPreparedValue } from "./pool.js";
import { approvalColumns, latestEventJoin, operationArray, operationFromArray, toApproval, toOperation } from "./rows.js";
import type { ApprovalRow } from "./rows.js";

// $1..$11 as insertClaimSql (the guard's run_id $9, approval_id $10, requester $11), $12 read the interrupt.
// When the insert happened no record existed and the guard saw no interrupt, so neither is read.
const claimFirstSql = `
WITH claimed AS (${insertClaimSql}
  ON CONFLICT (tenant, operation_id) DO NOTHING
  RETURNING 1)
SELECT json_build_array(
  EXISTS (SELECT 1 FROM claimed),
  (SELECT ${operationArray} FROM operations WHERE tenant = $1::text AND operation_id = $2::text AND NOT EXISTS (SELECT 1 FROM claimed)),
  (SELECT row_to_json(i) FROM (SELECT reason, toolgate_ms(at) AS at_ms FROM interrupts
     WHERE $12::boolean AND tenant = $1::text AND run_id = $9::text AND at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM claimed)) i),
  (SELECT row_to_json(ap) FROM (SELECT ${approvalColumns} FROM approvals a ${latestEventJoin} WHERE a.id = $10::text) ap))`;

/** [inserted, operation, interrupt, approval], each part null when absent. */
export type ClaimFirstValue = [boolean, unknown[] | null, { reason: string; at_ms: number } | null, ApprovalRow | null];

export async function claimFirst(db: pg.Pool, req: ClaimFirstRequest): Promise<ClaimFirstResult> {
  const params = [...claimParams(req), req.interrupt];
  const value = await runPreparedValue<ClaimFirstValue>(db, "op_claim_first", claimFirstSql, params);
  if (value === undefined) throw new Error("claim-first answered no row");
  return claimFirstResult(req, value);
}

/** The result of a claim-first statement's answer (with limits too: its first four parts). */
export function claimFirstResult(req: ClaimFirstRequest, [inserted, opRow, interrupt, approvalRow]: ClaimFirstValue): ClaimFirstResult {
  const op = opRow === null ? null : toOperation(operationFromArray(opRow));
  const fresh = planClaim(null, req).result;
  return {
    claimed: inserted && fresh.kind === "claimed" ? fresh : null,
    state: {
      operation: op !== null && !isExpired(op, req.now_ms) ? op : null,
      interrupt: interrupt === null ? null : { tenant: req.tenant, run_id: req.guard.run_id, reason: interrupt.reason, at_ms: Number(interrupt.at_ms) },
      approval: approvalRow === null ? null : toApproval(approvalRow),
    },
  };
}

// $1 tenant, $2 operation_id, $3 fence_token, $4 owner, $5 created_at_ms: only the fresh claim itself.
const releaseSql = `
DELETE FROM operations
 WHERE tenant = $1::text AND operation_id = $2::text AND fence_token = $3::bigint AND lease_owner = $4::text
   AND created_at = toolgate_ts($5::bigint) AND status = 'in_progress' AND attempts = 1 AND claimed_from IS NULL`;

export async function releaseClaim(db: pg.Pool, claim: OperationRecord): Promise<boolean> {
  const res = await runPrepared(db, "op_release", releaseSql, [claim.tenant, claim.operation_id, claim.fence_token, claim.lease_owner, claim.created_at_ms]);
  return (res.rowCount ?? 0) > 0;
}
