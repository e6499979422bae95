/**
 * The stores the audit-chain suite runs on, each with a raw connection to tamper with the
 * tables directly (as an attacker with write access would): a SQLite file (a second
 * better-sqlite3 connection) and, when TOOLGATE_PG_URL is set, a PostgreSQL schema (its pool).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { ChainSnapshot } from "../../src/store/chain/index.js";
import { isChainSource } from "../../src/store/chain/index.js";
import type { DecisionLogOptions } from "../../src/store/decision-batch.js";
import { openSqliteStore } from "../../src/store/index.js";
import { openPgStore } from "../../src/store/postgres/index.js";
import type { Store } from "../../src/store/store.js";
import { createTestSchema, skipWithoutPg } from "../workers/pg-env.js";
import type { TestSchema } from "../workers/pg-env.js";

export interface ChainStores {
  readonly name: "sqlite" | "postgres";
  readonly skip: boolean;
  /** A store on a fresh, empty database. */
  fresh(log?: DecisionLogOptions): Promise<Store>;
  /** Another store on the same database (another connection / pool). */
  peer(log?: DecisionLogOptions): Promise<Store>;
  /** Runs SQL directly on the database, outside the store. */
  exec(sql: string): Promise<void>;
  /** The CLI's store options for this database. */
  cliArgs(): string[];
  dispose(): Promise<void>;
}

export async function readChain(store: Store, tenant?: string): Promise<ChainSnapshot> {
  if (!isChainSource(store)) throw new Error("store keeps no audit chain");
  return store.readChain(tenant);
}

function sqliteChainStores(): ChainStores {
  let dir: string | null = null;
  let file = "";
  const open: Store[] = [];
  return {
    name: "sqlite",
    skip: false,
    async fresh(log = {}) {
      await Promise.all(open.splice(0).map((s) => s.close()));
      if (dir !== null) rmSync(dir, { recursive: true, force: true });
      dir = mkdtempSync(join(tmpdir(), "tg-chain-"));
      file = join(dir, "store.db");
      const s = openSqliteStore(file, { decisionLog: log, walCheckpoint: "inline" });
      open.push(s);
      return s;
    },
    async peer(log = {}) {
      const s = openSqliteStore(file, { decisionLog: log, walCheckpoint: "inline" });
      open.push(s);
      return s;
    },
    async exec(sql) {
      const db = new Database(file);
      try {
        db.exec(sql);
      } finally {
        db.close();
      }
    },
    cliArgs: () => ["--db", file],
    async dispose() {
      await Promise.all(open.splice(0).map((s) => s.close()));
      if (dir !== null) rmSync(dir, { recursive: true, force: true });
      dir = null;
    },
  };
}

function postgresChainStores(suite: string): ChainStores {
  const skip = skipWithoutPg(suite);
  let schema: TestSchema | null = null;
  const open: Store[] = [];
  const url = process.env["TOOLGATE_PG_URL"] ?? "";
  return {
    name: "postgres",
    skip,
    async fresh(log = {}) {
      await Promise.all(open.splice(0).map((s) => s.close()));
      await schema?.drop();
      schema = await createTestSchema();
      const s = await openPgStore({ pool: schema.pool, decisionLog: log });
      open.push(s);
      return s;
    },
    async peer(log = {}) {
      if (schema === null) throw new Error("fresh() first");
      // Its own pool: other connections, as another process would have.
      const s = await openPgStore({ url, schema: schema.schema, max: 4, decisionLog: log });
      open.push(s);
      return s;
    },
    async exec(sql) {
      if (schema === null) throw new Error("fresh() first");
      await schema.pool.query(sql);
    },
    cliArgs: () => ["--url", url, "--schema", schema?.schema ?? ""],
    async dispose() {
      await Promise.all(open.splice(0).map((s) => s.close()));
      await schema?.drop();
      schema = null;
    },
  };
}

export const chainStores = (suite: string): ChainStores[] => [sqliteChainStores(), postgresChainStores(suite)];
