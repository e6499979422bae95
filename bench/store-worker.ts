/**
 * One benchmark worker process (driven by bench/store.bench.ts): prepares its
 * approved writes (request approval, approve), warms up, then on "go" runs the
 * timed approved reserve_funds calls through the real runtime and reports.
 *
 * env: TG_BENCH_STORE (postgres | sqlite), TOOLGATE_TEST_SCHEMA (postgres),
 *      TG_BENCH_SQLITE_PATH (sqlite), TG_POLICY_WASM, TG_BENCH_CALLS, TG_BENCH_WARMUP, TOOLGATE_WORKER_NAME.
 */
import type { TrustedContext } from "../src/generated-runtime.js";
import type { CallRequest } from "../src/runtime/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { openPgStore } from "../src/store/postgres/index.js";
import type { Store } from "../src/store/store.js";
import { memoryEffects } from "../test/helpers/workers/effects-table.js";
import { buildGate } from "../test/helpers/workers/gate.js";
import { loadPolicyFile, policyWasmEnvVar } from "../test/helpers/workers/policy.js";
import { nextMessage, tell } from "../test/helpers/workers/worker-io.js";

const name = process.env["TOOLGATE_WORKER_NAME"] ?? "bench";
const kind = process.env["TG_BENCH_STORE"] ?? "postgres";
const calls = Number(process.env["TG_BENCH_CALLS"] ?? "100");
const warmup = Number(process.env["TG_BENCH_WARMUP"] ?? "20");

const store: Store =
  kind === "sqlite"
    ? openSqliteStore(process.env["TG_BENCH_SQLITE_PATH"] ?? ":memory:")
    : await openPgStore({ schema: process.env["TOOLGATE_TEST_SCHEMA"] ?? "public", max: 2, applicationName: `toolgate ${name}` });
const policyPath = process.env[policyWasmEnvVar];
if (policyPath === undefined) throw new Error(`${name}: ${policyWasmEnvVar} is not set`);
const policy = await loadPolicyFile(policyPath);
const gate = buildGate({ store, effects: memoryEffects(), name, policy, timeoutMs: 5_000, leaseMarginMs: 5_000 });
const ctx: TrustedContext = { tenant: "bench", user: "alice", roles: ["agent"], run_id: `run-${name}` };

/** Each write is its own operation with its own arguments, approval requested and approved. */
async function prepare(i: number): Promise<CallRequest> {
  const req = {
    tool: "reserve_funds",
    args: { account_id: "acc_1", amount: i + 1, currency: "EUR", recipient: `acc_${name}` },
    operation_id: `${name}-${i}`,
  };
  const asked = (await gate.call(ctx, req)) as unknown as { reason?: string; approval_id?: string };
  if (asked.reason !== "approval_required" || asked.approval_id === undefined) {
    throw new Error(`${name}: expected approval_required, got ${JSON.stringify(asked)}`);
  }
  const decided = await gate.approvals.decide(asked.approval_id, { decision: "approve" }, { tenant: ctx.tenant, user: "bob", roles: ["approver"] });
  if (!decided.ok) throw new Error(`${name}: approval failed: ${decided.why}`);
  return { ...req, approval_id: asked.approval_id };
}

async function run(reqs: readonly CallRequest[]): Promise<number> {
  let ok = 0;
  for (const req of reqs) {
    const env = await gate.call(ctx, req);
    if (env.outcome === "success" && !env.replayed) ok++;
  }
  return ok;
}

const reqs: CallRequest[] = [];
for (let i = 0; i < warmup + calls; i++) reqs.push(await prepare(i));
const warmOk = await run(reqs.slice(0, warmup));
if (warmOk !== warmup) throw new Error(`${name}: warm-up had ${warmup - warmOk} failed writes`);
tell({ type: "prepared" });
await nextMessage("go");
const start = performance.timeOrigin + performance.now();
const ok = await run(reqs.slice(warmup));
const end = performance.timeOrigin + performance.now();
tell({ type: "done", ok, calls, start, end });
await nextMessage("exit");
await store.close();
process.exit(0);
