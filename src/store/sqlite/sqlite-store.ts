/**
 * The embedded default store: one SQLite file (WAL) through better-sqlite3.
 * better-sqlite3 is synchronous, so every method body runs to completion without
 * interleaving inside one process; the read-decide-write sections also run in
 * BEGIN IMMEDIATE transactions so several processes sharing the file stay atomic.
 */
import Database from "better-sqlite3";
import type { Database as Db } from "better-sqlite3";
import { planClaim, planRecord } from "../claim.js";
import type {
  ApprovalEvent,
  ApprovalRecord,
  ClaimRequest,
  ClaimResult,
  ConsumeApprovalRequest,
  ConsumeApprovalResult,
  DecideResult,
  DecisionLogEntry,
  DecisionQuery,
  InterruptRecord,
  NewApproval,
  OperationRecord,
  RecordOutcomeRequest,
  RecordOutcomeResult,
  Store,
} from "../store.js";
import { sqliteAddedColumns, sqliteSchema, sqliteSchemaVersion } from "./schema.js";
import { toApproval, toApprovalEvent, toDecision, toOperation } from "./rows.js";
import type { ApprovalEventRow, ApprovalRow, DecisionRow, OperationRow } from "./rows.js";

export interface SqliteStoreOptions {
  /** How long a writer waits for another process's lock before failing. */
  readonly busyTimeoutMs?: number;
}

const decisionStatus = { approve: "approved", edit: "edited", reject: "rejected", revoke: "revoked" } as const;

/** Opens (and creates) the store at `path`, or an in-memory one for ":memory:". */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  db.pragma("foreign_keys = ON");
  db.exec(sqliteSchema);
  addMissingColumns(db);
  db.pragma(`user_version = ${sqliteSchemaVersion}`);
  return new SqliteStore(db);
}

