/**
 * The same cases on both stores: `describeEachStore(name, (stores) => ...)` runs the suite on
 * SQLite always and on PostgreSQL when TOOLGATE_PG_URL is set (otherwise that run is skipped and
 * says so in one line). Every PostgreSQL run works in schemas of its own (toolgate_test_<random>),
 * dropped afterwards, so files running in parallel never see each other's rows.
 *
 * `stores.fresh()` is an empty database for the test that asks: the stores earlier tests opened
 * are closed (their queued decision-log rows written) and their database emptied; a second
 * `fresh()` within one test gets a second database, so both stay usable. A store opened before
 * the first test (in beforeAll) stays open, on its own database, until the suite ends.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type pg from "pg";
import { afterAll, beforeEach, describe } from "vitest";
import type { DecisionLogOptions } from "../../src/store/decision-batch.js";
import { openSqliteStore } from "../../src/store/index.js";
import { openPgStore } from "../../src/store/postgres/index.js";
import type { Store } from "../../src/store/store.js";
import { createTestSchema, pgUrl, skipWithoutPg, type TestSchema } from "./pg-env.js";

export type StoreName = "sqlite" | "postgres";

export interface FreshStoreOptions {
  readonly decisionLog?: DecisionLogOptions;
}

/** Where the database of the latest `fresh()` is, for a second connection or another process. */
export type StoreSite =
  | { readonly name: "sqlite"; readonly path: string }
  | { readonly name: "postgres"; readonly url: string; readonly schema: string; readonly pool: pg.Pool };

export interface TestStores {
  readonly name: StoreName;
  /** A store on an empty database (see the module comment for what it closes and empties). */
  fresh(opts?: FreshStoreOptions): Promise<Store>;
  /** Another store on the latest fresh() database: another connection (SQLite) or pool (PostgreSQL). Needs `sqlite: "file"`. */
  peer(opts?: FreshStoreOptions): Promise<Store>;
  /** Runs SQL on the latest fresh() database outside any store, as someone with write access would. Needs `sqlite: "file"`. */
  exec(sql: string): Promise<void>;
  /** The latest fresh() database. Needs `sqlite: "file"`. */
  site(): StoreSite;
  /** The CLI flags that open the latest fresh() database (--db FILE, or --url URL --schema S). Needs `sqlite: "file"`. */
  cliArgs(): string[];
  /** The environment that points a `toolgate` process at the latest fresh() database (PostgreSQL), else {}. */
  env(): Record<string, string>;
}

export interface StoreSuiteOptions {
  /** SQLite in memory (the default, fastest) or in a file (for peer, exec, site, cliArgs and child processes). */
  readonly sqlite?: "memory" | "file";
}

/** Both stores' test harness outside vitest (a script); `close()` releases every database it made. */
export interface OpenedTestStores extends TestStores {
  /** The next fresh() starts a new test: earlier stores are closed and their database emptied. */
  nextTest(): void;
  close(): Promise<void>;
}

/** The stores to run on here: SQLite, and PostgreSQL when TOOLGATE_PG_URL is set. */
export const availableStores = (): StoreName[] => (pgUrl === undefined ? ["sqlite"] : ["sqlite", "postgres"]);

/** Runs `suite` once per store, as `${name} [sqlite]` and `${name} [postgres]`. */
export function describeEachStore(name: string, suite: (stores: TestStores) => void, opts: StoreSuiteOptions = {}): void {
  for (const store of ["sqlite", "postgres"] as const) {
    const skip = store === "postgres" && skipWithoutPg(name);
    describe.skipIf(skip)(`${name} [${store}]`, () => {
      const stores = openTestStores(store, opts);
      beforeEach(() => stores.nextTest());
      afterAll(() => stores.close());
      suite(stores);
    });
  }
}

const closeAll = async (opened: Store[]): Promise<void> => void (await Promise.all(opened.splice(0).map((s) => s.close())));

export function openTestStores(name: StoreName, opts: StoreSuiteOptions = {}): OpenedTestStores {
  return name === "sqlite" ? sqliteStores(opts.sqlite ?? "memory") : postgresStores();
}

