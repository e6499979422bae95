/**
 * npm run bench:store — approved writes per second through the real runtime
 * (prepare -> authorize -> invoke with the shipped policy compiled to WebAssembly,
 * each call pre-approved) with 1, 4 and 8 worker
 * processes sharing one PostgreSQL store, and with one process on the embedded
 * SQLite store (a WAL file), in one run, printed with ratios.
 *
 * Needs TOOLGATE_PG_URL (PostgreSQL rows are skipped with a message otherwise).
 * BENCH_STORE_CALLS sets the timed writes per configuration (split across its
 * workers; default 800). Runs in a fresh schema that is dropped afterwards.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { availableParallelism } from "node:os";
import { startWorker, stopWorkers, type WorkerHandle } from "../test/workers/harness.js";
import { createTestSchema, pgUrl, type TestSchema } from "../test/workers/pg-env.js";
import { writeShippedPolicy } from "../test/workers/policy.js";

interface Row {
  readonly label: string;
  readonly workers: number;
  readonly calls: number;
  readonly seconds: number;
  readonly perSecond: number;
}

const totalCalls = Number(process.env["BENCH_STORE_CALLS"] ?? "800");
const warmup = 20;
const workerScript = new URL("../test/workers/bench-worker.ts", import.meta.url);

async function measure(label: string, workers: number, env: Record<string, string>): Promise<Row> {
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
    return { label, workers, calls, seconds, perSecond: calls / seconds };
  } finally {
    await Promise.race([Promise.all(procs.map((p) => p.exited)), new Promise((r) => setTimeout(r, 5_000))]);
    await stopWorkers(procs);
  }
}

const fmt = (n: number, digits = 0): string => n.toFixed(digits);

async function main(): Promise<void> {
  console.log(
    `bench:store  approved reserve_funds writes through createRuntime; ${totalCalls} timed writes per row ` +
      `(+${warmup} warm-up per worker); ${availableParallelism()} CPU(s)`,
  );
  const rows: Row[] = [];
  const policy = { TG_POLICY_WASM: await writeShippedPolicy() };
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-"));
  try {
    rows.push(await measure("sqlite x1", 1, { ...policy, TG_BENCH_STORE: "sqlite", TG_BENCH_SQLITE_PATH: join(dir, "state.db") }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (pgUrl === undefined) {
    console.warn("PostgreSQL rows SKIPPED: set TOOLGATE_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/test)");
  } else {
    let schema: TestSchema | null = null;
    try {
      schema = await createTestSchema();
      for (const n of [1, 4, 8]) {
        rows.push(await measure(`postgres x${n}`, n, { ...policy, TG_BENCH_STORE: "postgres", TOOLGATE_TEST_SCHEMA: schema.schema }));
      }
    } finally {
      await schema?.drop();
    }
  }
  const sqlite = rows.find((r) => r.label === "sqlite x1")!;
  const pg1 = rows.find((r) => r.label === "postgres x1");
  console.log("");
  console.log("store        workers  writes  seconds  writes/s  vs postgres x1  vs sqlite x1");
  for (const r of rows) {
    console.log(
      `${r.label.padEnd(12)} ${String(r.workers).padStart(7)} ${String(r.calls).padStart(7)} ${fmt(r.seconds, 2).padStart(8)} ` +
        `${fmt(r.perSecond).padStart(9)} ${(pg1 === undefined ? "-" : `${fmt(r.perSecond / pg1.perSecond, 2)}x`).padStart(15)} ` +
        `${`${fmt(r.perSecond / sqlite.perSecond, 2)}x`.padStart(12)}`,
    );
  }
}

await main();
