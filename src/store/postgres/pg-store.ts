/**
 * The shared store for several runtime workers: PostgreSQL through a `pg` pool.
 * Each method is one statement (or a statement plus an explaining read), so no
 * client-side transaction is held across a handler call.
 */
import pg from "pg";
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
import { isExpired } from "../claim.js";
import { DecisionBatch } from "../decision-batch.js";
import type { DecisionLogOptions } from "../decision-batch.js";
import * as approvals from "./approvals.js";
import { readCallState } from "./call-state.js";
import { claimFirst, releaseClaim } from "./claim-first.js";
import type { ChainSnapshot } from "../chain/records.js";
import { readChain } from "./audit-chain.js";
import * as decisionLog from "./decision-log.js";
import { PgStoreError } from "./errors.js";
import * as inbox from "./inbox.js";
import { claimFirstLimited, claimLimited, purgeLimitEntries, readLimitFigures } from "./limits.js";
import { loadMigrations, migrate } from "./migrations.js";
import * as ops from "./operations.js";
import * as passkeys from "./passkeys.js";
import { createPgPool, type PgConnectionOptions } from "./pool.js";
import * as runLog from "./run-log.js";

export interface PgStoreOptions extends PgConnectionOptions {
  /** Apply pending migrations on open (advisory-locked, safe from many workers). Default false: run `toolgate migrate`. */
  readonly migrate?: boolean;
  /** Use this pool (its search_path must point at the schema); close() then leaves it open. */
  readonly pool?: pg.Pool;
  /** Group commit of the decision log (default batched) or synchronous audit. */
  readonly decisionLog?: DecisionLogOptions;
}

/** Opens the store; fails with `schema_not_migrated` when the schema is behind the code. */
export async function openPgStore(opts: PgStoreOptions = {}): Promise<Store> {
  const pool = opts.pool ?? createPgPool(opts);
  try {
    if (opts.migrate === true) await migrate(pool, opts.schema === undefined ? {} : { schema: opts.schema });
    else await checkSchemaVersion(pool, opts.schema ?? "public");
  } catch (err) {
    if (opts.pool === undefined) await pool.end();
    throw err;
  }
  return new PgStore(pool, opts.pool === undefined, opts.decisionLog ?? {});
}

async function checkSchemaVersion(pool: pg.Pool, schema: string): Promise<void> {
  const known = loadMigrations().map((m) => m.version);
  const latest = known.at(-1) ?? 0;
  const res = await pool.query<{ version: number | null }>(
    "SELECT CASE WHEN to_regclass('schema_migrations') IS NULL THEN NULL ELSE 0 END AS version",
  );
  let applied: number[] = [];
  if (res.rows[0]?.version !== null) {
    const v = await pool.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
    applied = v.rows.map((r) => Number(r.version));
  }
  const newer = applied.find((v) => !known.includes(v));
  if (newer !== undefined) {
    throw new PgStoreError(
      "migration_unknown_version",
      `schema ${schema} is at migration ${Math.max(...applied)}, newer than this toolgate (${latest})`,
      { version: newer },
    );
  }
  // Versions may have gaps, so every known migration must be applied, not only the highest.
  const missing = known.filter((v) => !applied.includes(v));
  if (missing.length > 0) {
    throw new PgStoreError(
      "schema_not_migrated",
      `schema ${schema} is at migration ${applied.length === 0 ? 0 : Math.max(...applied)} and lacks ${missing.join(", ")}; this toolgate needs ${latest}: run \`toolgate migrate --schema ${schema}\``,
    );
  }
}

class PgStore implements Store {
  readonly kind = "postgres";
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #batch: DecisionBatch;
  #closed = false;
  // Log writes are sent one after the other: two in flight on different pool connections could
  // otherwise commit out of order and number later decisions before earlier ones. The tail is
  // every batch insert and every outcome that carries queued entries, chained in append order.
  #logTail: Promise<void> = Promise.resolve();
  /** Log writes (batch inserts and carrying outcomes) started and not yet settled. */
  #logWrites = 0;
  /** Decision-log entries carry content hashes for the audit chain (DecisionLogOptions.chain). */
  readonly #chained: boolean;

