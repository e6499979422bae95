/**
 * The handler's side table for multi-process runs on SQLite: a file of its own (not the
 * store's), shared by the worker processes, so counting its rows counts effects
 * independently of what the runtime recorded.
 */
import Database from "better-sqlite3";
import type { EffectSink } from "./effects-table.js";

export function openSqliteEffects(path: string): EffectSink & { rows(): { operation_id: string; amount: number }[]; close(): void } {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 30000");
  db.exec(`CREATE TABLE IF NOT EXISTS test_effects (seq INTEGER PRIMARY KEY, tenant TEXT NOT NULL, operation_id TEXT NOT NULL,
    fence_token INTEGER NOT NULL, worker TEXT NOT NULL, amount INTEGER NOT NULL)`);
  const insert = db.prepare("INSERT INTO test_effects (tenant, operation_id, fence_token, worker, amount) VALUES (?, ?, ?, ?, ?)");
  const find = db.prepare<[string, string], { seq: number }>("SELECT seq FROM test_effects WHERE tenant = ? AND operation_id = ? ORDER BY seq LIMIT 1");
  return {
    apply: async (e) => Number(insert.run(e.tenant, e.operation_id, e.fence_token, e.worker, e.amount).lastInsertRowid),
    find: async (tenant, operationId) => find.get(tenant, operationId)?.seq ?? null,
    rows: () => db.prepare<[], { operation_id: string; amount: number }>("SELECT operation_id, amount FROM test_effects ORDER BY seq").all(),
    close: () => db.close(),
  };
}
