// CPU time per gated call, for profiling the runtime's own JavaScript:
//   npx tsx bench/runtime-cpu.ts                 (READS=20000 WRITES=5000 by default)
//   node --cpu-prof --import tsx bench/runtime-cpu.ts
//   STUBBED=1 npx tsx bench/runtime-cpu.ts       (also the runtime's own share, store answered from records)
// An allowed read (get_account) and an approved write (reserve_funds, approvals granted
// before timing) against a SQLite WAL file store with the shipped manifest and policy.
// Prints process CPU µs per call (user + system) next to a raw WAL insert measured in the
// same process, and the ratios raw / call (calls per CPU-second against raw inserts per
// CPU-second; targets: read >= 1.5, write >= 0.4), so runs of two trees can be compared by ratio.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { manifest, validators } from "../generated/index.js";
import { EscrowLedger, escrowHandlers, escrowReconcilers } from "../src/demo/escrow.js";
import type { TrustedContext } from "../src/generated-runtime.js";
import type { JsonObject } from "../src/manifest.js";
import { loadPolicyEngine } from "../src/policy/default-engine.js";
import { createRuntime } from "../src/runtime/index.js";
import { openSqliteStore } from "../src/store/index.js";
import type { OperationRecord, Store } from "../src/store/store.js";
import { grantedApprovals } from "./granted-approvals.js";
import { rawSqliteInsertsPerSec } from "./store-anchors.js";

const reads = Number(process.env["READS"] ?? 20_000);
const writes = Number(process.env["WRITES"] ?? 5_000);
const ctx: TrustedContext = { tenant: "t_bench", user: "bench", roles: ["agent"], run_id: "run_bench" };
const writeArgs: JsonObject = { account_id: "acc_alice", amount: 1, currency: "EUR", recipient: "acc_bob" };
const readArgs: JsonObject = { account_id: "acc_alice" };

const cpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/**
 * CPU µs per read and per write through a runtime whose store answers the per-call methods from
 * records of the real store (an approved approval, a claimed operation) without touching SQLite.
 */
