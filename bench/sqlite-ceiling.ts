/**
 * The ceilings of an approved write and of an allowed read on SQLite, for `npm run bench`.
 *
 * Write: the least work any store
 * design does when a write's claim is durable before its effect and its outcome is committed
 * with its decision-log row (two commits). Timed with no toolgate code at all: commit 1 inserts
 * the claim row into a table keyed by (tenant, operation_id) with no other index; commit 2
 * updates that row and inserts one log row shaped like the raw anchor's row, into a table with
 * no index. Measured in interleaved rounds next to the raw WAL insert the gate rows use (one
 * autocommit INSERT of that same row shape, synchronous NORMAL), so the ratio printed is the
 * highest an approved write can reach against that anchor on this machine.
 *
 * Read: the least store work of an allowed read that checks its run's interrupt flag before the
 * effect and logs its decision: one autocommit SELECT of the flag, and one decision-log row in the
 * store's own schema (its table and indexes, src/store/sqlite/schema.ts), the row written
 * 256 to a transaction (group commit), its input text made by concatenating constant parts with
 * the per-call time (cheaper than any encoder of a real input). No toolgate code runs, so the
 * ratio printed is the highest an allowed read can reach against the raw insert with the log's
 * row as it is stored today; the same without the input text shows what the logged input costs.
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { sqliteSchema } from "../src/store/sqlite/schema.js";
import { ensureSqliteColumns } from "../src/store/sqlite/decision-log.js";
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

/** A decision-log row of an allowed read as the runtime logs it (texts of the shipped manifest's get_account). */
const HASH = "b7ef91ea90181e8ffbf84e60e04252b62822b7d33549d153223e99b77679d41c";
const POLICY = "sha256:2b8c16bf28239d5ed6c9f0ac8de7412e";
const INPUT_HEAD = `{"tool":"get_account","effect":"read","args":{"account_id":"acc_alice"},"fingerprint":"${HASH}","args_hash":"${HASH}","operation_id":null,"principal":{"tenant":"t_bench","user":"bench","roles":["agent"]},"context":{},"approval":null,"now_ms":`;
const INPUT_TAIL = `,"policy_version":"${POLICY}","policy_code_version":"sha256:aa793fcdd91698b0ddf5c1a0a598d561","policy_data_version":"sha256:e2934d4f2743615fb6f862ff9418d8a6"}`;
const RESULT = '{"allow":true,"reason":"read_allowed","requires_approval":false}';

/**
 * Allowed reads per second with the least store work: the interrupt SELECT per read, and the
 * read's log row in the store's schema, 256 rows per transaction. `input: false` logs no input text.
 */
export function leastReadsPerSec(n: number, input: boolean): number {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-read-ceiling-"));
  try {
    const db = new Database(join(dir, "ceiling.db"));
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec(sqliteSchema);
    ensureSqliteColumns(db);
    const interrupt = db.prepare("SELECT reason, at_ms FROM interrupts WHERE tenant = ? AND run_id = ?").raw(true);
    const insert = db.prepare(
      `INSERT INTO decision_log (decision_id, at_ms, tenant, run_id, user_id, tool, operation_id, fingerprint, decision, reason,
         policy_version, outcome, outcome_reason, path, input, result, erased, eval_ns, shadow, shadow_disagrees, expires_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    type Queued = { readonly id: string; readonly at: number; readonly input: string | null };
    const commit = db.transaction((rows: readonly Queued[]) => {
      for (const r of rows)
        insert.run(r.id, r.at, "t_bench", "run_bench", "bench", "get_account", null, HASH, "allow", "read_allowed", POLICY, "success", null,
          "toolgate/authz/decision", r.input, RESULT, "[]", 2_000, null, null, r.at + 2_592_000_000);
    }).immediate;
    let queue: Queued[] = [];
    let serial = 0;
    const read = (): void => {
      if (interrupt.get("t_bench", "run_bench") !== undefined) throw new Error("leastReadsPerSec: no interrupt is ever set");
      const at = Date.now();
      const id = `0190${(serial++).toString(16).padStart(28, "0")}`;
      queue.push({ id, at, input: input ? INPUT_HEAD + at + INPUT_TAIL : null });
      if (queue.length >= 256) {
        commit(queue);
        queue = [];
      }
    };
    for (let i = 0; i < 512; i++) read();
    const start = performance.now();
    for (let i = 0; i < n; i++) read();
    if (queue.length > 0) commit(queue);
    const seconds = (performance.now() - start) / 1000;
    db.close();
    return n / seconds;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The ceiling rows: medians of interleaved rounds of the least two-commit write and the raw insert. */
export function sqliteCeilingRows(opts: { readonly writes?: number; readonly reads?: number; readonly rounds?: number } = {}): BenchRow[] {
  const writes = opts.writes ?? 2_000;
  const rounds = opts.rounds ?? 5;
  const reads = opts.reads ?? 20_000;
  const ceiling: number[] = [];
  const readCeiling: number[] = [];
  const bareReadCeiling: number[] = [];
  const raw: number[] = [];
  for (let k = 0; k < rounds; k++) {
    raw.push(rawSqliteInsertsPerSec(writes, "NORMAL"));
    ceiling.push(leastTwoCommitWritesPerSec(writes));
    readCeiling.push(leastReadsPerSec(reads, true));
    bareReadCeiling.push(leastReadsPerSec(reads, false));
  }
  const anchor = { name: "raw WAL insert (synchronous NORMAL)", value: median(raw) };
  const note = "the highest ratio any approved write on SQLite can reach: two commits (claim, outcome with its log row), no index, no toolgate code";
  const readNote = "the highest ratio an allowed read can reach with the log's row as stored: interrupt SELECT + group-committed row in the store's schema, no toolgate code";
  const bareNote = "the same without the logged input text";
  return [
    { ...row("bench:store", "ceiling: two-commit write, SQLite (no toolgate code)", median(ceiling), "calls/s", anchor), note },
    { ...row("bench:store", "ceiling: allowed read, SQLite (no toolgate code)", median(readCeiling), "calls/s", anchor), note: readNote },
    { ...row("bench:store", "ceiling: allowed read without logged input", median(bareReadCeiling), "calls/s", anchor), note: bareNote },
  ];
}
