/**
 * What authorize reads about a call, in one statement (one read transaction, one snapshot):
 * the operation record, the run's interrupt flag and the presented approval with its latest
 * decision. Each part is a LEFT JOIN from a one-row table, so the row always comes back, with
 * nulls for what is absent. The row is read as an array (a 40-column object costs more to
 * build than the statement does to run). Enters: a CallStateRequest. Leaves: a CallState.
 */
import type { Database as Db, Statement } from "better-sqlite3";
import { isExpired } from "../claim.js";
import type { CallState, CallStateRequest } from "../store.js";
import { approvalColumns, approvalFromValues, eventColumns, operationColumns, operationFromValues } from "./rows.js";

// Positional parameters: operation_id (NULL: none) and tenant; read-the-interrupt flag, tenant and run_id; approval_id (NULL: none).
const callStateSql = `
SELECT ${operationColumns.map((c) => `o.${c}`).join(", ")},
  i.reason, i.at_ms,
  ${approvalColumns.map((c) => `a.${c}`).join(", ")},
  ${eventColumns.map((c) => `e.${c}`).join(", ")}
FROM (SELECT 1) AS one
LEFT JOIN operations o ON o.operation_id = ? AND o.tenant = ?
LEFT JOIN interrupts i ON ? = 1 AND i.tenant = ? AND i.run_id = ?
LEFT JOIN approvals a ON a.id = ?
LEFT JOIN approval_events e ON e.seq = (SELECT max(seq) FROM approval_events WHERE approval_id = a.id)`;

const interruptAt = operationColumns.length;
const approvalAt = interruptAt + 2;

export class SqliteCallState {
  readonly #read: Statement<unknown[], unknown[]>;

  constructor(db: Db) {
    this.#read = db.prepare<unknown[], unknown[]>(callStateSql).raw(true);
  }

  read(req: CallStateRequest): CallState {
    const v = this.#read.get(req.operation_id, req.tenant, req.interrupt ? 1 : 0, req.tenant, req.run_id, req.approval_id);
    if (v === undefined) throw new Error("call state read returned no row");
    const op = v[1] === null ? null : operationFromValues(v, 0);
    const reason = v[interruptAt] as string | null;
    return {
      operation: op !== null && !isExpired(op, req.now_ms) ? op : null,
      interrupt: reason === null ? null : { tenant: req.tenant, run_id: req.run_id, reason, at_ms: Number(v[interruptAt + 1]) },
      approval: v[approvalAt] === null ? null : approvalFromValues(v, approvalAt),
    };
  }
}
