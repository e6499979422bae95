/**
 * npm run bench:store — approved writes per second through the real runtime
 * (prepare -> authorize -> invoke with the shipped policy compiled to WebAssembly,
 * each call pre-approved, one sequential caller per worker process) with 1, 2, 4 and 8
 * worker processes sharing one PostgreSQL store, and with one process on the embedded
 * SQLite store (a WAL file), in one run, printed as ratios to raw inserts measured in
 * the same run (better-sqlite3 WAL autocommit inserts, synchronous NORMAL as the store
 * runs it; `pg` autocommit inserts on 1 and 4 connections, around every PostgreSQL row)
 * and to one worker. `storeBenchRows()` returns the rows for the umbrella benchmark.
 *
 * The store-alone rows (`storeAloneRows`) time the SQLite store's own work per call without
 * the runtime, in CPU (an allowed read: the interrupt flag and a group-committed decision-log
 * entry; an approved write as the runtime makes it: the claim-first claim with the call-state read, the outcome with its entry), as
 * calls per CPU-second next to raw WAL inserts timed the same way in the same process
 * (`BENCH_STORE_ALONE_ONLY=1` prints only these and the ceiling rows). The ceiling rows
 * (./sqlite-ceiling.ts) time the least two-commit write and the least allowed read with no
 * toolgate code: the highest ratios an approved write and an allowed read on SQLite can reach
 * against the raw insert.
 *
 * Needs TOOLGATE_PG_URL (PostgreSQL rows are skipped with a message otherwise).
 * BENCH_STORE_CALLS sets the timed writes per configuration (split across its
 * workers; default 800); BENCH_STORE_ROUNDS the interleaved rounds over the PostgreSQL
 * worker counts, whose median each row reports (default 3). Runs in a fresh schema that
 * is dropped afterwards.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { openSqliteStore } from "../src/store/index.js";
import type { DecisionLogEntry, Store } from "../src/store/store.js";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startWorker, stopWorkers, type WorkerHandle } from "../test/helpers/workers/harness.js";
import { createTestSchema, pgUrl, type TestSchema } from "../test/helpers/pg-env.js";
import { writeShippedPolicy } from "../test/helpers/workers/policy.js";
import { sqliteCeilingRows } from "./sqlite-ceiling.js";
import { printRows, rawPgInsertsPerSec, rawSqliteInsertsPerSec, row } from "./store-anchors.js";
import type { BenchRow } from "./store-anchors.js";

const totalCalls = Number(process.env["BENCH_STORE_CALLS"] ?? "800");
const roundsDefault = Number(process.env["BENCH_STORE_ROUNDS"] ?? "3");
const warmup = 20;
const workerScript = new URL("./store-worker.ts", import.meta.url);

interface Measured {
  readonly label: string;
  readonly workers: number;
  readonly calls: number;
  readonly perSecond: number;
}

async function measure(label: string, workers: number, env: Record<string, string>, totalCalls: number): Promise<Measured> {
  const perWorker = Math.ceil(totalCalls / workers);
  const procs: WorkerHandle[] = [];
  try {
    for (let i = 0; i < workers; i++) {
      procs.push(
        startWorker(workerScript, `${label.replace(/\W+/g, "")}w${i}`, {
          ...env,
          TG_BENCH_CALLS: String(perWorker),
          TG_BENCH_WARMUP: String(warmup),
        }),
      );
    }
    await Promise.all(procs.map((p) => p.next("prepared", 180_000)));
    for (const p of procs) p.send({ type: "go" });
    const done = await Promise.all(procs.map((p) => p.next("done", 180_000)));
    for (const p of procs) p.send({ type: "exit" });
    const ok = done.reduce((n, d) => n + Number(d["ok"]), 0);
    const calls = done.reduce((n, d) => n + Number(d["calls"]), 0);
    if (ok !== calls) throw new Error(`${label}: ${calls - ok} of ${calls} approved writes did not succeed`);
    const start = Math.min(...done.map((d) => Number(d["start"])));
    const end = Math.max(...done.map((d) => Number(d["end"])));
    const seconds = (end - start) / 1000;
    return { label, workers, calls, perSecond: calls / seconds };
  } finally {
    await Promise.race([Promise.all(procs.map((p) => p.exited)), new Promise((r) => setTimeout(r, 5_000))]);
    await stopWorkers(procs);
  }
}

export interface StoreBenchOptions {
  /** Timed approved writes per configuration, split across its workers. Default $BENCH_STORE_CALLS or 800. */
  readonly calls?: number;
  /** PostgreSQL worker counts. Default 1, 2, 4, 8. */
  readonly workers?: readonly number[];
  /** Interleaved rounds over the worker counts (each PostgreSQL row is their median). Default $BENCH_STORE_ROUNDS or 3. */
  readonly rounds?: number;
}

