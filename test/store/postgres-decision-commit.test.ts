// Group-committed decision-log batches commit without waiting for their WAL flush
// (synchronous_commit off for that transaction only); the `sync` durability switch keeps
// every entry's commit synchronous, and the outcome of a write stays synchronous either way.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertDecisions } from "../../src/store/postgres/decision-log.js";
import { openPgStore } from "../../src/store/postgres/index.js";
import { createTestSchema, skipWithoutPg, type TestSchema } from "../helpers/pg-env.js";
import { logEntry } from "./decision-log-contract.js";

const skip = skipWithoutPg("postgres decision-log commits");
const T0 = 1_700_000_000_000;

/** The names of the prepared statements a pool's connections run. */
function watchStatements(pool: pg.Pool): string[] {
  const names: string[] = [];
  const wrap = (client: pg.PoolClient): void => {
    const marked = client as pg.PoolClient & { __watched?: boolean };
    if (marked.__watched === true) return;
    marked.__watched = true;
    const query = client.query.bind(client) as (...a: unknown[]) => unknown;
    (client as unknown as { query: (...a: unknown[]) => unknown }).query = (...a: unknown[]) => {
      const q = a[0];
      if (typeof q === "object" && q !== null && "name" in q && typeof q.name === "string") names.push(q.name);
      return query(...a);
    };
  };
  pool.on("connect", wrap);
  pool.on("acquire", wrap);
  return names;
}

describe.skipIf(skip)("postgres decision-log commits", () => {
  let env: TestSchema;
  beforeAll(async () => {
    env = await createTestSchema();
  });
  afterAll(async () => {
    await env?.drop();
  });

  it("a batch commits with synchronous_commit off only when asked, and the session keeps its setting", async () => {
    expect(await insertDecisions(env.pool, [logEntry({ decision_id: "async-1" }), logEntry({ decision_id: "async-2" })], false)).toBe("off");
    expect(await insertDecisions(env.pool, [logEntry({ decision_id: "sync-1" })], true)).toBe("on");
    const after = await env.pool.query<{ synchronous_commit: string }>("SHOW synchronous_commit");
    expect(after.rows.map((r) => r.synchronous_commit)).toEqual(["on"]);
    const ids = await env.pool.query<{ decision_id: string }>("SELECT decision_id FROM decision_log WHERE decision_id LIKE '%sync-%' ORDER BY seq");
    expect(ids.rows.map((r) => r.decision_id)).toEqual(["async-1", "async-2", "sync-1"]);
  });

  it.each([
    { durability: "batched" as const, statement: "toolgate_log_append_batch_async" },
    { durability: "sync" as const, statement: "toolgate_log_append_batch" },
  ])("the store's $durability decision log uses $statement", async ({ durability, statement }) => {
    const pool = await createTestSchema();
    try {
      const names = watchStatements(pool.pool);
      const store = await openPgStore({ pool: pool.pool, decisionLog: { durability } });
      await store.appendDecision(logEntry({ decision_id: `${durability}-1`, at_ms: T0 }));
      await store.flushDecisions();
      expect(names.filter((n) => n.startsWith("toolgate_log_append"))).toEqual([statement]);
      expect(await store.getDecision(`${durability}-1`)).toEqual(logEntry({ decision_id: `${durability}-1`, at_ms: T0 }));
      await store.close();
    } finally {
      await pool.drop();
    }
  });
});
