/**
 * Counts what a store sends to its database: statements (PostgreSQL: round trips) and durable
 * commits (an explicit COMMIT, or a writing statement outside a transaction), so the bounds
 * of the write and read paths are regression tests rather than timings.
 */
import type pg from "pg";
import { openSqliteStore } from "../../src/store/index.js";
import { openPgStore } from "../../src/store/postgres/index.js";
import type { Store } from "../../src/store/store.js";

export interface Counts {
  statements: number;
  commits: number;
  /** The statements' text, for a failing test's message. */
  readonly log: string[];
}

export interface CountingStore {
  readonly store: Store;
  /** Counts since the last reset. */
  readonly counts: Counts;
  reset(): void;
}

const writes = /^\s*(WITH\b[\s\S]*\b(INSERT|UPDATE|DELETE)\b|INSERT|UPDATE|DELETE|REPLACE)/i;

function counter(): { counts: Counts; see(sql: string): void; reset(): void } {
  const counts: Counts = { statements: 0, commits: 0, log: [] };
  let inTxn = false;
  return {
    counts,
    see(sql: string) {
      counts.statements++;
      counts.log.push(sql.replace(/\s+/g, " ").trim().slice(0, 120));
      if (/^\s*BEGIN/i.test(sql)) inTxn = true;
      else if (/^\s*(COMMIT|END)\b/i.test(sql)) {
        inTxn = false;
        counts.commits++;
      } else if (/^\s*ROLLBACK/i.test(sql)) inTxn = false;
      else if (!inTxn && writes.test(sql)) counts.commits++;
    },
    reset() {
      counts.statements = 0;
      counts.commits = 0;
      counts.log.length = 0;
    },
  };
}

/** SQLite in memory, counting through better-sqlite3's statement trace. */
export function countingSqliteStore(): CountingStore {
  const c = counter();
  const store = openSqliteStore(":memory:", { trace: (sql) => c.see(sql) });
  c.reset();
  return { store, counts: c.counts, reset: c.reset };
}

type Query = (...args: unknown[]) => unknown;

// A pool's connections are wrapped once; each sends to the counter of the store opened last on it.
const activeCounter = new WeakMap<pg.Pool, (sql: string) => void>();

/** PostgreSQL on `pool`, counting every query its connections send (one query = one round trip). */
export async function countingPgStore(pool: pg.Pool): Promise<CountingStore> {
  const c = counter();
  if (!activeCounter.has(pool)) {
    const wrap = (client: pg.PoolClient): void => {
      const marked = client as pg.PoolClient & { __counted?: boolean };
      if (marked.__counted === true) return;
      marked.__counted = true;
      const query = client.query.bind(client) as Query;
      (client as unknown as { query: Query }).query = (...args: unknown[]) => {
        const first = args[0];
        activeCounter.get(pool)?.(typeof first === "string" ? first : String((first as { text?: unknown }).text ?? ""));
        return query(...args);
      };
    };
    pool.on("connect", wrap);
    pool.on("acquire", wrap);
  }
  activeCounter.set(pool, (sql) => c.see(sql));
  const store = await openPgStore({ pool });
  c.reset();
  return { store, counts: c.counts, reset: c.reset };
}