/**
 * Approved writes per second through createRuntime: one process on SQLite, and 1, 2, 4, 8
 * worker processes sharing PostgreSQL; next to raw inserts measured in the same run.
 */
export async function storeBenchRows(opts: StoreBenchOptions = {}): Promise<BenchRow[]> {
  const calls = opts.calls ?? totalCalls;
  const g = "bench:store";
  const rows: BenchRow[] = [];
  const policy = { TG_POLICY_WASM: await writeShippedPolicy() };
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-"));
  try {
    const rawBefore = rawSqliteInsertsPerSec(calls, "NORMAL");
    const sqlite = await measure("sqlite x1", 1, { ...policy, TG_BENCH_STORE: "sqlite", TG_BENCH_SQLITE_PATH: join(dir, "state.db") }, calls);
    const raw = (rawBefore + rawSqliteInsertsPerSec(calls, "NORMAL")) / 2;
    rows.push(row(g, "approved write, SQLite x1", sqlite.perSecond, "calls/s", { name: "raw WAL insert (synchronous NORMAL)", value: raw }, ">= 0.4x"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (pgUrl === undefined) {
    console.warn("PostgreSQL rows SKIPPED: set TOOLGATE_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/test)");
    return rows;
  }
  let schema: TestSchema | null = null;
  try {
    schema = await createTestSchema();
    const counts = opts.workers ?? [1, 2, 4, 8];
    const rounds = opts.rounds ?? roundsDefault;
    const raw1: number[] = [];
    const raw4: number[] = [];
    const perSecond = new Map<number, number[]>(counts.map((n) => [n, []]));
    // Worker counts alternate within each round and every row is a median over rounds, so a
    // burst of load on this shared machine moves one sample of each row, not one row.
    for (let r = 0; r < rounds; r++) {
      for (const n of counts) {
        raw1.push(await rawPgInsertsPerSec(pgUrl, calls, 1));
        perSecond.get(n)!.push((await measure(`postgres x${n} round ${r}`, n, { ...policy, TG_BENCH_STORE: "postgres", TOOLGATE_TEST_SCHEMA: schema.schema }, calls)).perSecond);
        raw4.push(await rawPgInsertsPerSec(pgUrl, calls, 4));
      }
    }
    const anchor1 = { name: "raw pg insert, 1 connection", value: median(raw1) };
    const anchor4 = { name: "raw pg insert, 4 connections", value: median(raw4) };
    const measured = counts.map((n) => ({ workers: n, perSecond: median(perSecond.get(n)!) }));
    const one = measured[0];
    const note = `median of ${rounds} interleaved round(s)`;
    for (const m of measured) {
      rows.push(row(g, `approved write, PostgreSQL x${m.workers} (${note})`, m.perSecond, "calls/s", anchor1, m.workers === 1 ? ">= 0.3x" : undefined));
    }
    for (const m of measured) {
      if (m.workers > 1) rows.push(row(g, `approved write, PostgreSQL x${m.workers} vs x1 (${note})`, m.perSecond, "calls/s", { name: "PostgreSQL x1", value: one?.perSecond ?? 0 }, m.workers === 2 ? ">= 1.6x" : undefined));
    }
    for (const m of measured) if (m.workers === 4) rows.push(row(g, `approved write, PostgreSQL x4 (${note})`, m.perSecond, "calls/s", anchor4));
  } finally {
    await schema?.drop();
  }
  return rows;
}

const cpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** A decision-log entry shaped like the runtime's for an allowed read of the shipped manifest. */
function readEntry(at_ms: number): DecisionLogEntry {
  const hash = "b7ef91ea90181e8ffbf84e60e04252b62822b7d33549d153223e99b77679d41c";
  const versions = { policy_version: "sha256:2dad8bc945c5189c66029af8c6b40c4f", policy_code_version: "sha256:814ac3deb18f964b0d95641be70f56d4", policy_data_version: "sha256:e2934d4f2743615fb6f862ff9418d8a6" };
  return {
    at_ms, tenant: "t_bench", run_id: "run_bench", user: "bench", tool: "get_account", operation_id: null, fingerprint: hash,
    decision: "allow", reason: "read_allowed", policy_version: versions.policy_version, outcome: "success", outcome_reason: null,
    path: "toolgate/authz/decision",
    input: {
      tool: "get_account", effect: "read", args: { account_id: "acc_alice" }, fingerprint: hash, args_hash: hash, operation_id: null,
      principal: { tenant: "t_bench", user: "bench", roles: ["agent"] }, context: {}, approval: null, now_ms: at_ms, ...versions,
    },
    result: { allow: true, reason: "read_allowed", requires_approval: false }, erased: [], eval_ns: 29_594, shadow: null, expires_at_ms: at_ms + 2_592_000_000,
  };
}

/**
 * The store's own work per call, without the runtime, in CPU µs (process.cpuUsage, which also
 * counts the checkpoint thread): an allowed read (the interrupt flag, then its decision-log
 * entry queued and group-committed) and an approved write as the runtime makes it (claimFirst:
 * the guarded claim with the call-state read, then the outcome with its decision-log entry and
 * the approval's consumption), on a WAL file.
 */
async function storeAlone(store: Store, reads: number, writes: number, from: number): Promise<{ readUs: number; writeUs: number }> {
  let now = Date.now();
  const fingerprint = "3937d4defb7aa3bfeb85ce39d5fa65e7378fe8e59dc1484dbbaa8487e437676a";
  const versions = { policy_version: "v", policy_code_version: "c", policy_data_version: "d" };
  const ids: string[] = [];
  for (let i = 0; i < writes; i++) {
    const id = `apr_${from + i}`;
    await store.createApproval({ id, tenant: "t_bench", run_id: "run_bench", requested_by: "bench", tool: "reserve_funds", args: { amount: 1 }, preview: { amount: 1 }, fingerprint, args_hash: fingerprint, operation_id: `op-${from + i}`, created_at_ms: now, expires_at_ms: now + 3_600_000, ...versions });
    await store.decideApproval({ approval_id: id, decision: "approve", approver: "approver", approver_roles: ["approver"], reason: null, edited_args: null, decided_at_ms: now, ...versions });
    ids.push(id);
  }
  let t = cpuUs();
  for (let i = 0; i < reads; i++) {
    now++;
    await store.getInterrupt("t_bench", "run_bench");
    await store.appendDecision(readEntry(now));
  }
  await store.flushDecisions();
  const readUs = (cpuUs() - t) / reads;
  t = cpuUs();
  for (let i = 0; i < writes; i++) {
    now++;
    const op = `op-${from + i}`;
    const approval_id = ids[i] ?? "";
    const first = await store.claimFirst({ tenant: "t_bench", operation_id: op, tool: "reserve_funds", fingerprint, owner: "bench", now_ms: now, lease_ms: 10_000, retention_ms: 86_400_000, guard: { run_id: "run_bench", approval_id }, interrupt: true });
    const claim = first.claimed;
    if (claim === null) throw new Error("store alone: claim-first made no claim");
    const envelope = { outcome: "success", value: { reservation_id: "res_0001", state: "reserved" }, operation_id: op, replayed: false };
    const decision: DecisionLogEntry = { ...readEntry(now), tool: "reserve_funds", operation_id: op, fingerprint, reason: "approved" };
    const recorded = await store.recordOutcome({ tenant: "t_bench", operation_id: op, fence_token: claim.record.fence_token, status: "final", envelope, now_ms: now, consume_approval_id: approval_id, decision });
    if (!recorded.recorded) throw new Error(`store alone: outcome not recorded (${recorded.why})`);
  }
  return { readUs, writeUs: (cpuUs() - t) / writes };
}

/** Store-alone rows: CPU per call as calls per CPU-second, next to raw WAL inserts measured the same way, interleaved, medians. */
export async function storeAloneRows(opts: { readonly reads?: number; readonly writes?: number; readonly rounds?: number } = {}): Promise<BenchRow[]> {
  const reads = opts.reads ?? 5_000;
  const writes = opts.writes ?? 800;
  const rounds = opts.rounds ?? 5;
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-alone-"));
  const store = openSqliteStore(join(dir, "state.db"));
  try {
    await storeAlone(store, 1_000, 100, -1_000);
    const r: number[] = [];
    const w: number[] = [];
    const raw: number[] = [];
    for (let k = 0; k < rounds; k++) {
      const t = cpuUs();
      rawSqliteInsertsPerSec(2_000, "NORMAL");
      raw.push((cpuUs() - t) / 2_000);
      const m = await storeAlone(store, reads, writes, k * writes);
      r.push(m.readUs);
      w.push(m.writeUs);
    }
    const anchor = { name: "raw WAL insert (synchronous NORMAL), CPU", value: 1e6 / median(raw) };
    return [
      row("bench:store", "store alone: allowed read, SQLite", 1e6 / median(r), "calls/CPU-s", anchor),
      row("bench:store", "store alone: approved write, SQLite", 1e6 / median(w), "calls/CPU-s", anchor),
    ];
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(
    `bench:store  approved reserve_funds writes through createRuntime; ${totalCalls} timed writes per row ` +
      `(+${warmup} warm-up per worker); ${availableParallelism()} CPU(s)`,
  );
  if (process.env["BENCH_STORE_ALONE_ONLY"] !== "1") printRows(await storeBenchRows());
  printRows(await storeAloneRows());
  printRows(sqliteCeilingRows());
}
