/**
 * The approvals inbox on SQLite: listing a tenant's approvals page by page, and the
 * pending call behind each approval (what the host runs after the decision).
 */
import type { Database as Db } from "better-sqlite3";
import type { ApprovalListQuery, ApprovalRecord, NewPendingCall, PendingCall } from "../store.js";
import { toPendingCallRecord } from "../rows.js";
import type { PendingCallColumns } from "../rows.js";
import { parseJson, toApproval, toApprovalEvent } from "./rows.js";
import type { ApprovalEventRow, ApprovalRow } from "./rows.js";

type PendingCallRow = PendingCallColumns<string>;

const toPendingCall = (row: PendingCallRow): PendingCall => toPendingCallRecord(row, parseJson);

const insertSql = `INSERT OR IGNORE INTO pending_calls
  (approval_id, tenant, run_id, user_id, roles, tool, args, operation_id, policy_reason, created_at_ms, replaced_by, announced_at_ms)
  VALUES (@approval_id, @tenant, @run_id, @user, @roles, @tool, @args, @operation_id, @policy_reason, @created_at_ms, NULL, NULL)`;

const params = (c: NewPendingCall) => ({ ...c, roles: JSON.stringify(c.roles), args: JSON.stringify(c.args) });

export class SqliteInbox {
  readonly #db: Db;
  readonly #q;

  constructor(db: Db) {
    this.#db = db;
    this.#q = {
      insert: db.prepare(insertSql),
      get: db.prepare<[string], PendingCallRow>("SELECT * FROM pending_calls WHERE approval_id = ?"),
      replace: db.prepare<[string, string]>("UPDATE pending_calls SET replaced_by = ? WHERE approval_id = ?"),
      lastEvent: db.prepare<[string], ApprovalEventRow>("SELECT * FROM approval_events WHERE approval_id = ? ORDER BY seq DESC LIMIT 1"),
      unannounced: db.prepare<[number], PendingCallRow>(
        `SELECT p.* FROM pending_calls p JOIN approvals a ON a.id = p.approval_id
          WHERE p.announced_at_ms IS NULL AND a.status = 'pending' ORDER BY p.created_at_ms, p.approval_id LIMIT ?`,
      ),
      mark: db.prepare<[number | null, string]>("UPDATE pending_calls SET announced_at_ms = ? WHERE approval_id = ?"),
    };
  }

  list(q: ApprovalListQuery): ApprovalRecord[] {
    const where = ["tenant = ?"];
    const args: (string | number)[] = [q.tenant];
    if (q.tool !== undefined) (where.push("tool = ?"), args.push(q.tool));
    if (q.status !== undefined) (where.push("status = ?"), args.push(q.status));
    if (q.requested_by !== undefined) (where.push("requested_by = ?"), args.push(q.requested_by));
    if (q.created_before_ms !== undefined) (where.push("created_at_ms < ?"), args.push(q.created_before_ms));
    if (q.after !== undefined) {
      where.push("(created_at_ms < ? OR (created_at_ms = ? AND id < ?))");
      args.push(q.after.created_at_ms, q.after.created_at_ms, q.after.id);
    }
    const sql = `SELECT * FROM approvals WHERE ${where.join(" AND ")} ORDER BY created_at_ms DESC, id DESC LIMIT ?`;
    const rows = this.#db.prepare<(string | number)[], ApprovalRow>(sql).all(...args, q.limit);
    return rows.map((row) => {
      const last = this.#q.lastEvent.get(row.id);
      return toApproval(row, last === undefined ? null : toApprovalEvent(last));
    });
  }

  save(call: NewPendingCall): boolean {
    return this.#q.insert.run(params(call)).changes === 1;
  }

  get(approvalId: string): PendingCall | null {
    const row = this.#q.get.get(approvalId);
    return row === undefined ? null : toPendingCall(row);
  }

  replace(approvalId: string, replacement: NewPendingCall): void {
    this.#db
      .transaction(() => {
        this.#q.insert.run(params(replacement));
        this.#q.replace.run(replacement.approval_id, approvalId);
      })
      .immediate();
  }

  claimAnnouncements(nowMs: number, limit: number): PendingCall[] {
    return this.#db
      .transaction(() => {
        const rows = this.#q.unannounced.all(limit);
        for (const row of rows) this.#q.mark.run(nowMs, row.approval_id);
        return rows.map((row) => toPendingCall({ ...row, announced_at_ms: nowMs }));
      })
      .immediate();
  }

  unmark(approvalId: string): void {
    this.#q.mark.run(null, approvalId);
  }
}