function addMissingColumns(db: Db): void {
  for (const { table, column, ddl } of sqliteAddedColumns) {
    const cols = db.prepare<[], { name: string }>(`PRAGMA table_info(${table})`).all();
    if (!cols.some((c) => c.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${ddl}`);
  }
}

class SqliteStore implements Store {
  readonly kind = "sqlite";
  readonly #db: Db;
  readonly #q;

  constructor(db: Db) {
    this.#db = db;
    this.#q = {
      getOp: db.prepare<[string, string], OperationRow>("SELECT * FROM operations WHERE tenant = ? AND operation_id = ?"),
      putOp: db.prepare(
        `INSERT OR REPLACE INTO operations VALUES (@tenant, @operation_id, @tool, @fingerprint, @status, @fence_token,
           @lease_owner, @lease_expires_at_ms, @attempts, @envelope, @created_at_ms, @updated_at_ms, @expires_at_ms)`,
      ),
      insApproval: db.prepare(
        `INSERT INTO approvals (id, tenant, run_id, requested_by, tool, args, preview, fingerprint, operation_id,
           created_at_ms, expires_at_ms, policy_version, status, args_hash, policy_code_version, policy_data_version)
         VALUES (@id, @tenant, @run_id, @requested_by, @tool, @args, @preview, @fingerprint,
           @operation_id, @created_at_ms, @expires_at_ms, @policy_version, 'pending', @args_hash,
           @policy_code_version, @policy_data_version)`,
      ),
      getApproval: db.prepare<[string], ApprovalRow>("SELECT * FROM approvals WHERE id = ?"),
      findPending: db.prepare<[string, string, number, string | null, string | null], ApprovalRow>(
        `SELECT * FROM approvals WHERE tenant = ? AND fingerprint = ? AND status = 'pending' AND expires_at_ms > ?
           AND (? IS NULL OR args_hash = ?)
         ORDER BY created_at_ms DESC, rowid DESC LIMIT 1`,
      ),
      consume: db.prepare<[string, number, string, string, string]>(
        `UPDATE approvals SET consumed_by = ?, consumed_at_ms = ?
          WHERE id = ? AND tenant = ? AND status = 'approved' AND consumed_by IS NULL AND operation_id IS ?`,
      ),
      setApprovalStatus: db.prepare<[string, string]>("UPDATE approvals SET status = ? WHERE id = ?"),
      insEvent: db.prepare(
        `INSERT INTO approval_events (approval_id, decision, approver, reason, edited_args, decided_at_ms, policy_version,
           approver_roles, policy_code_version, policy_data_version)
         VALUES (@approval_id, @decision, @approver, @reason, @edited_args, @decided_at_ms, @policy_version,
           @approver_roles, @policy_code_version, @policy_data_version)`,
      ),
      events: db.prepare<[string], ApprovalEventRow>("SELECT * FROM approval_events WHERE approval_id = ? ORDER BY seq"),
      putInterrupt: db.prepare("INSERT OR REPLACE INTO interrupts VALUES (@tenant, @run_id, @reason, @at_ms)"),
      getInterrupt: db.prepare<[string, string], InterruptRecord>("SELECT * FROM interrupts WHERE tenant = ? AND run_id = ?"),
      delInterrupt: db.prepare<[string, string]>("DELETE FROM interrupts WHERE tenant = ? AND run_id = ?"),
      insDecision: db.prepare(
        `INSERT INTO decision_log (at_ms, tenant, run_id, user, tool, operation_id, fingerprint, decision, reason,
           policy_version, outcome, outcome_reason)
         VALUES (@at_ms, @tenant, @run_id, @user, @tool, @operation_id, @fingerprint, @decision, @reason,
           @policy_version, @outcome, @outcome_reason)`,
      ),
      purgeOps: db.prepare<[number]>("DELETE FROM operations WHERE expires_at_ms <= ?"),
    };
  }

  #readOp(tenant: string, operationId: string): OperationRecord | null {
    const row = this.#q.getOp.get(tenant, operationId);
    return row === undefined ? null : toOperation(row);
  }

  #writeOp(rec: OperationRecord): void {
    this.#q.putOp.run({ ...rec, envelope: rec.envelope === null ? null : JSON.stringify(rec.envelope) });
  }

  #approval(id: string): ApprovalRecord | null {
    const row = this.#q.getApproval.get(id);
    if (row === undefined) return null;
    const events = this.#q.events.all(id);
    const last = events.at(-1);
    return toApproval(row, last === undefined ? null : toApprovalEvent(last));
  }

  async getOperation(tenant: string, operationId: string, nowMs: number): Promise<OperationRecord | null> {
    const rec = this.#readOp(tenant, operationId);
    return rec !== null && rec.expires_at_ms > nowMs ? rec : null;
  }

  async claimOperation(req: ClaimRequest): Promise<ClaimResult> {
    const run = this.#db.transaction((): ClaimResult => {
      const plan = planClaim(this.#readOp(req.tenant, req.operation_id), req);
      if (plan.write !== null) this.#writeOp(plan.write);
      return plan.result;
    });
    return run.immediate();
  }

  async recordOutcome(req: RecordOutcomeRequest): Promise<RecordOutcomeResult> {
    const run = this.#db.transaction((): RecordOutcomeResult => {
      const plan = planRecord(this.#readOp(req.tenant, req.operation_id), req);
      if (plan.write !== null) this.#writeOp(plan.write);
      return plan.result;
    });
    return run.immediate();
  }

  async createApproval(a: NewApproval): Promise<ApprovalRecord> {
    this.#q.insApproval.run({ ...a, args: JSON.stringify(a.args), preview: JSON.stringify(a.preview) });
    return { ...a, status: "pending", decision: null, consumed_by: null, consumed_at_ms: null };
  }

  async getApproval(id: string): Promise<ApprovalRecord | null> {
    return this.#approval(id);
  }

  async findPendingApproval(tenant: string, fingerprint: string, nowMs: number, argsHash?: string): Promise<ApprovalRecord | null> {
    const row = this.#q.findPending.get(tenant, fingerprint, nowMs, argsHash ?? null, argsHash ?? null);
    return row === undefined ? null : toApproval(row, null);
  }

  async decideApproval(event: ApprovalEvent): Promise<DecideResult> {
    const run = this.#db.transaction((): DecideResult => {
      const current = this.#approval(event.approval_id);
      if (current === null) return { ok: false, why: "not_found", approval: null };
      if (event.decision === "revoke") {
        if (current.status !== "pending" && current.status !== "approved") return { ok: false, why: "already_decided", approval: current };
      } else {
        if (current.status !== "pending") return { ok: false, why: "already_decided", approval: current };
        if (current.expires_at_ms <= event.decided_at_ms) return { ok: false, why: "expired", approval: current };
      }
      this.#q.insEvent.run({
        ...event,
        approver_roles: JSON.stringify(event.approver_roles),
        edited_args: event.edited_args === null ? null : JSON.stringify(event.edited_args),
      });
      this.#q.setApprovalStatus.run(decisionStatus[event.decision], event.approval_id);
      return { ok: true, approval: { ...current, status: decisionStatus[event.decision], decision: event } };
    });
    return run.immediate();
  }

  async consumeApproval(req: ConsumeApprovalRequest): Promise<ConsumeApprovalResult> {
    const run = this.#db.transaction((): ConsumeApprovalResult => {
      const changed = this.#q.consume.run(req.operation_id, req.now_ms, req.approval_id, req.tenant, req.operation_id).changes;
      if (changed === 1) return { ok: true };
      const current = this.#approval(req.approval_id);
      if (current === null || current.tenant !== req.tenant || current.status !== "approved") return { ok: false, why: "not_approved" };
      if (current.consumed_by === req.operation_id) return { ok: true };
      return { ok: false, why: current.consumed_by === null ? "not_approved" : "already_consumed" };
    });
    return run.immediate();
  }

  async listApprovalEvents(approvalId: string): Promise<ApprovalEvent[]> {
    return this.#q.events.all(approvalId).map(toApprovalEvent);
  }

  async setInterrupt(rec: InterruptRecord): Promise<void> {
    this.#q.putInterrupt.run(rec);
  }

  async getInterrupt(tenant: string, runId: string): Promise<InterruptRecord | null> {
    const row = this.#q.getInterrupt.get(tenant, runId);
    return row === undefined ? null : { ...row, at_ms: Number(row.at_ms) };
  }

  async clearInterrupt(tenant: string, runId: string): Promise<void> {
    this.#q.delInterrupt.run(tenant, runId);
  }

  async appendDecision(entry: DecisionLogEntry): Promise<void> {
    this.#q.insDecision.run(entry);
  }

  async listDecisions(query: DecisionQuery = {}): Promise<DecisionLogEntry[]> {
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (query.tenant !== undefined) (where.push("tenant = ?"), params.push(query.tenant));
    if (query.operation_id !== undefined) (where.push("operation_id = ?"), params.push(query.operation_id));
    const sql = `SELECT * FROM decision_log ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY seq DESC LIMIT ?`;
    const rows = this.#db.prepare<(string | number)[], DecisionRow>(sql).all(...params, query.limit ?? 1000);
    return rows.map(toDecision);
  }

  async purgeExpired(nowMs: number): Promise<number> {
    return this.#q.purgeOps.run(nowMs).changes;
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}
