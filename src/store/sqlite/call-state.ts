/**
 * What authorize reads about a call, in one statement (one read transaction, one snapshot):
 * the operation record, the run's interrupt flag and the presented approval with its latest
 * decision. Each part is a LEFT JOIN from a one-row table, so the row always comes back with
 * nulls for what is absent. Enters: a CallStateRequest. Leaves: a CallState.
 */
import type { Database as Db, Statement } from "better-sqlite3";
import { isExpired } from "../claim.js";
import type { CallState, CallStateRequest } from "../store.js";
import { toApprovalWithEvent, toOperation } from "./rows.js";
import type { ApprovalWithEventRow, OperationRow } from "./rows.js";

const operationColumns = [
  "tenant", "operation_id", "tool", "fingerprint", "status", "fence_token", "lease_owner", "lease_expires_at_ms",
  "attempts", "envelope", "created_at_ms", "updated_at_ms", "expires_at_ms",
] as const;
const approvalColumns = [
  "id", "tenant", "run_id", "requested_by", "tool", "args", "preview", "fingerprint", "operation_id", "created_at_ms",
  "expires_at_ms", "policy_version", "status", "args_hash", "policy_code_version", "policy_data_version", "consumed_by", "consumed_at_ms",
] as const;
const eventColumns = [
  "decision", "approver", "reason", "edited_args", "decided_at_ms", "policy_version", "approver_roles", "policy_code_version", "policy_data_version",
] as const;

type Nullable<T> = { [K in keyof T]: T[K] | null };
type Prefixed<T, P extends string> = { [K in keyof T & string as `${P}${K}`]: T[K] };

/** Operation columns prefixed `o_`, interrupt `i_`, approval `a_`, latest event `e_`; all null when absent. */
type CallStateRow = Prefixed<Nullable<OperationRow>, "o_"> &
  Prefixed<Nullable<Omit<ApprovalWithEventRow, `e_${string}`>>, "a_"> &
  Pick<ApprovalWithEventRow, `e_${string}` & keyof ApprovalWithEventRow> & { i_reason: string | null; i_at_ms: number | null };

// Positional parameters: operation_id (NULL: none) and tenant; read-the-interrupt flag, tenant and run_id; approval_id (NULL: none).
const callStateSql = `
SELECT ${operationColumns.map((c) => `o.${c} AS o_${c}`).join(", ")},
  i.reason AS i_reason, i.at_ms AS i_at_ms,
  ${approvalColumns.map((c) => `a.${c} AS a_${c}`).join(", ")},
  ${eventColumns.map((c) => `e.${c} AS e_${c}`).join(", ")}
FROM (SELECT 1) AS one
LEFT JOIN operations o ON o.operation_id = ? AND o.tenant = ?
LEFT JOIN interrupts i ON ? = 1 AND i.tenant = ? AND i.run_id = ?
LEFT JOIN approvals a ON a.id = ?
LEFT JOIN approval_events e ON e.seq = (SELECT max(seq) FROM approval_events WHERE approval_id = a.id)`;

export class SqliteCallState {
  readonly #read: Statement<unknown[], CallStateRow>;

  constructor(db: Db) {
    this.#read = db.prepare<unknown[], CallStateRow>(callStateSql);
  }

  read(req: CallStateRequest): CallState {
    const row = this.#read.get(req.operation_id, req.tenant, req.interrupt ? 1 : 0, req.tenant, req.run_id, req.approval_id);
    if (row === undefined) throw new Error("call state read returned no row");
    const op = row.o_operation_id === null ? null : toOperation(unprefixed(row, "o_", operationColumns) as unknown as OperationRow);
    let approval = null;
    if (row.a_id !== null) {
      const a = unprefixed(row, "a_", approvalColumns);
      const source = row as unknown as Record<string, unknown>;
      for (const c of eventColumns) a[`e_${c}`] = source[`e_${c}`];
      approval = toApprovalWithEvent(a as unknown as ApprovalWithEventRow);
    }
    return {
      operation: op !== null && !isExpired(op, req.now_ms) ? op : null,
      interrupt: row.i_reason === null ? null : { tenant: req.tenant, run_id: req.run_id, reason: row.i_reason, at_ms: Number(row.i_at_ms) },
      approval,
    };
  }
}

function unprefixed(row: CallStateRow, prefix: string, columns: readonly string[]): Record<string, unknown> {
  const source = row as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const c of columns) out[c] = source[`${prefix}${c}`];
  return out;
}
