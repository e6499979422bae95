/**
 * The embedded default store: one SQLite file (WAL) through better-sqlite3.
 * better-sqlite3 is synchronous, so every method body runs to completion without
 * interleaving inside one process; the read-decide-write sections also run in
 * BEGIN IMMEDIATE transactions so several processes sharing the file stay atomic.
 */
import Database from "better-sqlite3";
import type { JsonObject } from "../../manifest.js";
import type { Database as Db } from "better-sqlite3";
import { recordedOperation, recordedOperationColumns } from "../rows.js";
import { checkGuard, checkLimits, isExpired, planClaim, planRecord, planRefund, refundChangedColumns } from "../claim.js";
import { explainConsume, planStoreDecision } from "../decision-plan.js";
import type {
  RunHistoryEntry,
  RunHistoryRequest,
  LimitFigures,
  LimitFiguresRequest,
  ApprovalRequirement,
  ApprovalVote,
  ApproverCredential,
  DecisionSignature,
  ApprovalEvent,
  ApprovalListQuery,
  ApprovalRecord,
  ApprovalStatus,
  CallState,
  CallStateRequest,
  ClaimFirstRequest,
  ClaimFirstResult,
  ClaimRequest,
  ClaimResult,
  ConsumeApprovalRequest,
  ConsumeApprovalResult,
  CurrentPolicyRecord,
  DecideResult,
  DecisionLogEntry,
  DecisionLogRecord,
  DecisionQuery,
  InterruptRecord,
  NewApproval,
  NewPendingCall,
  OperationRecord,
  PendingCall,
  RecordOutcomeRequest,
  RecordOutcomeResult,
  RefundAttemptRequest,
  Store,
} from "../store.js";
import { backstopCheckpointPages, defaultCheckpointIntervalMs, startCheckpointer } from "./checkpointer.js";
import type { CheckpointHandle } from "./checkpointer.js";
import { SqliteCallState } from "./call-state.js";
import { SqliteInbox } from "./inbox.js";
import { ensureLimitEntries, SqliteLimits } from "./limits.js";
import { SqlitePasskeys } from "./passkeys.js";
import { DecisionBatch } from "../decision-batch.js";
import type { DecisionLogOptions } from "../decision-batch.js";
import type { ChainSnapshot } from "../chain/records.js";
import { ChainLinker, readSqliteChain, sqliteChainSchema, sqliteChainTriggers } from "./audit-chain.js";
import { ensureSqliteColumns, SqliteDecisionLog } from "./decision-log.js";
import { migrateSqliteFile } from "./migrate.js";
import { sqliteSchema, sqliteSchemaVersion } from "./schema.js";
import { approvalColumns, approvalFromValues, eventColumns, operationColumns, operationFromValues, toApproval, toApprovalEvent } from "./rows.js";
import type { ApprovalEventRow, ApprovalRow } from "./rows.js";

export interface SqliteStoreOptions {
  /** How long a writer waits for another process's lock before failing. */
  readonly busyTimeoutMs?: number;
  /** Group commit of the decision log (default batched) or synchronous audit. */
  readonly decisionLog?: DecisionLogOptions;
  /** Receives the text of every statement the store runs (diagnostics; tests count commits with it). */
  readonly trace?: (sql: string) => void;
  /**
   * Where WAL checkpoints (the only fsyncs under `synchronous = NORMAL`) run. `background`
   * (default for files): a worker thread checkpoints every `checkpointIntervalMs` (default
   * 200) and a commit checkpoints itself only past a backstop of 10,000 WAL pages, so no call
   * waits for an fsync; the durability is the same (a commit survives a crash of the process;
   * on power loss, commits since the last checkpoint may be lost, as with SQLite's own
   * checkpoints). `inline`: SQLite's automatic checkpoint every 1,000 pages, in the commit.
   */
  readonly walCheckpoint?: "background" | "inline";
  readonly checkpointIntervalMs?: number;
}

const setColumns = (columns: readonly string[]): string => columns.map((c) => `${c} = ?`).join(", ");

/** The values of `columns` in `rec`, the envelope as JSON text. */
const columnValues = (rec: OperationRecord, columns: readonly (keyof OperationRecord)[]): unknown[] =>
  columns.map((c) => (c === "envelope" ? (rec.envelope === null ? null : JSON.stringify(rec.envelope)) : rec[c]));

