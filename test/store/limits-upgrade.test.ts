/**
 * A SQLite file whose limit_entries predates the `counts` column (and its triggers) opens with
 * the same figures: the column is filled from the records, and entries of gone records dropped.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/index.js";
import type { ClaimRequest, LimitClaim } from "../../src/store/store.js";

const limit: LimitClaim = { name: "cap", key: '["acc"]', window_ms: 86_400_000, amount: 100, max_sum: null, max_count: null, seen: null };
const claim = (id: string, now: number): ClaimRequest => ({ tenant: "t", operation_id: id, tool: "reserve_funds", fingerprint: `f-${id}`, owner: "w", now_ms: now, lease_ms: 1_000, retention_ms: 86_400_000, limits: [limit] });

describe("limit entries of an older SQLite file", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-limits-upgrade-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a file whose limit_entries has no counts column opens with its figures intact", async () => {
    const path = join(dir, "old.db");
    const now = 1_800_000_000_000;
    let store = openSqliteStore(path);
    for (const id of ["ok", "failed", "crashed"]) expect((await store.claimOperation(claim(id, now))).kind).toBe("claimed");
    expect((await store.recordOutcome({ tenant: "t", operation_id: "ok", fence_token: 1, status: "final", envelope: { outcome: "success", value: {} }, now_ms: now + 1 })).recorded).toBe(true);
    expect((await store.recordOutcome({ tenant: "t", operation_id: "failed", fence_token: 1, status: "final", envelope: { outcome: "terminal_failure", reason: "amount_mismatch", message: "no" }, now_ms: now + 1 })).recorded).toBe(true);
    const read = { tenant: "t", operation_id: null, now_ms: now + 5_000, keys: [limit] };
    const before = await store.readLimitFigures(read);
    expect(before).toEqual({ cap: { count: 2, sum: 200 } });
    await store.close();
    // The table as the store wrote it before `counts`, with an entry of a record that is gone.
    const db = new Database(path);
    db.exec(`DROP TRIGGER limit_entries_settle; DROP TRIGGER limit_entries_gone; DROP INDEX limit_entries_window;
      CREATE TABLE old_entries (tenant TEXT NOT NULL, limit_name TEXT NOT NULL, limit_key TEXT NOT NULL, operation_id TEXT NOT NULL,
        amount REAL NOT NULL, claimed_at_ms INTEGER NOT NULL, PRIMARY KEY (tenant, limit_name, operation_id));
      INSERT INTO old_entries SELECT tenant, limit_name, limit_key, operation_id, amount, claimed_at_ms FROM limit_entries;
      DROP TABLE limit_entries; ALTER TABLE old_entries RENAME TO limit_entries;
      INSERT INTO limit_entries VALUES ('t', 'cap', '["acc"]', 'gone', 100, ${now});`);
    db.close();
    store = openSqliteStore(path);
    expect(await store.readLimitFigures(read)).toEqual(before);
    await store.close();
  });
});
