/**
 * The ceiling of an approved write on SQLite, for `npm run bench`: the least work any store
 * design does when a write's claim is durable before its effect and its outcome is committed
 * with its decision-log row (two commits). Timed with no toolgate code at all: commit 1 inserts
 * the claim row into a table keyed by (tenant, operation_id) with no other index; commit 2
 * updates that row and inserts one log row shaped like the raw anchor's row, into a table with
 * no index. Measured in interleaved rounds next to the raw WAL insert the gate rows use (one
 * autocommit INSERT of that same row shape, synchronous NORMAL), so the ratio printed is the
 * highest an approved write can reach against that anchor on this machine.
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { median } from "./rows.js";
import { rawSqliteInsertsPerSec, row } from "./store-anchors.js";
import type { BenchRow } from "./store-anchors.js";

/** Two-commit writes per second: claim row, then its update and one log row (WAL, synchronous NORMAL, as the store runs it). */
export function leastTwoCommitWritesPerSec(n: number): number {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-ceiling-"));
  try {
    const db = new Database(join(dir, "ceiling.db"));
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec(`CREATE TABLE ops (tenant TEXT, operation_id TEXT, status TEXT, fence_token INTEGER, envelope TEXT,
               PRIMARY KEY (tenant, operation_id)) WITHOUT ROWID;
             CREATE TABLE log (seq INTEGER PRIMARY KEY, at_ms INTEGER, tenant TEXT, run_id TEXT, user TEXT, tool TEXT,
               operation_id TEXT, decision TEXT, reason TEXT, outcome TEXT)`);
    const claim = db.prepare("INSERT INTO ops VALUES (?, ?, 'in_progress', 1, NULL)");
    const finish = db.prepare("UPDATE ops SET status = 'final', envelope = ? WHERE tenant = ? AND operation_id = ? AND fence_token = 1");
    const log = db.prepare("INSERT INTO log (at_ms, tenant, run_id, user, tool, operation_id, decision, reason, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    const envelope = '{"outcome":"success","value":{"reservation_id":"res_0001","state":"reserved"}}';
    const commitClaim = db.transaction((op: string) => claim.run("t_bench", op)).immediate;
    const commitOutcome = db.transaction((op: string) => {
      finish.run(envelope, "t_bench", op);
      log.run(Date.now(), "t_bench", "run_bench", "bench", "reserve_funds", op, "allow", "approved", "success");
    }).immediate;
    const write = (i: number): void => {
      const op = `op-${i}`;
      commitClaim(op);
      commitOutcome(op);
    };
    for (let i = 0; i < 200; i++) write(-1 - i);
    const start = performance.now();
    for (let i = 0; i < n; i++) write(i);
    const seconds = (performance.now() - start) / 1000;
    db.close();
    return n / seconds;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The ceiling row: medians of interleaved rounds of the least two-commit write and the raw insert. */
export function sqliteCeilingRows(opts: { readonly writes?: number; readonly rounds?: number } = {}): BenchRow[] {
  const writes = opts.writes ?? 2_000;
  const rounds = opts.rounds ?? 5;
  const ceiling: number[] = [];
  const raw: number[] = [];
  for (let k = 0; k < rounds; k++) {
    raw.push(rawSqliteInsertsPerSec(writes, "NORMAL"));
    ceiling.push(leastTwoCommitWritesPerSec(writes));
  }
  const anchor = { name: "raw WAL insert (synchronous NORMAL)", value: median(raw) };
  const note = "the highest ratio any approved write on SQLite can reach: two commits (claim, outcome with its log row), no index, no toolgate code";
  return [{ ...row("bench:store", "ceiling: two-commit write, SQLite (no toolgate code)", median(ceiling), "calls/s", anchor), note }];
}
