/**
 * The decision log on SQLite: batch inserts (one transaction per batch), reads by
 * id and by filters, and purge past retention. Enters: entries and queries. Leaves: records.
 */
import type { Database as Db, Statement } from "better-sqlite3";
import type { DecisionLogEntry, DecisionLogRecord, DecisionQuery } from "../store.js";
import { decisionValues, toDecisionRecord } from "../rows.js";
import type { DecisionColumns } from "../rows.js";
import { decisionContent } from "../chain/content.js";
import { contentHash } from "../chain/link.js";
import { genesisLink } from "../chain/link.js";
import { keepPrunedDecisionsSql, registerChainLink } from "./audit-chain.js";
import { parseJson } from "./rows.js";
import { sqliteAddedColumns, sqliteIndexesAfterColumns } from "./schema.js";

interface DecisionRow extends DecisionColumns<string> {
  decision_id: string | null;
  seq: number;
}

/**
 * Adds the columns newer than the file (idempotent), then their indexes. In one IMMEDIATE
 * transaction: processes opening the same file at once would otherwise both find a column
 * missing and both add it ("duplicate column name").
 */
export function ensureSqliteColumns(db: Db): void {
  db.transaction(() => {
    for (const [table, columns] of Object.entries(sqliteAddedColumns)) {
      const have = new Set((db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
      for (const [name, type] of columns) if (!have.has(name)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
    }
    db.exec(sqliteIndexesAfterColumns);
  }).immediate();
}

// Entries written before decision ids existed get a stable one from their row number.
const toRecord = (row: DecisionRow): DecisionLogRecord => toDecisionRecord(row, row.decision_id ?? `seq-${row.seq}`, parseJson);

export class SqliteDecisionLog {
  readonly #db: Db;
  readonly #insert: Statement;
  readonly #byId: Statement<[string], DecisionRow>;
  readonly #purge: (nowMs: number) => number;
  readonly #insertMany: (entries: readonly DecisionLogEntry[]) => void;
  /** Entries carry content hashes and are linked into their tenant's audit chain (DecisionLogOptions.chain). */
  readonly #chained: boolean;

  constructor(db: Db, chained: boolean) {
    this.#db = db;
    this.#chained = chained;
    registerChainLink(db);
    // The row's chain position and links come from the tenant's head in the same statement (the
    // head is advanced by the decision_log_chain_head trigger), so linking adds no statement.
    // Unchained (`chain: false`, the bench's baseline) the plain INSERT runs, with a NULL content hash.
    this.#insert = db.prepare(
      chained
        ? `INSERT INTO decision_log (decision_id, at_ms, tenant, run_id, user_id, tool, operation_id, fingerprint, decision, reason,
         policy_version, outcome, outcome_reason, path, input, result, erased, eval_ns, shadow, shadow_disagrees, expires_at_ms, error,
         labels, trace_id, span_id, content_hash, chain_seq, prev_link, link)
       SELECT v.*,
         CASE WHEN v.h IS NULL THEN NULL ELSE coalesce(hd.seq, 0) + 1 END,
         CASE WHEN v.h IS NULL THEN NULL ELSE coalesce(hd.link, '${genesisLink}') END,
         CASE WHEN v.h IS NULL THEN NULL ELSE toolgate_chain_link(coalesce(hd.link, '${genesisLink}'), v.h) END
       FROM (SELECT ? AS decision_id, ? AS at_ms, ? AS tenant, ? AS run_id, ? AS user_id, ? AS tool, ? AS operation_id,
               ? AS fingerprint, ? AS decision, ? AS reason, ? AS policy_version, ? AS outcome, ? AS outcome_reason, ? AS path,
               ? AS input, ? AS result, ? AS erased, ? AS eval_ns, ? AS shadow, ? AS shadow_disagrees, ? AS expires_at_ms,
               ? AS error, ? AS labels, ? AS trace_id, ? AS span_id, ? AS h) AS v
       LEFT JOIN audit_chain_heads hd ON hd.tenant = v.tenant`
        : `INSERT INTO decision_log (decision_id, at_ms, tenant, run_id, user_id, tool, operation_id, fingerprint, decision, reason,
         policy_version, outcome, outcome_reason, path, input, result, erased, eval_ns, shadow, shadow_disagrees, expires_at_ms, error,
         labels, trace_id, span_id, content_hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#byId = db.prepare<[string], DecisionRow>("SELECT * FROM decision_log WHERE decision_id = ?");
    const keepPruned = db.prepare<[number]>(keepPrunedDecisionsSql);
    const purge = db.prepare<[number]>("DELETE FROM decision_log WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= ?");
    this.#purge = db.transaction((nowMs: number): number => {
      keepPruned.run(nowMs);
      return purge.run(nowMs).changes;
    }).immediate;
    this.#insertMany = db.transaction((entries: readonly DecisionLogEntry[]) => this.insertRows(entries)).immediate;
  }

  /** Synchronous body: callable from a process `exit` listener. */
  insertMany(entries: readonly DecisionLogEntry[]): void {
    this.#insertMany(entries);
  }

  /** Inserts inside the caller's transaction. */
  insertRows(entries: readonly DecisionLogEntry[]): void {
    for (const e of entries) {
      const v = decisionValues(e);
      const hash = this.#chained ? contentHash(decisionContent(e, v.decision_id)) : null;
      // Positional, in the column order of the INSERT (binding by name costs more per row).
      this.#insert.run(
        v.decision_id, v.at_ms, v.tenant, v.run_id, v.user_id, v.tool, v.operation_id, v.fingerprint, v.decision, v.reason,
        v.policy_version, v.outcome, v.outcome_reason, v.path, v.input, v.result, v.erased, v.eval_ns, v.shadow,
        v.shadow_disagrees === null ? null : v.shadow_disagrees ? 1 : 0, v.expires_at_ms, v.error, v.labels, v.trace_id, v.span_id, hash,
      );
    }
  }

  get(decisionId: string): DecisionLogRecord | null {
    const row = this.#byId.get(decisionId);
    if (row !== undefined) return toRecord(row);
    const legacy = /^seq-(\d+)$/.exec(decisionId);
    if (legacy === null) return null;
    const old = this.#db.prepare<[number], DecisionRow>("SELECT * FROM decision_log WHERE seq = ? AND decision_id IS NULL").get(Number(legacy[1]));
    return old === undefined ? null : toRecord(old);
  }

  list(query: DecisionQuery): DecisionLogRecord[] {
    const where: string[] = [];
    const params: (string | number)[] = [];
    const add = (sql: string, ...values: (string | number)[]): void => void (where.push(sql), params.push(...values));
    if (query.tenant !== undefined) add("tenant = ?", query.tenant);
    if (query.operation_id !== undefined) add("operation_id = ?", query.operation_id);
    if (query.tool !== undefined) add("tool = ?", query.tool);
    if (query.reason !== undefined) add("(reason = ? OR outcome_reason = ?)", query.reason, query.reason);
    if (query.since_ms !== undefined) add("at_ms >= ?", query.since_ms);
    if (query.shadow_disagrees !== undefined) add("shadow_disagrees = ?", query.shadow_disagrees ? 1 : 0);
    const sql = `SELECT * FROM decision_log ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq DESC LIMIT ?`;
    return this.#db.prepare<(string | number)[], DecisionRow>(sql).all(...params, query.limit ?? 1000).map(toRecord);
  }

  purge(nowMs: number): number {
    return this.#purge(nowMs);
  }
}
