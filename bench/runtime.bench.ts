// npm run bench:runtime — throughput and latency of gated calls with the SQLite store and the
// real compiled policy, each as a ratio to calling the same handler directly, in one run:
//   (a) an allowed read (get_account), (b) an approved write (reserve_funds, approval granted
//   beforehand, one operation id per call), and (c) the same read with the decision log
//   committed synchronously (`decisionLog: { durability: "sync" }`, one commit per call) next
//   to the default group commit. N and WARMUP can be set in the environment.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { compilePolicy } from "../codegen/compiler/index.js";
import { formatDiagnostic } from "../codegen/diagnostics.js";
import { manifest, validators } from "../generated/index.js";
import { EscrowLedger, escrowHandlers, escrowReconcilers } from "../src/demo/escrow.js";
import type { InvokeContext, TrustedContext } from "../src/generated-runtime.js";
import type { JsonObject } from "../src/manifest.js";
import { loadOpaWasmEngine } from "../src/policy/index.js";
import { createRuntime } from "../src/runtime/index.js";
import { openSqliteStore } from "../src/store/index.js";

const N = Number(process.env["N"] ?? 2000);
const WARMUP = Number(process.env["WARMUP"] ?? 200);
const ENTRYPOINT = "toolgate/authz/decision";

async function policyWasm(): Promise<{ wasm: Uint8Array; source: string }> {
  if (existsSync("generated/policy.wasm")) return { wasm: new Uint8Array(readFileSync("generated/policy.wasm")), source: "generated/policy.wasm" };
  const file = "policies/authz.rego";
  const r = compilePolicy({ modules: [{ file, source: readFileSync(file, "utf8") }], entrypoints: [ENTRYPOINT] });
  if (r.wasm === null) throw new Error(`cannot compile ${file}:\n${r.errors.map(formatDiagnostic).join("\n")}`);
  return { wasm: r.wasm, source: `${file} (compiled in process)` };
}

interface Stats {
  readonly callsPerSec: number;
  readonly p50: number;
  readonly p99: number;
}

async function measure(n: number, fn: (i: number) => Promise<unknown>): Promise<Stats> {
  const times = new Float64Array(n);
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    times[i] = performance.now() - t;
  }
  const total = performance.now() - start;
  times.sort();
  const at = (q: number) => times[Math.min(n - 1, Math.floor(q * n))] ?? 0;
  return { callsPerSec: (n / total) * 1000, p50: at(0.5), p99: at(0.99) };
}

const ctx: TrustedContext = { tenant: "t_bench", user: "bench", roles: ["agent"], run_id: "run_bench" };
// The direct baseline is the bare handler call: its context is built once, outside the timing.
const signal = new AbortController().signal;
const readCtx: InvokeContext = { ...ctx, tool: "get_account", operation_id: null, fence_token: null, signal };
const writeCtx: InvokeContext = { ...ctx, tool: "reserve_funds", operation_id: "direct", fence_token: 1, signal };
const writeArgs: JsonObject = { account_id: "acc_alice", amount: 1, currency: "EUR", recipient: "acc_bob" };

