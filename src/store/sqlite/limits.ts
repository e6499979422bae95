/**
 * Limit accounting on SQLite: one `limit_entries` row per (limit, operation), written in the
 * claim's IMMEDIATE transaction, and figures read by joining the operation's record, whose
 * status says whether the call counts: succeeded, or a final timeout or outcome_unknown, or claimed
 * with no outcome recorded yet (in flight, or crashed and not yet reconciled, whatever its lease).
 * The file's one writer serialises every claim, so the figures read in a claim hold until it commits.
 */
import type { Database as Db, Statement } from "better-sqlite3";
import type { LimitClaim, LimitFigures, LimitFiguresRequest, LimitKey, OperationRecord } from "../store.js";

export const limitEntriesSchema = `
CREATE TABLE IF NOT EXISTS limit_entries (
  tenant        TEXT    NOT NULL,
  limit_name    TEXT    NOT NULL,
  limit_key     TEXT    NOT NULL,
  operation_id  TEXT    NOT NULL,
  amount        REAL    NOT NULL,
  -- The claimed record's created_at_ms: an entry counts only for that incarnation of the operation.
  claimed_at_ms INTEGER NOT NULL,
  PRIMARY KEY (tenant, limit_name, operation_id)
);
CREATE INDEX IF NOT EXISTS limit_entries_by_key ON limit_entries (tenant, limit_name, limit_key);
`;

// Parameters: window start, tenant, limit, key, excluded operation id. A claimed call whose outcome is
// not recorded counts whatever its lease: its effect may have happened until a retry reconciles it.
const figuresSql = `
SELECT COUNT(*) AS count, COALESCE(SUM(e.amount), 0) AS sum
  FROM limit_entries e
  JOIN operations o ON o.tenant = e.tenant AND o.operation_id = e.operation_id AND o.created_at_ms = e.claimed_at_ms
 WHERE e.tenant = @tenant AND e.limit_name = @name AND e.limit_key = @key AND e.operation_id <> @exclude
   AND o.created_at_ms > @since
   AND (CASE WHEN o.status = 'final'
             THEN json_extract(o.envelope, '$.outcome') = 'success' OR json_extract(o.envelope, '$.reason') IN ('timeout', 'outcome_unknown')
             ELSE o.status IN ('in_progress', 'unknown') END)`;

export class SqliteLimits {
  readonly #figures: Statement<Record<string, unknown>, { count: number; sum: number }>;
  readonly #upsert: Statement<unknown[]>;
  readonly #purge: Statement<[]>;

  constructor(db: Db) {
    this.#figures = db.prepare(figuresSql);
    this.#upsert = db.prepare(
      `INSERT INTO limit_entries (tenant, limit_name, limit_key, operation_id, amount, claimed_at_ms) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (tenant, limit_name, operation_id) DO UPDATE SET limit_key = excluded.limit_key, amount = excluded.amount, claimed_at_ms = excluded.claimed_at_ms`,
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
