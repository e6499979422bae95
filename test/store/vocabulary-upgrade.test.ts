/**
 * Both stores name their tables and columns alike (SQLite schema 3, PostgreSQL migration 016).
 * A database made with the previous names opens with the current store and every row reads back
 * through the Store API: SQLite renames `user` to `user_id` in place (decision_log,
 * pending_calls); PostgreSQL renames idempotency_records to operations and run_state
 * (interrupt_reason, interrupted_at) to interrupts (reason, at).
 */
import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { loadMigrations, migrate } from "../../src/store/postgres/migrations.js";
import { openPgStore } from "../../src/store/postgres/pg-store.js";
import { createPgPool } from "../../src/store/postgres/pool.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { sqliteSchemaVersion } from "../../src/store/sqlite/schema.js";
import type { DecisionLogEntry, Store } from "../../src/store/store.js";
import { dropSchema, pgUrl, randomSchemaName, skipWithoutPg } from "../helpers/pg-env.js";
import { sqliteAddedColumnsV2, sqliteChainV2, sqliteIndexesAfterColumnsV2, sqliteSchemaV2 } from "./fixtures/sqlite-old-schemas.js";

const NOW = 10_000;
const LATER = 1_000_000;

/** What every test stores under the previous names and reads back through the store. */
async function expectOldRowsRead(store: Store): Promise<void> {
  expect(await store.getOperation("t1", "op-1", NOW)).toMatchObject({
    tool: "send", fingerprint: "fp", status: "final", fence_token: 2, attempts: 1, envelope: { outcome: "success" },
    created_at_ms: 1_000, expires_at_ms: LATER,
  });
  expect(await store.getInterrupt("t1", "r1")).toEqual({ tenant: "t1", run_id: "r1", reason: "stop pressed", at_ms: 5_000 });
  expect(await store.getApproval("a-1")).toMatchObject({ id: "a-1", requested_by: "alice", status: "pending", args: { amount: 5 } });
  expect(await store.getPendingCall("a-1")).toMatchObject({ approval_id: "a-1", user: "alice", roles: ["member"], args: { amount: 5 }, created_at_ms: 2_000 });
  expect(await store.getDecision("d-old")).toMatchObject({ decision_id: "d-old", at_ms: 3_000, user: "alice", tool: "send", decision: "allow", outcome: "success" });
  expect(await store.getCurrentPolicy("toolgate/authz/decision")).toMatchObject({ version: "v1", owner: "gate-1", updated_at_ms: 4_000 });
  // The claim's guard reads the interrupt under its new name too.
  const claim = await store.claimOperation({
    tenant: "t1", operation_id: "op-2", tool: "send", fingerprint: "fp2", owner: "me", now_ms: NOW, lease_ms: 1_000, retention_ms: LATER,
    guard: { run_id: "r1", approval_id: null },
  });
  expect(claim).toMatchObject({ kind: "refused", why: "interrupted", detail: "stop pressed" });
  await store.clearInterrupt("t1", "r1");
  expect(await store.getInterrupt("t1", "r1")).toBeNull();
  // New rows go next to the old ones.
  const entry: DecisionLogEntry = {
    decision_id: "d-new", at_ms: 6_000, tenant: "t1", run_id: "r1", user: "bob", tool: "send", operation_id: null, fingerprint: null,
    decision: "deny", reason: "r", policy_version: "v1", outcome: "denied", outcome_reason: null,
  };
  await store.appendDecision(entry);
  expect((await store.listDecisions({ tenant: "t1" })).map((d) => [d.decision_id, d.user])).toEqual([["d-new", "bob"], ["d-old", "alice"]]);
}