const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-"));
try {
  const { wasm, source } = await policyWasm();
  const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as JsonObject;
  const policy = await loadOpaWasmEngine({ wasm, entrypoint: ENTRYPOINT, data });
  const ledger = new EscrowLedger([{ account_id: "acc_alice", balance: 10_000_000, currency: "EUR", status: "open" }, { account_id: "acc_bob", balance: 0, currency: "EUR", status: "open" }]);
  const handlers = escrowHandlers(ledger);
  const store = openSqliteStore(join(dir, "bench.db"));
  const runtime = createRuntime({ manifest, validators, handlers, reconcilers: escrowReconcilers(ledger), policy, store });
  const syncStore = openSqliteStore(join(dir, "bench-sync.db"), { decisionLog: { durability: "sync" } });
  const syncRuntime = createRuntime({ manifest, validators, handlers, reconcilers: escrowReconcilers(ledger), policy, store: syncStore });

  // Approvals for every write are requested and granted before timing starts.
  const total = WARMUP + N;
  const approvals: string[] = [];
  for (let i = 0; i < total; i++) {
    const ask = await runtime.call(ctx, { tool: "reserve_funds", args: writeArgs, operation_id: `op-${i}` });
    if (ask.outcome !== "terminal_failure" || ask.approval_id === undefined) throw new Error(`expected approval_required: ${JSON.stringify(ask)}`);
    const d = await runtime.approvals.decide(ask.approval_id, { decision: "approve" }, { tenant: ctx.tenant, user: "bench-approver", roles: ["approver"] });
    if (!d.ok) throw new Error(d.message);
    approvals.push(ask.approval_id);
  }
  const check = (e: { outcome: string }) => {
    if (e.outcome !== "success") throw new Error(`gated call failed: ${JSON.stringify(e)}`);
  };
  const readArgs = { account_id: "acc_alice" };
  const directRead = () => handlers.get_account(readArgs, readCtx);
  const gatedRead = async () => check(await runtime.call(ctx, { tool: "get_account", args: readArgs }));
  const gatedReadSync = async () => check(await syncRuntime.call(ctx, { tool: "get_account", args: readArgs }));
  const directWrite = () => handlers.reserve_funds({ account_id: "acc_alice", amount: 1, currency: "EUR", recipient: "acc_bob" }, writeCtx);
  const gatedWrite = async (i: number) => check(await runtime.call(ctx, { tool: "reserve_funds", args: writeArgs, operation_id: `op-${i}`, approval_id: approvals[i] ?? "" }));

  await measure(WARMUP, directRead);
  await measure(WARMUP, gatedRead);
  await measure(WARMUP, gatedReadSync);
  await measure(WARMUP, directWrite);
  await measure(WARMUP, gatedWrite);
  // The two read variants alternate in rounds so that machine load hits both alike.
  const ROUNDS = 4;
  const batched: Stats[] = [];
  const synced: Stats[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    batched.push(await measure(Math.ceil(N / ROUNDS), gatedRead));
    synced.push(await measure(Math.ceil(N / ROUNDS), gatedReadSync));
  }
  const median = (xs: Stats[]): Stats => [...xs].sort((a, b) => a.callsPerSec - b.callsPerSec)[Math.floor(xs.length / 2)]!;
  const rows = [
    { name: "read  (get_account)", direct: await measure(N, directRead), gated: await measure(N, gatedRead) },
    { name: "read, decision log group-committed (default) vs committed per call (durability: sync)", direct: median(synced), gated: median(batched), labels: ["sync commit", "group commit"] as const },
    { name: "write (reserve_funds, approved)", direct: await measure(N, directWrite), gated: await measure(N, (i) => gatedWrite(i + WARMUP)) },
  ];

  const f = (x: number, d = 3) => x.toFixed(d);
  console.log(`bench:runtime — N=${N} (warm-up ${WARMUP}), SQLite WAL file store, policy ${source} (${policy.version}), node ${process.version}`);
  for (const r of rows) {
    console.log(`\n${r.name}`);
    const [a, b] = "labels" in r && r.labels !== undefined ? r.labels : (["direct handler", "through gate"] as const);
    console.log(`  ${a.padEnd(15)}: ${f(r.direct.callsPerSec, 0).padStart(9)} calls/s   p50 ${f(r.direct.p50)} ms   p99 ${f(r.direct.p99)} ms`);
    console.log(`  ${b.padEnd(15)}: ${f(r.gated.callsPerSec, 0).padStart(9)} calls/s   p50 ${f(r.gated.p50)} ms   p99 ${f(r.gated.p99)} ms`);
    const d = "labels" in r ? 2 : 0;
    console.log(
      `  ratio ${"labels" in r ? "group/sync" : "gate/direct"}: throughput ${f(r.gated.callsPerSec / r.direct.callsPerSec, 4)}x, p50 ${f(r.gated.p50 / Math.max(r.direct.p50, 1e-6), d)}x, p99 ${f(r.gated.p99 / Math.max(r.direct.p99, 1e-6), d)}x`,
    );
  }
  await store.close();
  await syncStore.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
