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
 * Needs TOOLGATE_PG_URL (PostgreSQL rows are skipped with a message otherwise).
 * BENCH_STORE_CALLS sets the timed writes per configuration (split across its
 * workers; default 800). Runs in a fresh schema that is dropped afterwards.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startWorker, stopWorkers, type WorkerHandle } from "../test/workers/harness.js";
import { createTestSchema, pgUrl, type TestSchema } from "../test/workers/pg-env.js";
import { writeShippedPolicy } from "../test/workers/policy.js";
import { printRows, rawPgInsertsPerSec, rawSqliteInsertsPerSec, row } from "./store-anchors.js";
import type { BenchRow } from "./store-anchors.js";

const totalCalls = Number(process.env["BENCH_STORE_CALLS"] ?? "800");
const warmup = 20;
const workerScript = new URL("../test/workers/bench-worker.ts", import.meta.url);

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
    const raw1: number[] = [];
    const raw4: number[] = [];
    const measured: Measured[] = [];
    for (const n of opts.workers ?? [1, 2, 4, 8]) {
      raw1.push(await rawPgInsertsPerSec(pgUrl, calls, 1));
      measured.push(await measure(`postgres x${n}`, n, { ...policy, TG_BENCH_STORE: "postgres", TOOLGATE_TEST_SCHEMA: schema.schema }, calls));
      raw4.push(await rawPgInsertsPerSec(pgUrl, calls, 4));
    }
    const anchor1 = { name: "raw pg insert, 1 connection", value: median(raw1) };
    const anchor4 = { name: "raw pg insert, 4 connections", value: median(raw4) };
    const one = measured[0];
    for (const m of measured) {
      rows.push(row(g, `approved write, PostgreSQL x${m.workers}`, m.perSecond, "calls/s", anchor1, m.workers === 1 ? ">= 0.3x" : undefined));
    }
    for (const m of measured) {
      if (m.workers > 1) rows.push(row(g, `approved write, PostgreSQL x${m.workers} vs x1`, m.perSecond, "calls/s", { name: "PostgreSQL x1", value: one?.perSecond ?? 0 }, m.workers === 2 ? ">= 1.6x" : undefined));
    }
    for (const m of measured) if (m.workers === 4) rows.push(row(g, "approved write, PostgreSQL x4", m.perSecond, "calls/s", anchor4));
  } finally {
    await schema?.drop();
  }
  return rows;
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(
    `bench:store  approved reserve_funds writes through createRuntime; ${totalCalls} timed writes per row ` +
      `(+${warmup} warm-up per worker); ${availableParallelism()} CPU(s)`,
  );
  printRows(await storeBenchRows());
}
