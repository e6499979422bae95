/**
 * A database made before the audit chain gets its columns when opened (SQLite) or migrated
 * (PostgreSQL); its older rows are reported as unchained, not as broken, and new records
 * start the chain at position 1.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { verifyChain } from "../../src/store/chain/index.js";
import type { DecisionLogEntry } from "../../src/store/store.js";
import { openSqliteStore } from "../../src/store/index.js";
import { loadMigrations, migrate } from "../../src/store/postgres/migrations.js";
import { openPgStore } from "../../src/store/postgres/index.js";
import { createTestSchema, skipWithoutPg } from "../helpers/pg-env.js";
import { readChain } from "./audit-chain-stores.js";
import { sqliteSchemaV1 } from "./fixtures/sqlite-old-schemas.js";

const entry = (at_ms: number): DecisionLogEntry => ({
  decision_id: `new-${at_ms}`, at_ms, tenant: "t1", run_id: "r1", user: "u", tool: "get_account", operation_id: null, fingerprint: null,
  decision: "allow", reason: "read_allowed", policy_version: "pv", outcome: "success", outcome_reason: null,
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("audit chain on a database made before it", () => {
  it("sqlite: a schema-1 file gets the chain columns on open; its rows are unchained and new ones chain from position 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tg-chain-upgrade-"));
    dirs.push(dir);
    const path = join(dir, "state.db");
    const db = new Database(path);
    db.exec(sqliteSchemaV1);
    db.pragma("user_version = 1");
    db.prepare(
      "INSERT INTO decision_log (at_ms, tenant, run_id, user, tool, decision, outcome) VALUES (1000, 't1', 'r1', 'u', 'get_account', 'allow', 'success')",
    ).run();
    db.close();
    const store = openSqliteStore(path);
    try {
      await store.appendDecision(entry(2000));
      await store.flushDecisions();
      const snap = await readChain(store);
      expect(snap.records.find((r) => r.id === "new-2000")?.seq).toBe(1);
      const v = verifyChain(snap);
      expect(v.ok).toBe(true);
      expect(v.tenants[0]).toMatchObject({ tenant: "t1", records: 1, unchained: 1, broken: null });
    } finally {
      await store.close();
    }
  });

  it.skipIf(skipWithoutPg("audit chain upgrade"))(
    "postgres: migration 12 adds the chain to a schema with rows; they are unchained and new ones chain from position 1",
    async () => {
      const schema = await createTestSchema({ migrated: false });
      try {
        await migrate(schema.pool, { schema: schema.schema, migrations: loadMigrations().filter((m) => m.version < 12) });
        await schema.pool.query(
          `INSERT INTO decision_log (decision_id, at, tenant, run_id, user_id, tool, decision, outcome)
           VALUES ('old-1', now(), 't1', 'r1', 'u', 'get_account', 'allow', 'success')`,
        );
        await migrate(schema.pool, { schema: schema.schema });
        const store = await openPgStore({ pool: schema.pool });
        try {
          await store.appendDecision(entry(2000));
          await store.flushDecisions();
          const snap = await readChain(store);
          expect(snap.records.find((r) => r.id === "new-2000")?.seq).toBe(1);
          const v = verifyChain(snap);
          expect(v.ok).toBe(true);
          expect(v.tenants[0]).toMatchObject({ tenant: "t1", records: 1, unchained: 1, broken: null });
        } finally {
          await store.close();
        }
      } finally {
        await schema.drop();
      }
    },
  );
});
