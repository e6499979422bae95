/**
 * Limit accounting on SQLite: one `limit_entries` row per (limit, operation), written in the
 * claim's IMMEDIATE transaction, with `counts` saying whether the call counts: it succeeded, or
 * ended in a final timeout or outcome_unknown, or is claimed with no outcome recorded yet (in
 * flight, or crashed and not yet reconciled, whatever its lease). Triggers on the operation's
 * record keep `counts` current, so the figures are one index range of the key's window.
 * The file's one writer serialises every claim, so the figures read in a claim hold until it commits.
 */
import type { Database as Db, Statement } from "better-sqlite3";
import type { LimitClaim, LimitFigures, LimitFiguresRequest, LimitKey, OperationRecord } from "../store.js";

// WITHOUT ROWID, keyed by operation: the key serves the triggers and the claim's upsert, and the
// claim writes two B-trees (the table and limit_entries_window), not three.
const limitEntriesTable = (name: string): string => `
CREATE TABLE IF NOT EXISTS ${name} (
  tenant        TEXT    NOT NULL,
  limit_name    TEXT    NOT NULL,
  limit_key     TEXT    NOT NULL,
  operation_id  TEXT    NOT NULL,
  amount        REAL    NOT NULL,
  -- The claimed record's created_at_ms: an entry counts only for that incarnation of the operation.
  claimed_at_ms INTEGER NOT NULL,
  -- 1 while the call counts (countsSql), kept by the triggers below when its record changes.
  counts        INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (tenant, operation_id, limit_name)
) WITHOUT ROWID`;

/** Whether a record's call counts toward its limits (NEW: the record, as the triggers see it). */
const countsSql = `CASE WHEN NEW.status = 'final'
    THEN coalesce(json_extract(NEW.envelope, '$.outcome') = 'success' OR json_extract(NEW.envelope, '$.reason') IN ('timeout', 'outcome_unknown'), 0)
    ELSE NEW.status IN ('in_progress', 'unknown') END`;

// The figures read one index range (key, window) and no record: a record's changes are copied onto
// its entries by the triggers, and a deleted record (a claim given back, retention) takes its
// entries with it.
const limitEntriesIndexes = `
CREATE INDEX IF NOT EXISTS limit_entries_window ON limit_entries (tenant, limit_name, limit_key, claimed_at_ms, counts, amount, operation_id);
CREATE TRIGGER IF NOT EXISTS limit_entries_settle AFTER UPDATE OF status, envelope, created_at_ms ON operations
BEGIN
  UPDATE limit_entries SET counts = ${countsSql}
   WHERE tenant = NEW.tenant AND operation_id = NEW.operation_id AND claimed_at_ms = NEW.created_at_ms AND counts IS NOT ${countsSql};
END;
CREATE TRIGGER IF NOT EXISTS limit_entries_gone AFTER DELETE ON operations
BEGIN
  DELETE FROM limit_entries WHERE tenant = OLD.tenant AND operation_id = OLD.operation_id;
END;
`;

/**
 * Creates the table, its index and triggers. A file whose table predates `counts` gets it rebuilt,
 * `counts` filled from the records (entries of gone incarnations dropped), in one IMMEDIATE
 * transaction that checks again inside, so processes opening the file at once do it once.
 */
export function ensureLimitEntries(db: Db): void {
  const exists = (): boolean => db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'limit_entries'").get() !== undefined;
  const hasCounts = (): boolean => (db.prepare("SELECT name FROM pragma_table_info('limit_entries')").pluck().all() as string[]).includes("counts");
  const ready = (): boolean => exists() && hasCounts() && db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'trigger' AND name = 'limit_entries_gone'").get() !== undefined;
  if (ready()) return;
  db.transaction(() => {
    if (ready()) return;
    if (exists() && !hasCounts()) {
      // The table before `counts` (a rowid table keyed by limit): rebuilt with the entries of live incarnations.
      db.exec(limitEntriesTable("limit_entries_counted"));
      db.exec(`INSERT INTO limit_entries_counted (tenant, limit_name, limit_key, operation_id, amount, claimed_at_ms, counts)
               SELECT e.tenant, e.limit_name, e.limit_key, e.operation_id, e.amount, e.claimed_at_ms, ${countsSql.replaceAll("NEW.", "o.")}
                 FROM limit_entries e JOIN operations o ON o.tenant = e.tenant AND o.operation_id = e.operation_id AND o.created_at_ms = e.claimed_at_ms`);
      db.exec("DROP TABLE limit_entries");
      db.exec("ALTER TABLE limit_entries_counted RENAME TO limit_entries");
    }
    db.exec(limitEntriesTable("limit_entries"));
    db.exec(limitEntriesIndexes);
  }).immediate();
}

// Parameters: window start, tenant, limit, key, excluded operation id.
const figuresSql = `
SELECT COUNT(*) AS count, COALESCE(SUM(amount), 0) AS sum
  FROM limit_entries
 WHERE tenant = @tenant AND limit_name = @name AND limit_key = @key AND claimed_at_ms > @since AND counts = 1 AND operation_id <> @exclude`;

export class SqliteLimits {
  readonly #figures: Statement<Record<string, unknown>, { count: number; sum: number }>;
  readonly #upsert: Statement<unknown[]>;
  readonly #purge: Statement<[]>;

  constructor(db: Db) {
    this.#figures = db.prepare(figuresSql);
    this.#upsert = db.prepare(
      `INSERT INTO limit_entries (tenant, limit_name, limit_key, operation_id, amount, claimed_at_ms, counts) VALUES (?, ?, ?, ?, ?, ?, 1)
       ON CONFLICT (tenant, operation_id, limit_name) DO UPDATE SET limit_key = excluded.limit_key, amount = excluded.amount, claimed_at_ms = excluded.claimed_at_ms, counts = 1`,
    );
    this.#purge = db.prepare(
      `DELETE FROM limit_entries WHERE NOT EXISTS (SELECT 1 FROM operations o WHERE o.tenant = limit_entries.tenant
         AND o.operation_id = limit_entries.operation_id AND o.created_at_ms = limit_entries.claimed_at_ms)`,
    );
  }

  /** The figures of each key (run inside the claim's transaction when it decides). */
  figures(req: LimitFiguresRequest): Record<string, LimitFigures> {
    return figuresOf(req.keys, (k) => {
      const row = this.#figures.get({ tenant: req.tenant, name: k.name, key: k.key, exclude: req.operation_id ?? "", since: req.now_ms - k.window_ms });
      return { count: Number(row?.count ?? 0), sum: Number(row?.sum ?? 0) };
    });
  }

  /** Counts the claimed record toward each limit (in the claim's transaction). */
  record(rec: OperationRecord, limits: readonly LimitClaim[]): void {
    for (const l of limits) this.#upsert.run(rec.tenant, l.name, l.key, rec.operation_id, l.amount, rec.created_at_ms);
  }

  /** Entries whose operation incarnation is gone. */
  purge(): number {
    return this.#purge.run().changes;
  }
}

export function figuresOf(keys: readonly LimitKey[], read: (k: LimitKey) => LimitFigures): Record<string, LimitFigures> {
  const out: Record<string, LimitFigures> = {};
  for (const k of keys) out[k.name] = read(k);
  return out;
}