async function runtimeOnly(real: Store, approvalId: string, reads: number, writes: number): Promise<{ readUs: number; writeUs: number }> {
  const approval = await real.getApproval(approvalId);
  const done = await real.getOperation(ctx.tenant, "op-0", Date.now());
  if (approval === null || done === null) throw new Error("runtimeOnly: needs the timed writes' first approval and operation");
  const claimed: OperationRecord = { ...done, status: "in_progress", envelope: null, attempts: 1, lease_expires_at_ms: Date.now() + 3_600_000 };
  const answers: Partial<Store> = {
    getInterrupt: async () => null,
    appendDecision: async () => undefined,
    readCallState: async (req) => ({
      operation: null,
      interrupt: null,
      approval: req.approval_id === null ? null : { ...approval, id: req.approval_id, operation_id: req.operation_id, consumed_by: null, consumed_at_ms: null },
    }),
    claimFirst: async (req) => ({
      // Made now, as a real claim-first claim is: an older record is given back (a DELETE on the real store) and claimed again.
      claimed: { kind: "claimed", record: { ...claimed, operation_id: req.operation_id, created_at_ms: req.now_ms }, previous: null },
      state: { operation: null, interrupt: null, approval: req.guard.approval_id === null ? null : { ...approval, id: req.guard.approval_id, operation_id: req.operation_id, consumed_by: null, consumed_at_ms: null } },
    }),
    claimOperation: async (req) => ({ kind: "claimed", record: { ...claimed, operation_id: req.operation_id }, previous: null }),
    recordOutcome: async (req) => ({ recorded: true, record: { ...claimed, operation_id: req.operation_id } }),
  };
  const stub = new Proxy(real, {
    get(target, key) {
      if (Object.prototype.hasOwnProperty.call(answers, key)) return answers[key as keyof Store];
      const v: unknown = Reflect.get(target, key);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const ledger = new EscrowLedger([
    { account_id: "acc_alice", balance: 1_000_000_000, currency: "EUR", status: "open" },
    { account_id: "acc_bob", balance: 0, currency: "EUR", status: "open" },
  ]);
  const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as JsonObject;
  const policy = await loadPolicyEngine({ wasm: new Uint8Array(readFileSync("generated/policy.wasm")), entrypoint: "toolgate/authz/decision", data });
  const rt = createRuntime({ manifest, validators, handlers: escrowHandlers(ledger), reconcilers: escrowReconcilers(ledger), policy, store: stub });
  const ok = (e: { outcome: string }): void => {
    if (e.outcome !== "success") throw new Error(`gated call failed: ${JSON.stringify(e)}`);
  };
  for (let i = 0; i < 2000; i++) ok(await rt.call(ctx, { tool: "get_account", args: readArgs }));
  for (let i = 0; i < 1000; i++) ok(await rt.call(ctx, { tool: "reserve_funds", args: writeArgs, operation_id: `warm-${i}`, approval_id: `apr-warm-${i}` }));
  let t = cpuUs();
  for (let i = 0; i < reads; i++) ok(await rt.call(ctx, { tool: "get_account", args: readArgs }));
  const readUs = (cpuUs() - t) / reads;
  t = cpuUs();
  for (let i = 0; i < writes; i++) ok(await rt.call(ctx, { tool: "reserve_funds", args: writeArgs, operation_id: `stub-${i}`, approval_id: `apr-stub-${i}` }));
  return { readUs, writeUs: (cpuUs() - t) / writes };
}

const dir = mkdtempSync(join(tmpdir(), "toolgate-cpu-"));
try {
  const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as JsonObject;
  const policy = await loadPolicyEngine({ wasm: new Uint8Array(readFileSync("generated/policy.wasm")), entrypoint: "toolgate/authz/decision", data });
  const ledger = new EscrowLedger([
    { account_id: "acc_alice", balance: 1_000_000_000, currency: "EUR", status: "open" },
    { account_id: "acc_bob", balance: 0, currency: "EUR", status: "open" },
  ]);
  const store = openSqliteStore(join(dir, "cpu.db"));
  const runtime = createRuntime({ manifest, validators, handlers: escrowHandlers(ledger), reconcilers: escrowReconcilers(ledger), policy, store });
  const approvals = await grantedApprovals(runtime, ctx, "reserve_funds", writeArgs, writes);
  const check = (e: { outcome: string }): void => {
    if (e.outcome !== "success") throw new Error(`gated call failed: ${JSON.stringify(e)}`);
  };
  // Warm up the read path (writes are warmed by the approval requests above).
  for (let i = 0; i < 2000; i++) check(await runtime.call(ctx, { tool: "get_account", args: readArgs }));

  let t = cpuUs();
  for (let i = 0; i < reads; i++) check(await runtime.call(ctx, { tool: "get_account", args: readArgs }));
  const readUs = (cpuUs() - t) / reads;
  t = cpuUs();
  for (let i = 0; i < writes; i++) check(await runtime.call(ctx, { tool: "reserve_funds", args: writeArgs, operation_id: `op-${i}`, approval_id: approvals[i] ?? "" }));
  const writeUs = (cpuUs() - t) / writes;
  // STUBBED=1: the same calls once more with the store's per-call methods answered from records
  // read above (no SQLite work), so what remains is the runtime's own JavaScript and the policy.
  const own = process.env["STUBBED"] === "1" ? await runtimeOnly(store, approvals[0] ?? "", reads, writes) : null;
  await store.close();
  t = cpuUs();
  rawSqliteInsertsPerSec(5000, "NORMAL");
  const rawUs = (cpuUs() - t) / 5000;
  // Calls per CPU-second against raw inserts per CPU-second: the targets are read >= 1.5, write >= 0.4.
  const ratio = (us: number): number | null => (Number.isFinite(us) && us > 0 ? +(rawUs / us).toFixed(3) : null);
  console.log(
    JSON.stringify({
      read_cpu_us: +readUs.toFixed(1),
      write_cpu_us: +writeUs.toFixed(1),
      raw_insert_cpu_us: +rawUs.toFixed(1),
      read_vs_raw: ratio(readUs),
      write_vs_raw: ratio(writeUs),
      ...(own === null ? {} : { read_runtime_cpu_us: +own.readUs.toFixed(1), write_runtime_cpu_us: +own.writeUs.toFixed(1) }),
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