// ---------------------------------------------------------------- SQLite

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A file as the schema-2 store left it (DDL, added columns, chain trigger), with one row of each kind. */
function schema2File(): string {
  const dir = mkdtempSync(join(tmpdir(), "tg-vocab-"));
  dirs.push(dir);
  const path = join(dir, "state.db");
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.exec(sqliteSchemaV2);
  db.exec(sqliteChainV2.split("CREATE TRIGGER")[0]!);
  for (const [table, columns] of Object.entries(sqliteAddedColumnsV2)) {
    const have = new Set((db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
    for (const [name, type] of columns) if (!have.has(name)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
  }
  db.exec(sqliteIndexesAfterColumnsV2);
  db.exec(`CREATE TRIGGER${sqliteChainV2.split("CREATE TRIGGER")[1]!}`);
  db.pragma("user_version = 2");
  db.exec(`
    INSERT INTO operations VALUES ('t1', 'op-1', 'send', 'fp', 'final', 2, 'me', 1000, 1, '{"outcome":"success"}', 1000, 1500, ${LATER});
    INSERT INTO interrupts VALUES ('t1', 'r1', 'stop pressed', 5000);
    INSERT INTO approvals (id, tenant, run_id, requested_by, tool, args, preview, fingerprint, operation_id, created_at_ms, expires_at_ms, policy_version, status)
      VALUES ('a-1', 't1', 'r1', 'alice', 'send', '{"amount":5}', '{"amount":5}', 'fp', 'op-1', 2000, ${LATER}, 'v1', 'pending');
    INSERT INTO pending_calls (approval_id, tenant, run_id, user, roles, tool, args, operation_id, policy_reason, created_at_ms)
      VALUES ('a-1', 't1', 'r1', 'alice', '["member"]', 'send', '{"amount":5}', 'op-1', 'needs approval', 2000);
    INSERT INTO decision_log (decision_id, at_ms, tenant, run_id, user, tool, decision, outcome, erased)
      VALUES ('d-old', 3000, 't1', 'r1', 'alice', 'send', 'allow', 'success', '[]');
    INSERT INTO current_policy VALUES ('toolgate/authz/decision', 'v1', 'c1', 'd1', 'gate-1', 4000);
  `);
  db.close();
  return path;
}

const columnsOf = (path: string, table: string): string[] => {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
  } finally {
    db.close();
  }
};

describe("sqlite: a file made with the previous column names", () => {
  it("opens, its user columns are renamed user_id in place, and every row reads back through the store", async () => {
    const path = schema2File();
    const store = openSqliteStore(path, { walCheckpoint: "inline" });
    try {
      await expectOldRowsRead(store);
    } finally {
      await store.close();
    }
    for (const table of ["decision_log", "pending_calls"]) {
      expect(columnsOf(path, table)).toContain("user_id");
      expect(columnsOf(path, table)).not.toContain("user");
    }
    const db = new Database(path, { readonly: true });
    expect(db.pragma("user_version", { simple: true })).toBe(sqliteSchemaVersion);
    db.close();
    // Opening again finds nothing to rename.
    const again = openSqliteStore(path, { walCheckpoint: "inline" });
    expect((await again.getDecision("d-old"))?.user).toBe("alice");
    await again.close();
  });

  const worker = fileURLToPath(new URL("./open-concurrently.worker.ts", import.meta.url));
  const openIn = (path: string, startAt: number): Promise<{ code: number | null; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, ["--import", "tsx", worker, path, String(startAt)], { stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("close", (code) => resolve({ code, stderr }));
    });

  it("processes opening the same schema-2 file at once all succeed, and the rows read back", async () => {
    const path = schema2File();
    const startAt = Date.now() + 1_500;
    const runs = await Promise.all(Array.from({ length: 4 }, () => openIn(path, startAt)));
    expect(runs.filter((r) => r.code !== 0).map((r) => r.stderr.split("\n").find((l) => l.includes("Error")) ?? r.stderr)).toEqual([]);
    const store = openSqliteStore(path, { walCheckpoint: "inline" });
    try {
      await expectOldRowsRead(store);
    } finally {
      await store.close();
    }
  }, 60_000);
});

// ---------------------------------------------------------------- PostgreSQL

const skip = skipWithoutPg("vocabulary upgrade (postgres)");

describe.skipIf(skip)("postgres: a schema migrated before migration 016", () => {
  const pool = skip ? null : createPgPool({ url: pgUrl!, max: 2 });
  const schemas: string[] = [];
  afterAll(async () => {
    for (const s of schemas) await dropSchema(pool!, s);
    await pool?.end();
  });

  /** A schema with migrations below 016 applied, and one row of each kind under the previous names. */
  async function before016(): Promise<string> {
    const schema = randomSchemaName();
    schemas.push(schema);
    await migrate(pool!, { schema, migrations: loadMigrations().filter((m) => m.version < 16) });
    const client = await pool!.connect();
    try {
      await client.query(`SET search_path = ${schema}`);
      await client.query(`
        INSERT INTO idempotency_records (tenant, operation_id, tool, fingerprint, status, fence_token, lease_owner, lease_expires_at, attempts, envelope, created_at, updated_at, expires_at)
          VALUES ('t1', 'op-1', 'send', 'fp', 'final', 2, 'me', toolgate_ts(1000), 1, '{"outcome":"success"}', toolgate_ts(1000), toolgate_ts(1500), toolgate_ts(${LATER}));
        INSERT INTO run_state (tenant, run_id, interrupt_reason, interrupted_at) VALUES ('t1', 'r1', 'stop pressed', toolgate_ts(5000));
        INSERT INTO approvals (id, tenant, run_id, requested_by, tool, args, preview, fingerprint, operation_id, created_at, expires_at, policy_version, status)
          VALUES ('a-1', 't1', 'r1', 'alice', 'send', '{"amount":5}', '{"amount":5}', 'fp', 'op-1', toolgate_ts(2000), toolgate_ts(${LATER}), 'v1', 'pending');
        INSERT INTO pending_calls (approval_id, tenant, run_id, user_id, roles, tool, args, operation_id, policy_reason, created_at)
          VALUES ('a-1', 't1', 'r1', 'alice', '["member"]', 'send', '{"amount":5}', 'op-1', 'needs approval', toolgate_ts(2000));
        INSERT INTO decision_log (decision_id, at, tenant, run_id, user_id, tool, decision, outcome)
          VALUES ('d-old', toolgate_ts(3000), 't1', 'r1', 'alice', 'send', 'allow', 'success');
        INSERT INTO current_policy VALUES ('toolgate/authz/decision', 'v1', 'c1', 'd1', 'gate-1', toolgate_ts(4000));
      `);
    } finally {
      await client.query("RESET search_path").catch(() => undefined);
      client.release();
    }
    return schema;
  }

  const tables = async (schema: string): Promise<string[]> =>
    (await pool!.query<{ t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1", [schema])).rows.map((r) => r.t);

  it("migrates with renames only, and every row reads back through the store", async () => {
    const schema = await before016();
    const store = await openPgStore({ url: pgUrl!, schema, migrate: true, max: 2 });
    try {
      await expectOldRowsRead(store);
    } finally {
      await store.close();
    }
    const names = await tables(schema);
    expect(names).toEqual(expect.arrayContaining(["operations", "interrupts"]));
    expect(names).not.toContain("idempotency_records");
    expect(names).not.toContain("run_state");
    const cols = await pool!.query<{ c: string }>(
      "SELECT column_name AS c FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'interrupts' ORDER BY ordinal_position",
      [schema],
    );
    expect(cols.rows.map((r) => r.c)).toEqual(["tenant", "run_id", "reason", "at"]);
  });

  it("workers opening the schema at once with migrate apply 016 once, and all of them read the rows", async () => {
    const schema = await before016();
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPgStore({ url: pgUrl!, schema, migrate: true, max: 1 })));
    try {
      const applied = await pool!.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.schema_migrations WHERE version = 16`);
      expect(applied.rows[0]!.n).toBe(1);
      for (const s of stores) expect((await s.getDecision("d-old"))?.user).toBe("alice");
      await expectOldRowsRead(stores[0]!);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});