  constructor(pool: pg.Pool, ownsPool: boolean, logOptions: DecisionLogOptions) {
    this.#pool = pool;
    this.#ownsPool = ownsPool;
    // Batched entries are group-committed without waiting for their WAL flush; `sync` audit waits.
    const synchronous = logOptions.durability === "sync";
    this.#chained = logOptions.chain !== false;
    this.#batch = new DecisionBatch((entries) => {
      this.#logWrites++;
      const written = this.#logTail.then(async () => void (await decisionLog.insertDecisions(this.#pool, entries, synchronous, this.#chained)));
      this.#logTail = written.catch(() => undefined);
      return written.finally(() => this.#logWrites--);
    }, logOptions);
  }

  get #db(): pg.Pool {
    if (this.#closed) throw new PgStoreError("store_closed", "the PostgreSQL store was closed");
    return this.#pool;
  }

  async getOperation(tenant: string, operationId: string, nowMs: number): Promise<OperationRecord | null> {
    const rec = await ops.readOperation(this.#db, tenant, operationId);
    return rec !== null && !isExpired(rec, nowMs) ? rec : null;
  }

  claimOperation(req: ClaimRequest): Promise<ClaimResult> {
    const limits = req.limits ?? [];
    return limits.length === 0 ? ops.claimOperation(this.#db, req) : claimLimited(this.#db, req, limits);
  }

  async readRunHistory(req: RunHistoryRequest): Promise<RunHistoryEntry[]> {
    await this.#batch.flush();
    const res = await this.#db.query<{ tool: string; decision: RunHistoryEntry["decision"]; outcome: string; outcome_reason: string | null; at_ms: string }>(
      `SELECT tool, decision, outcome, outcome_reason, toolgate_ms(at) AS at_ms FROM decision_log
        WHERE tenant = $1 AND run_id = $2 ORDER BY seq DESC LIMIT $3`,
      [req.tenant, req.run_id, req.limit],
    );
    return res.rows.map((r) => ({ ...r, at_ms: Number(r.at_ms) })).reverse();
  }

  readLimitFigures(req: LimitFiguresRequest): Promise<Record<string, LimitFigures>> {
    return readLimitFigures(this.#db, req);
  }

  readCallState(req: CallStateRequest): Promise<CallState> {
    return readCallState(this.#db, req);
  }

  claimFirst(req: ClaimFirstRequest): Promise<ClaimFirstResult> {
    const limits = req.limits ?? [];
    return limits.length === 0 ? claimFirst(this.#db, req) : claimFirstLimited(this.#db, req, limits);
  }

  releaseClaim(claim: OperationRecord): Promise<boolean> {
    return releaseClaim(this.#db, claim);
  }

  async recordOutcome(req: RecordOutcomeRequest): Promise<RecordOutcomeResult> {
    const db = this.#db;
    if (req.decision === undefined) return ops.recordOutcome(db, req);
    // With no entry queued and no log write in flight, nothing appended earlier can commit after
    // this outcome: it goes at once, concurrently with other outcomes (concurrent calls are
    // ordered by their commits).
    if (this.#batch.pending === 0 && this.#logWrites === 0) return ops.recordOutcome(db, req, { queued: [], own: req.decision, chained: this.#chained });
    // Log writes in flight: what is queued is flushed as a batch chained after them, and the
    // outcome is sent once every log write started so far has settled. It does not join the log's
    // tail itself, so concurrent outcomes wait for the batches only, not for each other.
    if (this.#logWrites > 0) {
      if (this.#batch.pending > 0) void this.#batch.flush();
      await this.#logTail;
      return ops.recordOutcome(db, req, { queued: [], own: req.decision, chained: this.#chained });
    }
    // Entries queued and nothing in flight: the outcome carries them in its statement, before its
    // own entry, and is the log's tail until it settles (batches flushed meanwhile hold only later
    // entries and are chained after it). A caller's earlier entries are then committed before
    // this statement or in it, so one caller's decisions keep their order.
    let settle!: () => void;
    this.#logTail = new Promise<void>((resolve) => (settle = resolve));
    this.#logWrites++;
    const queued = this.#batch.take();
    try {
      return await ops.recordOutcome(db, req, { queued, own: req.decision, chained: this.#chained });
    } catch (err) {
      this.#batch.putBack(queued);
      throw err;
    } finally {
      this.#logWrites--;
      settle();
    }
  }

  refundAttempt(req: RefundAttemptRequest): Promise<boolean> {
    return ops.refundAttempt(this.#db, req);
  }

  createApproval(approval: NewApproval): Promise<ApprovalRecord> {
    return approvals.createApproval(this.#db, approval);
  }

  getApproval(id: string): Promise<ApprovalRecord | null> {
    return approvals.getApproval(this.#db, id);
  }

  findPendingApproval(tenant: string, fingerprint: string, nowMs: number, argsHash?: string): Promise<ApprovalRecord | null> {
    return approvals.findPendingApproval(this.#db, tenant, fingerprint, nowMs, argsHash);
  }

  decideApproval(event: ApprovalEvent): Promise<DecideResult> {
    return approvals.decideApproval(this.#db, event);
  }

  consumeApproval(req: ConsumeApprovalRequest): Promise<ConsumeApprovalResult> {
    return approvals.consumeApproval(this.#db, req);
  }

  listApprovalEvents(approvalId: string): Promise<ApprovalEvent[]> {
    return approvals.listApprovalEvents(this.#db, approvalId);
  }

  setApprovalRequirement(req: ApprovalRequirement): Promise<void> {
    return passkeys.setRequirement(this.#db, req);
  }

  getApprovalRequirement(approvalId: string): Promise<ApprovalRequirement | null> {
    return passkeys.getRequirement(this.#db, approvalId);
  }

  addApprovalVote(vote: ApprovalVote): Promise<boolean> {
    return passkeys.addVote(this.#db, vote);
  }

  listApprovalVotes(approvalId: string): Promise<ApprovalVote[]> {
    return passkeys.listVotes(this.#db, approvalId);
  }

  saveApproverCredential(cred: ApproverCredential): Promise<boolean> {
    return passkeys.saveCredential(this.#db, cred);
  }

  getApproverCredential(credentialId: string): Promise<ApproverCredential | null> {
    return passkeys.getCredential(this.#db, credentialId);
  }

  listApproverCredentials(tenant: string, approver: string): Promise<ApproverCredential[]> {
    return passkeys.listCredentials(this.#db, tenant, approver);
  }

  raiseCredentialCounter(credentialId: string, counter: number): Promise<boolean> {
    return passkeys.raiseCounter(this.#db, credentialId, counter);
  }

  saveDecisionSignature(sig: DecisionSignature): Promise<void> {
    return passkeys.saveSignature(this.#db, sig);
  }

  listDecisionSignatures(approvalId: string): Promise<DecisionSignature[]> {
    return passkeys.listSignatures(this.#db, approvalId);
  }

  listApprovals(query: ApprovalListQuery): Promise<ApprovalRecord[]> {
    return inbox.listApprovals(this.#db, query);
  }

  savePendingCall(call: NewPendingCall): Promise<boolean> {
    return inbox.savePendingCall(this.#db, call);
  }

  getPendingCall(approvalId: string): Promise<PendingCall | null> {
    return inbox.getPendingCall(this.#db, approvalId);
  }

  replacePendingCall(approvalId: string, replacement: NewPendingCall): Promise<void> {
    return inbox.replacePendingCall(this.#db, approvalId, replacement);
  }

  claimAnnouncements(nowMs: number, limit: number): Promise<PendingCall[]> {
    return inbox.claimAnnouncements(this.#db, nowMs, limit);
  }

  unmarkAnnouncement(approvalId: string): Promise<void> {
    return inbox.unmarkAnnouncement(this.#db, approvalId);
  }

  setInterrupt(rec: InterruptRecord): Promise<void> {
    return runLog.setInterrupt(this.#db, rec);
  }

  getInterrupt(tenant: string, runId: string): Promise<InterruptRecord | null> {
    return runLog.getInterrupt(this.#db, tenant, runId);
  }

  clearInterrupt(tenant: string, runId: string): Promise<void> {
    return runLog.clearInterrupt(this.#db, tenant, runId);
  }

  setCurrentPolicy(rec: CurrentPolicyRecord): Promise<void> {
    return runLog.setCurrentPolicy(this.#db, rec);
  }

  getCurrentPolicy(entrypoint: string): Promise<CurrentPolicyRecord | null> {
    return runLog.getCurrentPolicy(this.#db, entrypoint);
  }

  appendDecision(entry: DecisionLogEntry): Promise<void> {
    if (this.#closed) return Promise.reject(new PgStoreError("store_closed", "the PostgreSQL store was closed"));
    return this.#batch.append(entry);
  }

  flushDecisions(): Promise<void> {
    return this.#batch.flush();
  }

  async listDecisions(query: DecisionQuery = {}): Promise<DecisionLogRecord[]> {
    await this.#batch.flush();
    return decisionLog.listDecisions(this.#db, query);
  }

  async getDecision(decisionId: string): Promise<DecisionLogRecord | null> {
    await this.#batch.flush();
    return decisionLog.getDecision(this.#db, decisionId);
  }

  async purgeExpired(nowMs: number): Promise<number> {
    await this.#batch.flush();
    const purged = await ops.purgeExpired(this.#db, nowMs);
    await purgeLimitEntries(this.#db);
    return purged + (await decisionLog.purgeDecisions(this.#db, nowMs));
  }

  /** The audit chain of one tenant, or of all (see ../chain). */
  async readChain(tenant?: string): Promise<ChainSnapshot> {
    await this.#batch.flush();
    return readChain(this.#db, tenant ?? null);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#batch.close();
    this.#closed = true;
    if (this.#ownsPool) await this.#pool.end();
  }
}
