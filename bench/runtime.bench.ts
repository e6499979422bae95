// npm run bench:runtime — gated calls on the SQLite store (a WAL file) with the real compiled
// policy, in one run, each next to an anchor measured in the same process:
//   (a) an allowed read (get_account) and (b) an approved write (reserve_funds, approval granted
//   beforehand, one operation id per call) against raw better-sqlite3 autocommit inserts into a
//   WAL file with synchronous NORMAL (as the store runs it) and FULL, and against calling the
//   handler directly; (c) the read with the decision log committed per call
//   (`decisionLog: { durability: "sync" }`) next to the default group commit.
// Rounds interleave the variants so machine load hits them alike; medians are printed.
// N (calls per round) and WARMUP can be set in the environment.
// `runtimeBenchRows()` returns the rows for the umbrella benchmark.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { compilePolicy } from "../codegen/compiler/index.js";
import { formatDiagnostic } from "../codegen/diagnostics.js";
import { manifest, validators } from "../generated/index.js";
import { EscrowLedger, escrowHandlers, escrowReconcilers } from "../src/demo/escrow.js";
import type { InvokeContext, TrustedContext } from "../src/generated-runtime.js";
import type { JsonObject } from "../src/manifest.js";
import { loadPolicyEngine } from "../src/policy/default-engine.js";
import { createRuntime } from "../src/runtime/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { grantedApprovals } from "./granted-approvals.js";
import { printRows, rawSqliteInsertsPerSec, row } from "./store-anchors.js";
import type { BenchRow } from "./store-anchors.js";

const ENTRYPOINT = "toolgate/authz/decision";

async function policyWasm(): Promise<{ wasm: Uint8Array; source: string }> {
  if (existsSync("generated/policy.wasm")) return { wasm: new Uint8Array(readFileSync("generated/policy.wasm")), source: "generated/policy.wasm" };
  const file = "policies/authz.rego";
  const r = compilePolicy({ modules: [{ file, source: readFileSync(file, "utf8") }], entrypoints: [ENTRYPOINT] });
  if (r.wasm === null) throw new Error(`cannot compile ${file}:\n${r.errors.map(formatDiagnostic).join("\n")}`);
  return { wasm: r.wasm, source: `${file} (compiled in process)` };
}

