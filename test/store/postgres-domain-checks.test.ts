// Migration 008 moves the single-column CHECK constraints of operations (idempotency_records
// before migration 016) and
// approvals into domains: PostgreSQL re-reads and re-prepares a table's CHECK constraints
// in every INSERT/UPDATE it executes, a domain's once per connection. The same values
// stay refused, and a database that has rows when it migrates keeps them.
import { afterAll, describe, expect, it } from "vitest";
import { loadMigrations, migrate } from "../../src/store/postgres/migrations.js";
import { createPgPool } from "../../src/store/postgres/pool.js";
import { dropSchema, pgUrl, randomSchemaName, skipWithoutPg } from "../helpers/pg-env.js";

const skip = skipWithoutPg("postgres domain checks");

// `table`: idempotency_records in a schema migrated to before 016.
const insertRecord = (over: Record<string, string>, table = "operations"): string => {
  const v = { status: "'in_progress'", fence_token: "1", attempts: "1", claimed_from: "NULL", envelope: "NULL", ...over };
  return `INSERT INTO ${table} (tenant, operation_id, tool, fingerprint, status, fence_token, lease_owner,
      lease_expires_at, attempts, claimed_from, envelope, created_at, updated_at, expires_at)
    VALUES ('t', 'op-' || gen_random_uuid(), 'tool', 'fp', ${v.status}, ${v.fence_token}, 'me', now(), ${v.attempts},
      ${v.claimed_from}, ${v.envelope}, now(), now(), now())`;
};
const insertApproval = (status: string): string => `
  INSERT INTO approvals (id, tenant, run_id, requested_by, tool, args, preview, fingerprint, created_at, expires_at, policy_version, status)
  VALUES ('ap-' || gen_random_uuid(), 't', 'r', 'u', 'tool', '{}', '{}', 'fp', now(), now(), 'v', ${status})`;

describe.skipIf(skip)("migration 008: the write path's value checks as domains", () => {
  const pool = skip ? null : createPgPool({ url: pgUrl!, max: 2 });
  const schemas: string[] = [];
  const migrated = async (upTo?: number): Promise<string> => {
    const schema = randomSchemaName();
    schemas.push(schema);
    const migrations = loadMigrations().filter((m) => upTo === undefined || m.version <= upTo);
    await migrate(pool!, { schema, migrations });
    return schema;
  };
  const run = async (schema: string, sql: string): Promise<void> => {
    const client = await pool!.connect();
    try {
      await client.query(`SET search_path = ${schema}`);
      await client.query(sql);
    } finally {
      await client.query("RESET search_path").catch(() => undefined);
      client.release();
    }
  };
  afterAll(async () => {
    for (const s of schemas) await dropSchema(pool!, s);
    await pool?.end();
  });

  it("leaves no single-column CHECK constraint on operations or approvals (re-prepared per statement)", async () => {
    const schema = await migrated();
    const res = await pool!.query<{ rel: string; def: string }>(
      `SELECT c.conrelid::regclass::text AS rel, pg_get_constraintdef(c.oid) AS def FROM pg_constraint c
        JOIN pg_namespace n ON n.oid = c.connamespace
       WHERE n.nspname = $1 AND c.contype = 'c' AND c.conrelid <> 0 ORDER BY 1, 2`,
      [schema],
    );
    const onHotTables = res.rows.filter((r) => /^(.*\.)?(operations|approvals)$/.test(r.rel));
    // Only the two checks across columns remain table constraints.
    expect(onHotTables.map((r) => r.def)).toEqual([
      "CHECK (((consumed_by IS NULL) = (consumed_at IS NULL)))",
      "CHECK ((((status)::text <> 'final'::text) OR (envelope IS NOT NULL)))",
    ]);
  });

  it.each([
    { column: "status", row: { status: "'done'" } },
    { column: "fence_token", row: { fence_token: "0" } },
    { column: "attempts", row: { attempts: "0" } },
    { column: "claimed_from", row: { claimed_from: "'final'" } },
    { column: "status and envelope together", row: { status: "'final'" } },
  ])("still refuses an operation record with an invalid $column", async ({ row }) => {
    const schema = await migrated();
    await run(schema, insertRecord({}));
    await expect(run(schema, insertRecord(row))).rejects.toThrow(/violates check constraint/);
  });

  it("still refuses an approval with an unknown status, and an UPDATE to one", async () => {
    const schema = await migrated();
    await run(schema, insertApproval("'approved'"));
    await expect(run(schema, insertApproval("'granted'"))).rejects.toThrow(/violates check constraint/);
    await expect(run(schema, "UPDATE approvals SET status = 'granted'")).rejects.toThrow(/violates check constraint/);
    await expect(run(schema, "UPDATE operations SET status = 'done'")).resolves.toBeUndefined(); // no rows
  });

  it("applies to a database with rows, keeping them", async () => {
    const schema = await migrated(7);
    await run(schema, insertRecord({ status: "'final'", envelope: `'{"outcome":"success"}'`, fence_token: "3", attempts: "2", claimed_from: "'unknown'" }, "idempotency_records"));
    await run(schema, insertApproval("'expired'"));
    const res = await migrate(pool!, { schema });
    expect(res.applied.map((m) => m.version)).toContain(8);
    const client = await pool!.connect();
    try {
      await client.query(`SET search_path = ${schema}`);
      const rec = await client.query("SELECT status, fence_token, attempts, claimed_from, json_build_array(status, fence_token) AS j FROM operations");
      expect(rec.rows).toEqual([{ status: "final", fence_token: "3", attempts: 2, claimed_from: "unknown", j: ["final", 3] }]);
      const apr = await client.query("SELECT status FROM approvals");
      expect(apr.rows).toEqual([{ status: "expired" }]);
    } finally {
      await client.query("RESET search_path").catch(() => undefined);
      client.release();
    }
  });

  it("refuses to migrate a database holding a row the checks would refuse", async () => {
    const schema = await migrated(7);
    // Possible only with the old constraint dropped by hand: the migration must not hide it.
    await run(schema, "ALTER TABLE idempotency_records DROP CONSTRAINT idempotency_records_attempts_check");
    await run(schema, insertRecord({ attempts: "0" }, "idempotency_records"));
    await expect(migrate(pool!, { schema })).rejects.toThrow(/constraint/);
  });
});
