// toolgate_ts / toolgate_ms (epoch ms <-> timestamptz) are inlined by the planner, so the
// store's statements evaluate plain expressions instead of calling SQL functions, and
// they convert exactly whatever the session's time zone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestSchema, skipWithoutPg, type TestSchema } from "../helpers/pg-env.js";

const skip = skipWithoutPg("postgres time functions");

describe.skipIf(skip)("toolgate_ts / toolgate_ms", () => {
  let env: TestSchema;
  beforeAll(async () => {
    env = await createTestSchema();
  });
  afterAll(async () => {
    await env?.drop();
  });

  it("are inlined into the statements that use them (no SQL-function call per row or statement)", async () => {
    const client = await env.pool.connect();
    try {
      // A generic plan, as the store's prepared statements run after their first executions.
      await client.query("SET plan_cache_mode = force_generic_plan");
      await client.query("PREPARE tg_inline(bigint) AS SELECT toolgate_ms(toolgate_ts($1)) AS ms");
      const plan = await client.query<{ "QUERY PLAN": string }>("EXPLAIN (VERBOSE) EXECUTE tg_inline(1700000000123)");
      const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
      expect(text).not.toMatch(/toolgate_(ts|ms)/);
      expect(text).toMatch(/EXTRACT\(epoch/);
      const res = await client.query<{ ms: string }>("EXECUTE tg_inline(1700000000123)");
      expect(Number(res.rows[0]!.ms)).toBe(1_700_000_000_123);
    } finally {
      await client.query("DEALLOCATE ALL").catch(() => undefined);
      await client.query("RESET plan_cache_mode").catch(() => undefined);
      client.release();
    }
  });

  it.each(["UTC", "America/New_York", "Asia/Kathmandu", "Pacific/Chatham"])("convert exactly in time zone %s", async (zone) => {
    const client = await env.pool.connect();
    try {
      await client.query(`SET TIME ZONE '${zone}'`);
      const values = [0, 1, -1, 999, -86_400_001, 1_700_000_000_123, 1_796_139_504_918, 4_102_444_800_000, 253_402_300_799_999];
      const res = await client.query<{ ms: string; iso: string }>(
        `SELECT toolgate_ms(toolgate_ts(v)) AS ms, to_char(toolgate_ts(v) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS iso
           FROM unnest($1::bigint[]) WITH ORDINALITY AS u(v, k) ORDER BY k`,
        [values],
      );
      expect(res.rows.map((r) => Number(r.ms))).toEqual(values);
      expect(res.rows.map((r) => `${r.iso}Z`)).toEqual(values.map((v) => new Date(v).toISOString().replace(/^\+0*/, "")));
    } finally {
      await client.query("RESET TIME ZONE").catch(() => undefined);
      client.release();
    }
  });
});
