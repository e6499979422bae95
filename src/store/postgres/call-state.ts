/**
 * What authorize reads about a call, in one round trip: the operation record, the run's
 * interrupt flag and the presented approval with its latest decision, each as a JSON row.
 */
import type pg from "pg";
import { isExpired } from "../claim.js";
import type { CallState, CallStateRequest } from "../store.js";
import { runPrepared } from "./pool.js";
import { approvalColumns, latestEventJoin, operationColumns, toApproval, toOperation } from "./rows.js";
import type { ApprovalRow, OperationRow } from "./rows.js";

// $1 tenant, $2 operation_id (NULL: none), $3 run_id, $4 approval_id (NULL: none), $5 read the interrupt.
const callStateSql = `
SELECT
  (SELECT row_to_json(o) FROM (SELECT ${operationColumns} FROM idempotency_records
     WHERE tenant = $1::text AND operation_id = $2::text) o) AS op,
  (SELECT row_to_json(i) FROM (SELECT interrupt_reason AS reason, toolgate_ms(interrupted_at) AS at_ms FROM run_state
     WHERE $5::boolean AND tenant = $1::text AND run_id = $3::text AND interrupted_at IS NOT NULL) i) AS interrupt,
  (SELECT row_to_json(ap) FROM (SELECT ${approvalColumns} FROM approvals a ${latestEventJoin} WHERE a.id = $4::text) ap) AS approval`;

interface CallStateRow {
  op: OperationRow | null;
  interrupt: { reason: string; at_ms: number } | null;
  approval: ApprovalRow | null;
}

export async function readCallState(db: pg.Pool, req: CallStateRequest): Promise<CallState> {
  const res = await runPrepared<CallStateRow>(db, "call_state", callStateSql, [req.tenant, req.operation_id, req.run_id, req.approval_id, req.interrupt]);
  const row = res.rows[0];
  const op = row?.op === null || row?.op === undefined ? null : toOperation(row.op);
  const interrupt = row?.interrupt ?? null;
  return {
    operation: op !== null && !isExpired(op, req.now_ms) ? op : null,
    interrupt: interrupt === null ? null : { tenant: req.tenant, run_id: req.run_id, reason: interrupt.reason, at_ms: Number(interrupt.at_ms) },
    approval: row?.approval === null || row?.approval === undefined ? null : toApproval(row.approval),
  };
}
