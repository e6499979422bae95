/**
 * The anchors the store benchmarks are measured against, in the same process: raw
 * better-sqlite3 inserts into a WAL file (one autocommit INSERT per row, `synchronous`
 * NORMAL as the store runs it, or FULL), and raw `pg` inserts (one autocommit INSERT per
 * row, on 1 or several connections in parallel). The row is shaped like a small
 * decision-log entry. Also the `BenchRow` shape the umbrella benchmark prints.
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";

/** One printed figure next to its anchor measured in the same run. */
export interface BenchRow {
  /** The benchmark file that measured it, e.g. "bench:store". */
  readonly group: string;
  /** What was measured, e.g. "approved write, PostgreSQL x1". */
  readonly name: string;
  readonly value: number;
  /** Unit of `value` and of the anchor's value, e.g. "calls/s". */
  readonly unit: string;
  /** What the figure is compared with, or null. */
  readonly anchor: { readonly name: string; readonly value: number } | null;
  /** value / anchor.value (for rates: higher is better), or null without an anchor. */
  readonly ratio: number | null;
  /** The goal for the ratio, e.g. ">= 0.4x", when there is one. */
  readonly target?: string;
  /** What the row means, when its name cannot say it. */
  readonly note?: string;
}

export const row = (group: string, name: string, value: number, unit: string, anchor: { name: string; value: number } | null, target?: string): BenchRow => ({
  group,
  name,
  value,
  unit,
  anchor,
  ratio: anchor === null || anchor.value === 0 ? null : value / anchor.value,
  ...(target === undefined ? {} : { target }),
});

export function printRows(rows: readonly BenchRow[]): void {
  const f = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(2));
  for (const r of rows) {
    const vs = r.anchor === null ? "" : `   vs ${r.anchor.name} ${f(r.anchor.value)} ${r.unit}: ${r.ratio?.toFixed(2)}x`;
    console.log(`  ${r.name.padEnd(44)} ${f(r.value).padStart(8)} ${r.unit}${vs}${r.target === undefined ? "" : `   (target ${r.target})`}`);
    if (r.note !== undefined) console.log(`    ${r.note}`);
  }
}

const rowValues = (i: number): unknown[] => [i, Date.now(), "t_bench", "run_bench", "bench", "get_account", null, "allow", "read_allowed", "success"];

/**
 * Rows per second of single-row autocommit inserts into a fresh WAL file. Under NORMAL an
 * insert takes microseconds, so at least 2,000 are timed: a few hundred take a few
 * milliseconds, and one scheduling slice of a loaded machine decides the figure.
 */
export function rawSqliteInsertsPerSec(requested: number, synchronous: "NORMAL" | "FULL"): number {
  const n = synchronous === "NORMAL" ? Math.max(requested, 2_000) : requested;
  const dir = mkdtempSync(join(tmpdir(), "toolgate-raw-"));
  try {
    const db = new Database(join(dir, "raw.db"));
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${synchronous}`);
    db.exec(`CREATE TABLE t (seq INTEGER PRIMARY KEY, at_ms INTEGER, tenant TEXT, run_id TEXT, user TEXT, tool TEXT,
      operation_id TEXT, decision TEXT, reason TEXT, outcome TEXT)`);
    const ins = db.prepare("INSERT INTO t (seq, at_ms, tenant, run_id, user, tool, operation_id, decision, reason, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (let i = 0; i < Math.min(200, n); i++) ins.run(...rowValues(-1 - i));
    const start = performance.now();
    for (let i = 0; i < n; i++) ins.run(...rowValues(i));
    const seconds = (performance.now() - start) / 1000;
    db.close();
    return n / seconds;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Rows per second of single-row autocommit inserts from `connections` clients in parallel,
 * each sending one INSERT after the other (a prepared statement), into a fresh table.
 */
export async function rawPgInsertsPerSec(url: string, n: number, connections: number): Promise<number> {
  const table = `toolgate_raw_${process.pid}_${connections}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`DROP TABLE IF EXISTS ${table}`);
    await admin.query(`CREATE TABLE ${table} (seq bigint PRIMARY KEY, at_ms bigint, tenant text, run_id text, user_id text, tool text,
      operation_id text, decision text, reason text, outcome text)`);
    const clients = await Promise.all(
      Array.from({ length: connections }, async () => {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        return c;
      }),
    );
    const text = `INSERT INTO ${table} VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;
    const run = async (c: pg.Client, from: number, count: number) => {
      for (let i = 0; i < count; i++) await c.query({ name: "raw_insert", text, values: rowValues(from + i) });
    };
    try {
      await Promise.all(clients.map((c, k) => run(c, -1_000_000 * (k + 1), 20)));
      const per = Math.ceil(n / connections);
      const start = performance.now();
      await Promise.all(clients.map((c, k) => run(c, k * per, per)));
      const seconds = (performance.now() - start) / 1000;
      return (per * connections) / seconds;
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  } finally {
    await admin.query(`DROP TABLE IF EXISTS ${table}`);
    await admin.end();
  }
}