/** Opens (and creates) the store at `path`, or an in-memory one for ":memory:". */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  const db = new Database(path, options.trace === undefined ? {} : { verbose: (sql: unknown) => options.trace?.(String(sql)) });
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  db.pragma("foreign_keys = ON");
  db.exec(sqliteSchema);
  db.exec(sqliteChainSchema);
  ensureLimitEntries(db);
  ensureSqliteColumns(db);
  db.exec(sqliteChainTriggers);
  migrateSqliteFile(db);
  db.pragma(`user_version = ${sqliteSchemaVersion}`);
  let checkpointer: CheckpointHandle | null = null;
  if ((options.walCheckpoint ?? "background") === "background" && !db.memory) {
    db.pragma(`wal_autocheckpoint = ${backstopCheckpointPages}`);
    const onError = options.decisionLog?.onError;
    const report = (message: string): void =>
      onError === undefined ? void process.stderr.write(`toolgate sqlite checkpoint: ${message}\n`) : onError(new Error(`WAL checkpoint of ${db.name}: ${message}`));
    checkpointer = startCheckpointer(db.name, options.checkpointIntervalMs ?? defaultCheckpointIntervalMs, report);
  }
  return new SqliteStore(db, options.decisionLog ?? {}, checkpointer);
}

class SqliteStore implements Store {
  readonly kind = "sqlite";
  readonly #db: Db;
  readonly #q;
  readonly #inbox: SqliteInbox;
  readonly #passkeys: SqlitePasskeys;
  readonly #log: SqliteDecisionLog;
  readonly #chain: ChainLinker;
  readonly #callState: SqliteCallState;
  readonly #limits: SqliteLimits;
  readonly #batch: DecisionBatch;
  /** Runs `fn` in BEGIN IMMEDIATE ... COMMIT (one transaction function, made once: making one costs per call). */
  readonly #atomic: <R>(fn: () => R) => R;

  readonly #checkpointer: CheckpointHandle | null;

