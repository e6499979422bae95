import { afterAll, describe, expect, it } from "vitest";
import { isPgStoreError, openPgStore } from "../../src/store/postgres/index.js";
import { createPgPool } from "../../src/store/postgres/pool.js";
import type { ClaimRequest, Store } from "../../src/store/store.js";
import { createTestSchema, pgUrl, randomSchemaName, skipWithoutPg, type TestSchema } from "../helpers/pg-env.js";
import { runStoreContract } from "./contract.js";
import { runDecisionLogContract } from "./decision-log-contract.js";

const skip = skipWithoutPg("postgres store");

// One schema for this file (dropped at the end); each contract case starts from empty tables.
let shared: TestSchema | null = null;
async function emptySchema(): Promise<TestSchema> {
  shared ??= await createTestSchema();
  await shared.pool.query(
    "TRUNCATE operations, approval_events, approvals, decision_log, interrupts RESTART IDENTITY CASCADE",
  );
  return shared;
}
afterAll(async () => {
  await shared?.drop();
});

const T0 = 1_700_000_000_000;
const claim = (over: Partial<ClaimRequest> = {}): ClaimRequest => ({
  tenant: "t1",
  operation_id: "op-1",
  tool: "reserve_funds",
  fingerprint: "f".repeat(64),
  owner: "w",
  now_ms: T0,
  lease_ms: 1_000,
  retention_ms: 60_000,
  ...over,
});

describe.skipIf(skip)("postgres", () => {
  runStoreContract("postgres (pool + peer pool)", async () => {
    const env = await emptySchema();
    return {
      store: await openPgStore({ pool: env.pool }),
      openPeer: () => openPgStore({ url: env.url, schema: env.schema, max: 4 }),
    };
  });

  runDecisionLogContract("postgres (pool + peer pool)", async (decisionLog) => {
    const env = await emptySchema();
    return {
      store: await openPgStore({ pool: env.pool, decisionLog }),
      openPeer: () => openPgStore({ url: env.url, schema: env.schema, max: 2 }),
    };
  });

  describe("postgres store specifics", () => {
    it("refuses to open a schema that has not been migrated, naming the command", async () => {
      const schema = randomSchemaName();
      const err = await openPgStore({ url: pgUrl!, schema }).catch((e: unknown) => e);
      expect(isPgStoreError(err) && err.code).toBe("schema_not_migrated");
      expect(String((err as Error).message)).toContain(`toolgate migrate --schema ${schema}`);
    });

    it("migrate: true applies the schema on open", async () => {
      const schema = randomSchemaName();
      const store = await openPgStore({ url: pgUrl!, schema, migrate: true, max: 1 });
      try {
        expect(store.kind).toBe("postgres");
        expect((await store.claimOperation(claim())).kind).toBe("claimed");
      } finally {
        await store.close();
        const pool = createPgPool({ url: pgUrl!, max: 1 });
        await pool.query(`DROP SCHEMA ${schema} CASCADE`);
        await pool.end();
      }
    });

    it("times survive the timestamptz round trip to the millisecond", async () => {
      const env = await emptySchema();
      const store = await openPgStore({ pool: env.pool });
      for (const now of [0, 1, T0 + 123, 4_102_444_800_999]) {
        const r = await store.claimOperation(claim({ operation_id: `op-${now}`, now_ms: now, lease_ms: 7 }));
        expect(r.record).toMatchObject({ created_at_ms: now, lease_expires_at_ms: now + 7, expires_at_ms: now + 60_000 });
      }
    });

    it("racing takeovers of an expired lease across 8 pools: exactly one wins, token grows by one", async () => {
      const env = await emptySchema();
      const stores: Store[] = await Promise.all(
        Array.from({ length: 8 }, () => openPgStore({ url: env.url, schema: env.schema, max: 2 })),
      );
      try {
        await stores[0]!.claimOperation(claim());
        const results = await Promise.all(
          stores.flatMap((s, i) => [0, 1].map((j) => s.claimOperation(claim({ owner: `w${i}.${j}`, now_ms: T0 + 5_000 })))),
        );
        const winners = results.filter((r) => r.kind === "claimed");
        expect(winners).toHaveLength(1);
        expect(winners[0]!.record.fence_token).toBe(2);
        expect(results.filter((r) => r.kind === "busy")).toHaveLength(15);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });

    it("a decision race between two approvers settles once", async () => {
      const env = await emptySchema();
      const a = await openPgStore({ pool: env.pool });
      const b = await openPgStore({ url: env.url, schema: env.schema, max: 1 });
      try {
        await a.createApproval({
          id: "apr", tenant: "t1", run_id: "r", requested_by: "u", tool: "reserve_funds", args: {}, preview: {},
          fingerprint: "a".repeat(64), args_hash: "b".repeat(64), operation_id: null, created_at_ms: T0, expires_at_ms: T0 + 60_000,
          policy_version: "pv", policy_code_version: "pc", policy_data_version: "pd",
        });
        const ev = {
          approval_id: "apr", approver_roles: [], reason: null, edited_args: null, decided_at_ms: T0 + 1,
          policy_version: "pv", policy_code_version: "pc", policy_data_version: "pd",
        };
        const [x, y] = await Promise.all([
          a.decideApproval({ ...ev, decision: "approve", approver: "bob" }),
          b.decideApproval({ ...ev, decision: "reject", approver: "carol" }),
        ]);
        expect([x.ok, y.ok].filter(Boolean)).toHaveLength(1);
        expect(await a.listApprovalEvents("apr")).toHaveLength(1);
      } finally {
        await b.close();
      }
    });
  });
});

describe.skipIf(skip)("postgres connection settings", () => {
  it("pins search_path to the schema and caps statement time", async () => {
    const env = await emptySchema();
    const pool = createPgPool({ url: env.url, schema: env.schema, max: 1, statementTimeoutMs: 200 });
    try {
      const res = await pool.query<{ search_path: string; statement_timeout: string }>(
        "SELECT current_setting('search_path') AS search_path, current_setting('statement_timeout') AS statement_timeout",
      );
      expect(res.rows[0]).toEqual({ search_path: env.schema, statement_timeout: "200ms" });
      await expect(pool.query("SELECT pg_sleep(2)")).rejects.toThrow(/statement timeout/);
    } finally {
      await pool.end();
    }
  });
});
