/**
 * A file made by an older SQLite store still opens: the missing columns are added
 * (`ensureSqliteColumns`) and decision_log.seq loses AUTOINCREMENT in place (./migrate.ts),
 * keeping every row, the legacy `seq-N` ids of rows written without a decision id, newest
 * first by seq, and the uniqueness of decision ids.
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/index.js";
import { ensureSqliteColumns } from "../../src/store/sqlite/decision-log.js";
import { dropDecisionLogAutoincrement } from "../../src/store/sqlite/migrate.js";
import { sqliteSchemaVersion } from "../../src/store/sqlite/schema.js";
import type { DecisionLogEntry } from "../../src/store/store.js";
import { sqliteSchemaV1 } from "./fixtures/sqlite-old-schemas.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function v1File(): string {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-upgrade-"));
  dirs.push(dir);
  const path = join(dir, "state.db");
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.exec(sqliteSchemaV1);
  db.pragma("user_version = 1");
  const ins = db.prepare(
    "INSERT INTO decision_log (at_ms, tenant, run_id, user, tool, operation_id, fingerprint, decision, reason, policy_version, outcome, outcome_reason) VALUES (?, 't1', 'r1', 'u', 'get_account', NULL, NULL, 'allow', 'read_allowed', 'pv', 'success', NULL)",
  );
  for (let i = 1; i <= 3; i++) ins.run(1_000 + i);
  db.close();
  return path;
}

const entry = (at_ms: number, over: Partial<DecisionLogEntry> = {}): DecisionLogEntry => ({
  at_ms, tenant: "t1", run_id: "r1", user: "u", tool: "get_account", operation_id: null, fingerprint: null,
  decision: "allow", reason: "read_allowed", policy_version: "pv", outcome: "success", outcome_reason: null, ...over,
});

const logSql = (path: string): { sql: string; sequence: number; version: number; integrity: string } => {
  const db = new Database(path, { readonly: true });
  try {
    return {
      sql: db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'decision_log'").pluck().get() as string,
      sequence: db.prepare("SELECT count(*) FROM sqlite_sequence WHERE name = 'decision_log'").pluck().get() as number,
      version: db.pragma("user_version", { simple: true }) as number,
      integrity: db.pragma("integrity_check", { simple: true }) as string,
    };
  } finally {
    db.close();
  }
};

describe("sqlite store: files of older schemas", () => {
  it("a schema-1 file opens, keeps its rows and legacy ids, and its log loses AUTOINCREMENT in place", async () => {
    const path = v1File();
    expect(logSql(path).sql).toMatch(/AUTOINCREMENT/);
    const store = openSqliteStore(path);
    const after = logSql(path);
    expect(after.sql).not.toMatch(/AUTOINCREMENT/);
    expect(after).toMatchObject({ sequence: 0, version: sqliteSchemaVersion, integrity: "ok" });
    expect((await store.getDecision("seq-2"))?.at_ms).toBe(1_002);
    await store.appendDecision(entry(2_000, { decision_id: "d-new" }));
    await store.appendDecision(entry(2_001));
    const listed = await store.listDecisions({ tenant: "t1" });
    expect(listed.map((r) => r.at_ms)).toEqual([2_001, 2_000, 1_003, 1_002, 1_001]);
    expect(listed.slice(2).map((r) => r.decision_id)).toEqual(["seq-3", "seq-2", "seq-1"]);
    expect(await store.getDecision("d-new")).toMatchObject({ at_ms: 2_000, erased: [] });
    // The migrating connection itself no longer writes sqlite_sequence for the log.
    expect(logSql(path).sequence).toBe(0);
    await store.close();
    // Decision ids stay unique.
    const db = new Database(path);
    expect(() => db.prepare("INSERT INTO decision_log (decision_id, at_ms, tenant, run_id, user_id, tool, decision, outcome) VALUES ('d-new', 1, 't', 'r', 'u', 't', 'allow', 'success')").run()).toThrow(/UNIQUE/);
    db.close();
    // Opening again changes nothing more.
    const again = openSqliteStore(path);
    expect((await again.listDecisions({})).length).toBe(5);
    await again.close();
    expect(logSql(path)).toMatchObject({ sequence: 0, integrity: "ok" });
  });

  // Schema 2's change only (schema 3 renames columns, which a process of an older version
  // still names: those are stopped before the upgrade, see src/store/README.md).
  it("a connection that opened the file before the AUTOINCREMENT change keeps writing to the log", async () => {
    const path = v1File();
    const old = new Database(path);
    const oldInsert = old.prepare(
      "INSERT INTO decision_log (at_ms, tenant, run_id, user, tool, decision, outcome) VALUES (?, 't1', 'r1', 'u', 'get_account', 'allow', 'success')",
    );
    oldInsert.run(1_500);
    const upgrader = new Database(path);
    ensureSqliteColumns(upgrader);
    expect(dropDecisionLogAutoincrement(upgrader)).toBe(true);
    upgrader.close();
    oldInsert.run(1_600);
    old.close();
    const store = openSqliteStore(path);
    await store.appendDecision(entry(1_700));
    expect((await store.listDecisions({ tenant: "t1" })).map((r) => r.at_ms)).toEqual([1_700, 1_600, 1_500, 1_003, 1_002, 1_001]);
    await store.close();
    expect(logSql(path).integrity).toBe("ok");
  });

  it("a new file has no AUTOINCREMENT on the log", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-upgrade-"));
    dirs.push(dir);
    const store = openSqliteStore(join(dir, "state.db"));
    await store.appendDecision(entry(1));
    await store.close();
    expect(logSql(join(dir, "state.db"))).toMatchObject({ sequence: 0, version: sqliteSchemaVersion });
    expect(logSql(join(dir, "state.db")).sql).not.toMatch(/AUTOINCREMENT/);
  });
});