function sqliteStores(mode: "memory" | "file"): OpenedTestStores {
  const dir = mode === "file" ? mkdtempSync(join(tmpdir(), "toolgate-test-store-")) : null;
  let files = 0;
  let path = "";
  let started = false;
  const suiteLong: Store[] = [];
  const earlier: Store[] = [];
  let current: Store[] = [];
  const needsFile = (what: string): string => {
    if (dir === null) throw new Error(`stores.${what}() needs a SQLite file: describeEachStore(name, suite, { sqlite: "file" })`);
    if (path === "") throw new Error(`stores.${what}() before stores.fresh()`);
    return path;
  };
  const open = (file: string, o: FreshStoreOptions): Store => {
    const s = openSqliteStore(file, { decisionLog: o.decisionLog ?? {}, ...(dir === null ? {} : { walCheckpoint: "inline" as const }) });
    current.push(s);
    return s;
  };
  return {
    name: "sqlite",
    async fresh(o = {}) {
      await closeAll(earlier);
      if (dir === null) return open(":memory:", o);
      path = join(dir, `store-${++files}.db`);
      return open(path, o);
    },
    async peer(o = {}) {
      return open(needsFile("peer"), o);
    },
    async exec(sql) {
      const db = new Database(needsFile("exec"));
      try {
        db.exec(sql);
      } finally {
        db.close();
      }
    },
    site: () => ({ name: "sqlite", path: needsFile("site") }),
    cliArgs: () => ["--db", needsFile("cliArgs")],
    env: () => ({}),
    nextTest() {
      (started ? earlier : suiteLong).push(...current);
      current = [];
      started = true;
    },
    async close() {
      await closeAll(earlier);
      await closeAll(current);
      await closeAll(suiteLong);
      if (dir !== null) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresStores(): OpenedTestStores {
  // `main` is reused from test to test (emptied); a second database within one test is an extra schema.
  let main: TestSchema | null = null;
  const extra: TestSchema[] = [];
  let latest: TestSchema | null = null;
  let usedThisTest = false;
  let dirty = false;
  let started = false;
  // A store opened before the first test keeps `main`; every later database is an extra schema.
  let mainKept = false;
  const suiteLong: Store[] = [];
  const earlier: Store[] = [];
  let current: Store[] = [];
  const needsFresh = (what: string): TestSchema => {
    if (latest === null) throw new Error(`stores.${what}() before stores.fresh()`);
    return latest;
  };
  const open = async (schema: TestSchema, o: FreshStoreOptions): Promise<Store> => {
    const s = await openPgStore({ pool: schema.pool, decisionLog: o.decisionLog ?? {} });
    current.push(s);
    return s;
  };
  return {
    name: "postgres",
    async fresh(o = {}) {
      if (usedThisTest || mainKept) {
        const schema = await createTestSchema();
        extra.push(schema);
        latest = schema;
        return open(schema, o);
      }
      usedThisTest = true;
      mainKept = !started;
      // Closed first: a store's queued decision-log batch must not be written after the tables are emptied.
      await closeAll(earlier);
      main ??= await createTestSchema();
      if (dirty) await emptyTables(main);
      dirty = true;
      latest = main;
      return open(main, o);
    },
    async peer(o = {}) {
      const schema = needsFresh("peer");
      // Its own pool: other connections, as another process would have.
      const s = await openPgStore({ url: schema.url, schema: schema.schema, max: 4, decisionLog: o.decisionLog ?? {} });
      current.push(s);
      return s;
    },
    async exec(sql) {
      await needsFresh("exec").pool.query(sql);
    },
    site() {
      const s = needsFresh("site");
      return { name: "postgres", url: s.url, schema: s.schema, pool: s.pool };
    },
    cliArgs() {
      const s = needsFresh("cliArgs");
      return ["--url", s.url, "--schema", s.schema];
    },
    env() {
      const s = needsFresh("env");
      return { TOOLGATE_PG_URL: s.url, TOOLGATE_PG_SCHEMA: s.schema };
    },
    nextTest() {
      (started ? earlier : suiteLong).push(...current);
      current = [];
      usedThisTest = false;
      started = true;
    },
    async close() {
      await closeAll(earlier);
      await closeAll(current);
      await closeAll(suiteLong);
      for (const s of extra.splice(0)) await s.drop();
      await main?.drop();
      main = null;
    },
  };
}

/** Every table but the migration ledger, so tables added by later migrations are emptied too. */
async function emptyTables(schema: TestSchema): Promise<void> {
  const tables = await schema.pool.query<{ tablename: string }>(
    "SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename <> 'schema_migrations'",
    [schema.schema],
  );
  if (tables.rows.length > 0) await schema.pool.query(`TRUNCATE ${tables.rows.map((r) => `"${r.tablename}"`).join(", ")} RESTART IDENTITY CASCADE`);
}
