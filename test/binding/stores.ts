/**
 * Runs a suite once per store: SQLite (in memory) always, PostgreSQL when TOOLGATE_PG_URL
 * is set (one schema per file, dropped afterwards; otherwise the PostgreSQL run skips and says so).
 */
import { afterAll, describe } from "vitest";
import { openPgStore } from "../../src/store/postgres/index.js";
import { openSqliteStore } from "../../src/store/index.js";
import type { Store } from "../../src/store/store.js";
import { createTestSchema, skipWithoutPg, type TestSchema } from "../workers/pg-env.js";

export type MakeStore = () => Promise<Store>;

export function describeOnStores(name: string, suite: (makeStore: MakeStore) => void): void {
  describe(`${name} [sqlite]`, () => suite(async () => openSqliteStore(":memory:")));
  const skip = skipWithoutPg(name);
  describe.skipIf(skip)(`${name} [postgres]`, () => {
    let schema: TestSchema | null = null;
    const opened: Store[] = [];
    afterAll(async () => {
      // Closed first: a store's queued decision-log batch must not be written while the schema is dropped.
      for (const store of opened) await store.close();
      await schema?.drop();
    });
    suite(async () => {
      schema ??= await createTestSchema();
      const store = await openPgStore({ pool: schema.pool });
      opened.push(store);
      return store;
    });
  });
}