/** Calls per second of `n` sequential awaited calls. */
async function rate(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  return (n / (performance.now() - start)) * 1000;
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const ctx: TrustedContext = { tenant: "t_bench", user: "bench", roles: ["agent"], run_id: "run_bench" };
const signal = new AbortController().signal;
const readCtx: InvokeContext = { ...ctx, tool: "get_account", operation_id: null, fence_token: null, signal };
const writeCtx: InvokeContext = { ...ctx, tool: "reserve_funds", operation_id: "direct", fence_token: 1, signal };
const writeArgs: JsonObject = { account_id: "acc_alice", amount: 1, currency: "EUR", recipient: "acc_bob" };

export interface RuntimeBenchOptions {
  /** Calls per round and variant. Default $N or 1000. */
  readonly n?: number;
  readonly rounds?: number;
  readonly warmup?: number;
}

export async function runtimeBenchRows(opts: RuntimeBenchOptions = {}): Promise<BenchRow[]> {
  const n = opts.n ?? Number(process.env["N"] ?? 1000);
  const rounds = opts.rounds ?? 5;
  const warmup = opts.warmup ?? Number(process.env["WARMUP"] ?? 200);
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-"));
  try {
    const { wasm } = await policyWasm();
    const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as JsonObject;
    // The runtime's default engine, as a deployment runs it.
    const policy = await loadPolicyEngine({ wasm, entrypoint: ENTRYPOINT, data });
    const ledger = new EscrowLedger([
      { account_id: "acc_alice", balance: 1_000_000_000, currency: "EUR", status: "open" },
      { account_id: "acc_bob", balance: 0, currency: "EUR", status: "open" },
    ]);
    const handlers = escrowHandlers(ledger);
    const store = openSqliteStore(join(dir, "bench.db"));
    const runtime = createRuntime({ manifest, validators, handlers, reconcilers: escrowReconcilers(ledger), policy, store });
    const syncStore = openSqliteStore(join(dir, "bench-sync.db"), { decisionLog: { durability: "sync" } });
    const syncRuntime = createRuntime({ manifest, validators, handlers, reconcilers: escrowReconcilers(ledger), policy, store: syncStore });

    // Approvals for every write are requested and granted before timing starts.
    const writes = warmup + n * rounds;
    const approvals = await grantedApprovals(runtime, ctx, "reserve_funds", writeArgs, writes);
    const check = (e: { outcome: string }) => {
      if (e.outcome !== "success") throw new Error(`gated call failed: ${JSON.stringify(e)}`);
    };
    const readArgs = { account_id: "acc_alice" };
    const directRead = () => handlers.get_account(readArgs, readCtx);
    const gatedRead = async () => check(await runtime.call(ctx, { tool: "get_account", args: readArgs }));
    const gatedReadSync = async () => check(await syncRuntime.call(ctx, { tool: "get_account", args: readArgs }));
    const directWrite = () => handlers.reserve_funds({ account_id: "acc_alice", amount: 1, currency: "EUR", recipient: "acc_bob" }, writeCtx);
    let nextWrite = 0;
    const gatedWrite = async () => {
      const i = nextWrite++;
      check(await runtime.call(ctx, { tool: "reserve_funds", args: writeArgs, operation_id: `op-${i}`, approval_id: approvals[i] ?? "" }));
    };

    await rate(warmup, directRead);
    await rate(warmup, gatedRead);
    await rate(warmup, gatedReadSync);
    await rate(warmup, directWrite);
    await rate(warmup, gatedWrite);
    const m: Record<"rawNormal" | "rawFull" | "read" | "readSync" | "write" | "directRead" | "directWrite", number[]> = {
      rawNormal: [], rawFull: [], read: [], readSync: [], write: [], directRead: [], directWrite: [],
    };
    for (let r = 0; r < rounds; r++) {
      m.rawNormal.push(rawSqliteInsertsPerSec(n, "NORMAL"));
      m.read.push(await rate(n, gatedRead));
      m.write.push(await rate(n, gatedWrite));
      m.readSync.push(await rate(n, gatedReadSync));
      m.rawFull.push(rawSqliteInsertsPerSec(n, "FULL"));
      m.directRead.push(await rate(n, directRead));
      m.directWrite.push(await rate(n, directWrite));
    }
    await store.close();
    await syncStore.close();
    const g = "bench:runtime";
    const walNormal = { name: "raw WAL insert (synchronous NORMAL)", value: median(m.rawNormal) };
    const walFull = { name: "raw WAL insert (synchronous FULL)", value: median(m.rawFull) };
    return [
      row(g, "allowed read, SQLite (group-committed log)", median(m.read), "calls/s", walNormal, ">= 1.5x"),
      row(g, "approved write, SQLite", median(m.write), "calls/s", walNormal, ">= 0.4x"),
      row(g, "approved write, SQLite", median(m.write), "calls/s", walFull),
      row(g, "allowed read, decision log committed per call", median(m.readSync), "calls/s", walNormal),
      row(g, "allowed read, group commit vs per-call commit", median(m.read), "calls/s", { name: "per-call commit", value: median(m.readSync) }),
      row(g, "allowed read through the gate", median(m.read), "calls/s", { name: "handler called directly", value: median(m.directRead) }),
      row(g, "approved write through the gate", median(m.write), "calls/s", { name: "handler called directly", value: median(m.directWrite) }),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { source } = await policyWasm();
  const n = Number(process.env["N"] ?? 1000);
  console.log(`bench:runtime — ${n} calls per round, 5 rounds (medians), SQLite WAL file store, policy ${source}, node ${process.version}`);
  printRows(await runtimeBenchRows({ n }));
}