  constructor(db: Db, logOptions: DecisionLogOptions, checkpointer: CheckpointHandle | null) {
    this.#db = db;
    this.#checkpointer = checkpointer;
    const immediate = db.transaction((fn: () => unknown) => fn()).immediate;
    this.#atomic = <R>(fn: () => R): R => immediate(fn) as R;
    this.#inbox = new SqliteInbox(db);
    this.#passkeys = new SqlitePasskeys(db);
    this.#chain = new ChainLinker(db);
    this.#log = new SqliteDecisionLog(db, logOptions.chain !== false);
    this.#callState = new SqliteCallState(db);
    this.#limits = new SqliteLimits(db);
    // The writer's body is synchronous, so the exit-time flush really writes.
    this.#batch = new DecisionBatch(async (entries) => {
      if (!this.#db.open) throw new Error(`the SQLite store was closed; ${entries.length} decision-log entries not written`);
      this.#log.insertMany(entries);
    }, logOptions);
    this.#q = {
      // Hot reads return arrays (`.raw()`), in the column order of ./rows.ts.
      getOp: db.prepare<[string, string], unknown[]>(`SELECT ${operationColumns.join(", ")} FROM operations WHERE tenant = ? AND operation_id = ?`).raw(true),
      // The operation's columns (all null when there is none), then the guard's: interrupt reason, approval tenant, status, expiry.
      // Parameters: operation_id, tenant; guarded, tenant, run_id; guarded, approval_id.
      claimState: db.prepare<unknown[], unknown[]>(
        `SELECT ${operationColumns.map((c) => `o.${c}`).join(", ")}, i.reason, a.tenant, a.status, a.expires_at_ms, a.requested_by, a.run_id
         FROM (SELECT 1) AS one
         LEFT JOIN operations o ON o.operation_id = ? AND o.tenant = ?
         LEFT JOIN interrupts i ON ? = 1 AND i.tenant = ? AND i.run_id = ?
         LEFT JOIN approvals a ON ? = 1 AND a.id = ?`,
      ).raw(true),
      insOp: db.prepare("INSERT INTO operations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
      // The claim of a key with no record, in one statement: the new record, inserted only when
      // there is none and the guard holds (checkGuard's rules: no interrupt of the run; the
      // approval, when asked for, of this tenant, approved and unexpired). Parameters: the values
      // of `operationColumns`; guarded, tenant, run_id; approval asked for, approval_id, tenant, now.
      insFresh: db.prepare<unknown[]>(
        `INSERT INTO operations (${operationColumns.join(", ")}) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
         WHERE NOT EXISTS (SELECT 1 FROM interrupts WHERE ? = 1 AND tenant = ? AND run_id = ?)
           AND (? = 0 OR EXISTS (SELECT 1 FROM approvals WHERE id = ? AND tenant = ? AND status = 'approved' AND expires_at_ms > ?
             AND (? IS NULL OR (requested_by = ? AND run_id = ?))))
         ON CONFLICT DO NOTHING`,
      ),
      // An outcome and a refund set only the columns they change (claim.ts `recordChangedColumns`,
      // `refundChangedColumns`): an UPDATE rewrites the entries of the indexes over the columns it
      // sets (here operations_expiry), so leaving expires_at_ms out spares that index page.
      // The outcome is planRecord in one statement: written only under the current fence token and
      // never over a final outcome, answering the columns of the written record the request does
      // not carry (a "no" is explained by reading the record). The lease is kept (third parameter
      // 1) only for keep_lease with an unknown outcome, else it ends at now at the latest.
      recordOutcome: db.prepare<unknown[], unknown[]>(
        `UPDATE operations SET status = ?, envelope = ?, lease_expires_at_ms = CASE WHEN ? = 1 THEN lease_expires_at_ms ELSE min(lease_expires_at_ms, ?) END,
           updated_at_ms = ?
         WHERE tenant = ? AND operation_id = ? AND fence_token = ? AND status <> 'final'
         RETURNING ${recordedOperationColumns.join(", ")}`,
      ).raw(true),
      updAttempts: db.prepare<unknown[]>(`UPDATE operations SET ${setColumns(refundChangedColumns)} WHERE tenant = ? AND operation_id = ?`),
      updOp: db.prepare(
        `UPDATE operations SET tool = ?, fingerprint = ?, status = ?, fence_token = ?, lease_owner = ?, lease_expires_at_ms = ?,
           attempts = ?, envelope = ?, created_at_ms = ?, updated_at_ms = ?, expires_at_ms = ? WHERE tenant = ? AND operation_id = ?`,
      ),
      insApproval: db.prepare(
        `INSERT INTO approvals (id, tenant, run_id, requested_by, tool, args, preview, fingerprint, operation_id,
           created_at_ms, expires_at_ms, policy_version, status, args_hash, policy_code_version, policy_data_version)
         VALUES (@id, @tenant, @run_id, @requested_by, @tool, @args, @preview, @fingerprint,
           @operation_id, @created_at_ms, @expires_at_ms, @policy_version, 'pending', @args_hash,
           @policy_code_version, @policy_data_version)`,
      ),
      // The approval and its latest decision event in one statement.
      getApprovalWithEvent: db.prepare<[string], unknown[]>(
        `SELECT ${approvalColumns.map((c) => `a.${c}`).join(", ")}, ${eventColumns.map((c) => `e.${c}`).join(", ")}
         FROM approvals a
         LEFT JOIN approval_events e ON e.seq = (SELECT max(seq) FROM approval_events WHERE approval_id = a.id)
         WHERE a.id = ?`,
      ).raw(true),
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
      getInterrupt: db.prepare<[string, string], [string, number]>("SELECT reason, at_ms FROM interrupts WHERE tenant = ? AND run_id = ?").raw(true),
      delInterrupt: db.prepare<[string, string]>("DELETE FROM interrupts WHERE tenant = ? AND run_id = ?"),
      putPolicy: db.prepare(
        `INSERT OR REPLACE INTO current_policy (entrypoint, version, code_version, data_version, owner, updated_at_ms)
         VALUES (@entrypoint, @version, @code_version, @data_version, @owner, @updated_at_ms)`,
      ),
      getPolicy: db.prepare<[string], CurrentPolicyRecord>("SELECT * FROM current_policy WHERE entrypoint = ?"),
      // Only a fresh claim whose handler never ran: same token, owner and creation, one attempt
      // (a takeover increments the token, so token and attempts also say "never taken over").
      releaseOp: db.prepare<[string, string, number, string, number]>(
        `DELETE FROM operations WHERE tenant = ? AND operation_id = ? AND fence_token = ? AND lease_owner = ? AND created_at_ms = ?
           AND status = 'in_progress' AND attempts = 1`,
      ),
      purgeOps: db.prepare<[number, number]>("DELETE FROM operations WHERE expires_at_ms <= ? AND lease_expires_at_ms <= ?"),
      // Rows that refer to a purged approval go with it (PostgreSQL: ON DELETE CASCADE / SET NULL).
      purgeApprovalRefs: [
        "DELETE FROM pending_calls WHERE approval_id IN (SELECT id FROM approvals WHERE status = 'expired' OR (status = 'pending' AND expires_at_ms <= @now))",
        "UPDATE pending_calls SET replaced_by = NULL WHERE replaced_by IN (SELECT id FROM approvals WHERE status = 'expired' OR (status = 'pending' AND expires_at_ms <= @now))",
        "DELETE FROM approval_events WHERE approval_id IN (SELECT id FROM approvals WHERE status = 'expired' OR (status = 'pending' AND expires_at_ms <= @now))",
      ].map((sql) => db.prepare<[{ now: number }]>(sql)),
      purgeApprovals: db.prepare<[{ now: number }]>("DELETE FROM approvals WHERE status = 'expired' OR (status = 'pending' AND expires_at_ms <= @now)"),
    };
  }

  #readOp(tenant: string, operationId: string): OperationRecord | null {
    const row = this.#q.getOp.get(tenant, operationId);
    return row === undefined ? null : operationFromValues(row, 0);
  }

  /** `existing`: the row is there (every column is updated, the key stays); else it is inserted (the caller read it absent in this transaction). */
  #writeOp(rec: OperationRecord, existing: boolean): void {
    const envelope = rec.envelope === null ? null : JSON.stringify(rec.envelope);
    if (existing) {
      this.#q.updOp.run(rec.tool, rec.fingerprint, rec.status, rec.fence_token, rec.lease_owner, rec.lease_expires_at_ms, rec.attempts, envelope,
        rec.created_at_ms, rec.updated_at_ms, rec.expires_at_ms, rec.tenant, rec.operation_id);
      return;
    }
    this.#q.insOp.run(rec.tenant, rec.operation_id, rec.tool, rec.fingerprint, rec.status, rec.fence_token, rec.lease_owner, rec.lease_expires_at_ms,
      rec.attempts, envelope, rec.created_at_ms, rec.updated_at_ms, rec.expires_at_ms);
  }

  #approval(id: string): ApprovalRecord | null {
    const row = this.#q.getApprovalWithEvent.get(id);
    return row === undefined ? null : approvalFromValues(row, 0);
  }

  async getOperation(tenant: string, operationId: string, nowMs: number): Promise<OperationRecord | null> {
    const rec = this.#readOp(tenant, operationId);
    return rec !== null && !isExpired(rec, nowMs) ? rec : null;
  }

  async readRunHistory(req: RunHistoryRequest): Promise<RunHistoryEntry[]> {
    await this.#batch.flush();
    const rows = this.#db
      .prepare<[string, string, number], RunHistoryEntry>(
        "SELECT tool, decision, outcome, outcome_reason, at_ms FROM decision_log WHERE tenant = ? AND run_id = ? ORDER BY seq DESC LIMIT ?",
      )
      .all(req.tenant, req.run_id, req.limit);
    return rows.reverse();
  }

  async readLimitFigures(req: LimitFiguresRequest): Promise<Record<string, LimitFigures>> {
    return this.#limits.figures(req);
  }

  async claimOperation(req: ClaimRequest): Promise<ClaimResult> {
    const limits = req.limits ?? [];
    return this.#atomic((): ClaimResult => {
      // Most claims are of a new key: one statement inserts the record when the guard holds.
      // A claim with limits decides with the figures first (below), in this same transaction.
      const fresh = limits.length === 0 ? this.#claimFresh(req) : null;
      if (fresh !== null) return fresh;
      // Otherwise one statement reads the record and what the guard checks, and the rules decide.
      const guarded = req.guard === undefined ? 0 : 1;
      const v = this.#q.claimState.get(req.operation_id, req.tenant, guarded, req.tenant, req.guard?.run_id ?? null, guarded, req.guard?.approval_id ?? null);
      if (v === undefined) throw new Error("claim state read returned no row");
      if (req.guard !== undefined) {
        const g = operationColumns.length;
        const interrupt = v[g] as string | null;
        const approvalTenant = v[g + 1] as string | null;
        const refused = checkGuard(req, {
          interrupt: interrupt === null ? null : { reason: interrupt },
          approval:
            approvalTenant === null
              ? null
              : { tenant: approvalTenant, status: v[g + 2] as ApprovalStatus, expires_at_ms: Number(v[g + 3]), requested_by: v[g + 4] as string, run_id: v[g + 5] as string },
        });
        if (refused !== null) return refused;
      }
      const current = v[1] === null ? null : operationFromValues(v, 0);
      const plan = planClaim(current, req);
      if (plan.write !== null && limits.length > 0) {
        const refused = checkLimits(req, this.#limits.figures({ tenant: req.tenant, operation_id: req.operation_id, now_ms: req.now_ms, keys: limits }));
        if (refused !== null) return refused;
        this.#limits.record(plan.write, limits);
      }
      if (plan.write !== null) this.#writeOp(plan.write, current !== null);
      return plan.result;
    });
  }

  /** The claim of a key that has no record, when the guard holds; null (nothing written) otherwise. */
  #claimFresh(req: ClaimRequest): ClaimResult | null {
    const { write: rec, result } = planClaim(null, req);
    if (rec === null) return null;
    const guarded = req.guard === undefined ? 0 : 1;
    const approvalId = req.guard?.approval_id ?? null;
    const inserted = this.#q.insFresh.run(
      rec.tenant, rec.operation_id, rec.tool, rec.fingerprint, rec.status, rec.fence_token, rec.lease_owner, rec.lease_expires_at_ms,
      rec.attempts, rec.envelope === null ? null : JSON.stringify(rec.envelope), rec.created_at_ms, rec.updated_at_ms, rec.expires_at_ms,
      guarded, req.tenant, req.guard?.run_id ?? null, approvalId === null ? 0 : 1, approvalId, req.tenant, req.now_ms,
      req.guard?.requested_by ?? null, req.guard?.requested_by ?? null, req.guard?.run_id ?? null,
    ).changes;
    return inserted === 1 ? result : null;
  }

  async readCallState(req: CallStateRequest): Promise<CallState> {
    return this.#callState.read(req);
  }

  async claimFirst(req: ClaimFirstRequest): Promise<ClaimFirstResult> {
    const limits = req.limits ?? [];
    return this.#atomic((): ClaimFirstResult => {
      // With limits: the figures under the one writer, and the claim only when the call fits.
      const figures = limits.length === 0 ? undefined : this.#limits.figures({ tenant: req.tenant, operation_id: req.operation_id, now_ms: req.now_ms, keys: limits });
      const fits = figures === undefined || checkLimits({ ...req, limits: limits.map((l) => ({ ...l, seen: null })) }, figures) === null;
      const fresh = fits ? this.#claimFresh(req) : null;
      if (figures !== undefined && fresh?.kind === "claimed") this.#limits.record(fresh.record, limits);
      const counted = figures === undefined ? {} : { figures };
      const read = { tenant: req.tenant, run_id: req.guard.run_id, operation_id: req.operation_id, approval_id: req.guard.approval_id, interrupt: req.interrupt, now_ms: req.now_ms };
      if (fresh === null || fresh.kind !== "claimed") return { claimed: null, state: this.#callState.read(read), ...counted };
      // Inserted: no record existed and the guard held (no interrupt), so only the approval is read.
      return { claimed: fresh, state: this.#callState.read({ ...read, operation_id: null, interrupt: false }), ...counted };
    });
  }

  async releaseClaim(claim: OperationRecord): Promise<boolean> {
    return this.#q.releaseOp.run(claim.tenant, claim.operation_id, claim.fence_token, claim.lease_owner, claim.created_at_ms).changes === 1;
  }

  async recordOutcome(req: RecordOutcomeRequest): Promise<RecordOutcomeResult> {
    // Entries still queued go first, in this transaction, so the log keeps the order of decisions.
    // Nothing is waited for: this store's batch writes run synchronously when they start, so
    // every earlier entry not queued is already committed (or reported failed).
    const queued = req.decision === undefined || this.#batch.pending === 0 ? [] : this.#batch.take();
    const run = (): RecordOutcomeResult => {
      const result = this.#recordOutcome(req);
      if (result.recorded && req.consume_approval_id !== undefined && req.status !== "retryable") {
        this.#q.consume.run(req.operation_id, req.now_ms, req.consume_approval_id, req.tenant, req.operation_id);
      }
      const entries = result.recorded && req.decision !== undefined ? [...queued, req.decision] : queued;
      if (entries.length > 0) this.#log.insertRows(entries);
      return result;
    };
    try {
      return this.#atomic(run);
    } catch (err) {
      this.#batch.putBack(queued);
      throw err;
    }
  }

  /** The outcome's write (as `planRecord` decides it) in one statement; a record is read only to say why not. */
  #recordOutcome(req: RecordOutcomeRequest): RecordOutcomeResult {
    const keep = req.keep_lease === true && req.status === "unknown" ? 1 : 0;
    const v = this.#q.recordOutcome.get(req.status, JSON.stringify(req.envelope), keep, req.now_ms, req.now_ms, req.tenant, req.operation_id, req.fence_token);
    if (v !== undefined) return { recorded: true, record: recordedOperation(req, v) };
    const plan = planRecord(this.#readOp(req.tenant, req.operation_id), req);
    if (plan.write !== null) throw new Error(`the outcome of ${req.operation_id} was neither written nor refused`);
    return plan.result;
  }

  async refundAttempt(req: RefundAttemptRequest): Promise<boolean> {
    return this.#atomic((): boolean => {
      const next = planRefund(this.#readOp(req.tenant, req.operation_id), req);
      if (next !== null) this.#q.updAttempts.run(...columnValues(next, refundChangedColumns), req.tenant, req.operation_id);
      return next !== null;
    });
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
    return this.#atomic((): DecideResult => {
      const current = this.#approval(event.approval_id);
      // The claim runs in an IMMEDIATE transaction too: a call that claimed first has executed (or is executing).
      const executed = event.decision === "revoke" && current !== null ? this.#executedUnder(current) : undefined;
      const plan = planStoreDecision(current, event, executed);
      if (plan.write === null || current === null) return plan.result;
      const inserted = this.#q.insEvent.run({
        ...event,
        approver_roles: JSON.stringify(event.approver_roles),
        edited_args: event.edited_args === null ? null : JSON.stringify(event.edited_args),
      });
      this.#chain.linkApprovalDecision(Number(inserted.lastInsertRowid), current.tenant, event);
      this.#q.setApprovalStatus.run(plan.write, event.approval_id);
      return plan.result;
    });
  }

  /** The call that claimed the approval's operation (not released as retryable), or consumed it; null when none did. */
  #executedUnder(approval: ApprovalRecord): { outcome: JsonObject | null } | null {
    const op = approval.operation_id === null ? null : this.#readOp(approval.tenant, approval.operation_id);
    const claimed = op !== null && op.tool === approval.tool && op.status !== "retryable";
    if (!claimed && approval.consumed_by === null) return null;
    return { outcome: claimed && op.status === "final" ? op.envelope : null };
  }

  async consumeApproval(req: ConsumeApprovalRequest): Promise<ConsumeApprovalResult> {
    return this.#atomic((): ConsumeApprovalResult => {
      const changed = this.#q.consume.run(req.operation_id, req.now_ms, req.approval_id, req.tenant, req.operation_id).changes;
      return changed === 1 ? { ok: true } : explainConsume(this.#approval(req.approval_id), req);
    });
  }

  async listApprovalEvents(approvalId: string): Promise<ApprovalEvent[]> {
    return this.#q.events.all(approvalId).map(toApprovalEvent);
  }

  async setApprovalRequirement(req: ApprovalRequirement): Promise<void> {
    this.#passkeys.setRequirement(req);
  }

  async getApprovalRequirement(approvalId: string): Promise<ApprovalRequirement | null> {
    return this.#passkeys.requirement(approvalId);
  }

  async addApprovalVote(vote: ApprovalVote): Promise<boolean> {
    return this.#passkeys.addVote(vote);
  }

  async listApprovalVotes(approvalId: string): Promise<ApprovalVote[]> {
    return this.#passkeys.votes(approvalId);
  }

  async saveApproverCredential(cred: ApproverCredential): Promise<boolean> {
    return this.#passkeys.save(cred);
  }

  async getApproverCredential(credentialId: string): Promise<ApproverCredential | null> {
    return this.#passkeys.get(credentialId);
  }

  async listApproverCredentials(tenant: string, approver: string): Promise<ApproverCredential[]> {
    return this.#passkeys.list(tenant, approver);
  }

  async raiseCredentialCounter(credentialId: string, counter: number): Promise<boolean> {
    return this.#passkeys.raise(credentialId, counter);
  }

  async saveDecisionSignature(sig: DecisionSignature): Promise<void> {
    this.#passkeys.saveSignature(sig);
  }

  async listDecisionSignatures(approvalId: string): Promise<DecisionSignature[]> {
    return this.#passkeys.signatures(approvalId);
  }

  async listApprovals(query: ApprovalListQuery): Promise<ApprovalRecord[]> {
    return this.#inbox.list(query);
  }

  async savePendingCall(call: NewPendingCall): Promise<boolean> {
    return this.#inbox.save(call);
  }

  async getPendingCall(approvalId: string): Promise<PendingCall | null> {
    return this.#inbox.get(approvalId);
  }

  async replacePendingCall(approvalId: string, replacement: NewPendingCall): Promise<void> {
    this.#inbox.replace(approvalId, replacement);
  }

  async claimAnnouncements(nowMs: number, limit: number): Promise<PendingCall[]> {
    return this.#inbox.claimAnnouncements(nowMs, limit);
  }

  async unmarkAnnouncement(approvalId: string): Promise<void> {
    this.#inbox.unmark(approvalId);
  }

  async setInterrupt(rec: InterruptRecord): Promise<void> {
    this.#q.putInterrupt.run(rec);
  }

  async getInterrupt(tenant: string, runId: string): Promise<InterruptRecord | null> {
    const row = this.#q.getInterrupt.get(tenant, runId);
    return row === undefined ? null : { tenant, run_id: runId, reason: row[0], at_ms: Number(row[1]) };
  }

  async clearInterrupt(tenant: string, runId: string): Promise<void> {
    this.#q.delInterrupt.run(tenant, runId);
  }

  async setCurrentPolicy(rec: CurrentPolicyRecord): Promise<void> {
    this.#q.putPolicy.run(rec);
  }

  async getCurrentPolicy(entrypoint: string): Promise<CurrentPolicyRecord | null> {
    const row = this.#q.getPolicy.get(entrypoint);
    return row === undefined ? null : { ...row, updated_at_ms: Number(row.updated_at_ms) };
  }

  async appendDecision(entry: DecisionLogEntry): Promise<void> {
    return this.#batch.append(entry);
  }

  flushDecisions(): Promise<void> {
    return this.#batch.flush();
  }

  /** The audit chain of one tenant, or of all (see ../chain). */
  async readChain(tenant?: string): Promise<ChainSnapshot> {
    await this.#batch.flush();
    return readSqliteChain(this.#db, tenant ?? null);
  }

  async listDecisions(query: DecisionQuery = {}): Promise<DecisionLogRecord[]> {
    await this.#batch.flush();
    return this.#log.list(query);
  }

  async getDecision(decisionId: string): Promise<DecisionLogRecord | null> {
    await this.#batch.flush();
    return this.#log.get(decisionId);
  }

  async purgeExpired(nowMs: number): Promise<number> {
    await this.#batch.flush();
    const purged = this.#atomic((): number => {
      const ops = this.#q.purgeOps.run(nowMs, nowMs).changes;
      this.#limits.purge();
      for (const q of this.#q.purgeApprovalRefs) q.run({ now: nowMs });
      return ops + this.#q.purgeApprovals.run({ now: nowMs }).changes;
    });
    return purged + this.#log.purge(nowMs);
  }

  async close(): Promise<void> {
    await this.#batch.close();
    // The worker's connection goes first, so closing the last one checkpoints and removes the WAL.
    await this.#checkpointer?.stop();
    if (this.#db.open) this.#db.close();
  }
}
