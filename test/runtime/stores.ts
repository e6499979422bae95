/**
 * The stores the runtime guarantee suite runs on: SQLite in memory, and PostgreSQL
 * when TOOLGATE_PG_URL is set (one schema per file, emptied before every test).
 */
import { openSqliteStore } from "../../src/store/index.js";
import { openPgStore } from "../../src/store/postgres/index.js";
import type { Store } from "../../src/store/store.js";
import { createTestSchema, skipWithoutPg } from "../workers/pg-env.js";
import type { TestSchema } from "../workers/pg-env.js";

export interface StoreFactory {
  readonly name: string;
  /** True when this store cannot run here (the suite is skipped, and says so). */
  readonly skip: boolean;
  /** An empty store, isolated from every earlier test. */
  fresh(): Promise<Store>;
  /** Releases what `fresh` set up (schemas, pools). */
  dispose(): Promise<void>;
}

export function sqliteStores(): StoreFactory {
  const open: Store[] = [];
  return {
    name: "sqlite",
    skip: false,
    async fresh() {
      const s = openSqliteStore(":memory:");
      open.push(s);
      return s;
    },
    async dispose() {
      await Promise.all(open.splice(0).map((s) => s.close()));
    },
  };
}

export function postgresStores(suite: string): StoreFactory {
  const skip = skipWithoutPg(suite);
  let schema: TestSchema | null = null;
  let current: Store | null = null;
  return {
    name: "postgres",
    skip,
    async fresh() {
      // The previous test's store first writes what it still queues (the decision log), then the tables are emptied.
      await current?.close();
      schema ??= await createTestSchema();
      // Every table but the migration ledger, so tables added by later migrations are emptied too.
      const tables = await schema.pool.query<{ tablename: string }>(
        "SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename <> 'schema_migrations'",
        [schema.schema],
      );
      if (tables.rows.length > 0) {
        await schema.pool.query(`TRUNCATE ${tables.rows.map((r) => `"${r.tablename}"`).join(", ")} RESTART IDENTITY CASCADE`);
      }
      current = await openPgStore({ pool: schema.pool });
      return current;
    },
    async dispose() {
      await current?.close();
      current = null;
      await schema?.drop();
      schema = null;
    },
  };
}

/** Both stores, in the order the suite runs them. */
export const guaranteeStores = (suite: string): StoreFactory[] => [sqliteStores(), postgresStores(suite)];
