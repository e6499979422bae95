/**
 * In-place changes of SQLite files made by earlier versions of the store, run on open after
 * the DDL and the added columns (./decision-log.ts `ensureSqliteColumns`). Each change checks
 * the file itself (not only `user_version`, which an older process opening the file later may
 * set back), so it is idempotent and safe when several processes open the file at once.
 */
import Database from "better-sqlite3";
import type { Database as Db } from "better-sqlite3";

const autoincrement = /\s+AUTOINCREMENT\b/i;

const tableSql = (db: Db, table: string): string | undefined =>
  db.prepare<[string], string>("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(table);

/**
 * Schema 2: `decision_log.seq` loses AUTOINCREMENT, which made every insert read and rewrite
 * the table's row in sqlite_sequence (one more page in every commit that logs). The rows are
 * stored the same either way (seq is the rowid), so this changes only the table's definition,
 * with SQLite's documented procedure for definition-only changes (writable_schema, then a new
 * schema_version), in one IMMEDIATE transaction: O(1) whatever the size of the log.
 * Without AUTOINCREMENT a new row's seq is max(seq) + 1, so it is still above every row left
 * and newest first stays ORDER BY seq DESC; a seq freed by a purge of the newest rows may be
 * reused, by a row that has a decision id (only rows without one are found by seq).
 */
export function dropDecisionLogAutoincrement(db: Db): boolean {
  const before = tableSql(db, "decision_log");
  if (before === undefined || !autoincrement.test(before)) return false;
  // The new definition must parse before it replaces the old one in the schema table.
  const probe = new Database(":memory:");
  try {
    probe.exec(before.replace(autoincrement, ""));
  } finally {
    probe.close();
  }
  db.unsafeMode(true);
  try {
    return db.transaction((): boolean => {
      const sql = tableSql(db, "decision_log");
      if (sql === undefined || !autoincrement.test(sql)) return false;
      const version = Number(db.pragma("schema_version", { simple: true }));
      db.pragma("writable_schema = ON");
      try {
        db.prepare("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = 'decision_log'").run(sql.replace(autoincrement, ""));
        db.pragma(`schema_version = ${version + 1}`);
      } finally {
        // RESET: off, and this connection reloads the schema (other connections see the new schema_version).
        db.pragma("writable_schema = RESET");
      }
      db.prepare("DELETE FROM sqlite_sequence WHERE name = 'decision_log'").run();
      return true;
    }).immediate();
  } finally {
    db.unsafeMode(false);
  }
}

const columnNames = (db: Db, table: string): Set<string> =>
  new Set((db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));

/** Column renames of schema 3, by table: the PostgreSQL store's names (`user` is a keyword in SQL). */
export const sqliteRenamedColumns: Readonly<Record<string, readonly (readonly [from: string, to: string])[]>> = {
  decision_log: [["user", "user_id"]],
  pending_calls: [["user", "user_id"]],
};

/**
 * Schema 3: columns renamed to the names both stores use (`sqliteRenamedColumns`).
 * `ALTER TABLE ... RENAME COLUMN` edits the table's definition (and every index and trigger
 * naming the column), not its rows, so it is O(1) whatever the size of the log. In one
 * IMMEDIATE transaction that looks at the columns again inside it: of several processes
 * opening the file at once, the first renames and the others find nothing to do.
 */
export function renameSqliteColumns(db: Db): boolean {
  const pending = (): [string, string, string][] =>
    Object.entries(sqliteRenamedColumns).flatMap(([table, renames]) => {
      const have = columnNames(db, table);
      return renames.filter(([from, to]) => have.has(from) && !have.has(to)).map(([from, to]): [string, string, string] => [table, from, to]);
    });
  if (pending().length === 0) return false;
  return db.transaction((): boolean => {
    const todo = pending();
    for (const [table, from, to] of todo) db.exec(`ALTER TABLE ${table} RENAME COLUMN "${from}" TO ${to}`);
    return todo.length > 0;
  }).immediate();
}

/** Every in-place change, oldest first. */
export function migrateSqliteFile(db: Db): void {
  dropDecisionLogAutoincrement(db);
  renameSqliteColumns(db);
}
