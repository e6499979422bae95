/**
 * What authorize reads about a call, in one round trip: the operation record (as
 * `operationArray`), the run's interrupt flag and the presented approval with its latest
 * decision (JSON rows), answered together as one JSON array value, so the driver
 * describes and parses one field.
 */
import type pg from "pg";
import { isExpired } from "../claim.js";
import type { CallState, CallStateRequest } from "../store.js";
import { runPreparedValue } from "./pool.js";
import { approvalColumns, latestEventJoin, operationArray, operationFromArray, toApproval, toOperation } from "./rows.js";
import type { ApprovalRow } from "./rows.js";

// $1 tenant, $2 operation_id (NULL: none), $3 run_id, $4 approval_id (NULL: none), $5 read the interrupt.
const callStateSql = `
SELECT json_build_array(
  (SELECT ${operationArray} FROM operations WHERE tenant = $1::text AND operation_id = $2::text),
  (SELECT row_to_json(i) FROM (SELECT reason, toolgate_ms(at) AS at_ms FROM interrupts
     WHERE $5::boolean AND tenant = $1::text AND run_id = $3::text AND at IS NOT NULL) i),
  (SELECT row_to_json(ap) FROM (SELECT ${approvalColumns} FROM approvals a ${latestEventJoin} WHERE a.id = $4::text) ap))`;

/** [operation, interrupt, approval], each null when absent. */
type CallStateValue = [unknown[] | null, { reason: string; at_ms: number } | null, ApprovalRow | null];

export async function readCallState(db: pg.Pool, req: CallStateRequest): Promise<CallState> {
  const value = await runPreparedValue<CallStateValue>(db, "call_state", callStateSql, [req.tenant, req.operation_id, req.run_id, req.approval_id, req.interrupt]);
  const [opRow, interrupt, approvalRow] = value ?? [null, null, null];
  const op = opRow === null ? null : toOperation(operationFromArray(opRow));
  return {
    operation: op !== null && !isExpired(op, req.now_ms) ? op : null,
    interrupt: interrupt === null ? null : { tenant: req.tenant, run_id: req.run_id, reason: interrupt.reason, at_ms: Number(interrupt.at_ms) },
    approval: approvalRow === null ? null : toApproval(approvalRow),
  };
}
