/**
 * One runtime worker process: opens the PostgreSQL store on the test schema,
 * builds the gate (gate.ts) and answers "call" messages from the parent test.
 * "decide" messages record an approval decision (e.g. a revocation) from this worker,
 * "interrupt" messages set a run's interrupt flag.
 * Per-call hooks let the parent line workers up at an instant, stop one right
 * after its effect (to SIGKILL or SIGSTOP it), or pause one right before its claim.
 *
 * env: TOOLGATE_PG_URL, TOOLGATE_TEST_SCHEMA, TOOLGATE_WORKER_NAME,
 *      TG_POLICY_WASM, TG_TIMEOUT_MS, TG_LEASE_MARGIN_MS, TG_SHORT_WAIT_MS.
 */
import type { TrustedContext } from "../../src/generated-runtime.js";
import type { CallRequest } from "../../src/runtime/index.js";
import { openPgStore } from "../../src/store/postgres/index.js";
import { createPgPool } from "../../src/store/postgres/pool.js";
import { pgEffects } from "../helpers/workers/effects-table.js";
import { buildGate, type GateHooks } from "../helpers/workers/gate.js";
import { loadPolicyFile, policyWasmEnvVar } from "../helpers/workers/policy.js";
import { nextMessage, serve, tell } from "../helpers/workers/worker-io.js";

interface CallMessage {
  readonly id: number;
  readonly ctx: TrustedContext;
  readonly request: CallRequest;
  /** Wall-clock instant to start at, so several workers call at the same moment. */
  readonly at_ms?: number;
  readonly delay_ms?: number;
  /** "hang": report and never return (to be SIGKILLed); "wait": report and wait for "continue". */
  readonly after_effect?: "hang" | "wait";
  readonly pause_before_claim?: boolean;
  /** Simulated clock skew of this worker for this call (a lagging clock sees leases as unexpired). */
  readonly clock_offset_ms?: number;
  /** Use the runtime with the short in-progress wait (TG_SHORT_WAIT_MS). */
  readonly short_wait?: boolean;
}

const env = (name: string, fallback?: string): string => {
  const v = process.env[name] ?? fallback;
  if (v === undefined) throw new Error(`gate-worker: ${name} is not set`);
  return v;
};

const name = env("TOOLGATE_WORKER_NAME");
const schema = env("TOOLGATE_TEST_SCHEMA");
let offset = 0;
const pool = createPgPool({ schema, max: 3, applicationName: `toolgate ${name}` });
const store = await openPgStore({ pool });
const hooks: GateHooks = {};
const options = {
  store,
  effects: pgEffects(pool),
  name,
  policy: await loadPolicyFile(env(policyWasmEnvVar)),
  timeoutMs: Number(env("TG_TIMEOUT_MS", "2000")),
  leaseMarginMs: Number(env("TG_LEASE_MARGIN_MS", "500")),
  clock: { now: () => Date.now() + offset },
  hooks,
};
// Patient: waits out a live holder even on a loaded machine. Impatient: shows the bound.
const gate = buildGate({ ...options, inProgressWaitMs: 20_000 });
const impatient = buildGate({ ...options, inProgressWaitMs: Number(env("TG_SHORT_WAIT_MS", "1500")) });
await pool.query("SELECT 1"); // connect before reporting ready
tell({ type: "ready" });

interface DecideMessage {
  readonly id: number;
  readonly approval_id: string;
  readonly decision: "approve" | "reject" | "revoke";
  readonly approver: string;
  /** The approver's tenant; the decision is refused outside the request's tenant. */
  readonly tenant: string;
}

await serve(["call", "decide", "interrupt"], async (raw) => {
  if (raw.type === "interrupt") {
    await gate.interrupt({ tenant: String(raw["tenant"]), run_id: String(raw["run_id"]) }, String(raw["reason"]));
    tell({ type: "interrupt_set" });
    return;
  }
  if (raw.type === "decide") {
    const d = raw as unknown as DecideMessage;
    const out = await gate.approvals.decide(d.approval_id, { decision: d.decision }, { tenant: d.tenant, user: d.approver, roles: ["approver"] });
    tell({ type: "decided", id: d.id, ok: out.ok, ...(out.ok ? {} : { why: out.why }) });
    return;
  }
  const msg = raw as unknown as CallMessage;
  delete hooks.delayMs;
  delete hooks.afterEffect;
  delete hooks.beforeClaim;
  if (msg.delay_ms !== undefined) hooks.delayMs = msg.delay_ms;
  if (msg.after_effect !== undefined) {
    const mode = msg.after_effect;
    hooks.afterEffect = async (info) => {
      tell({ type: "effect_done", ...info });
      if (mode === "hang") await new Promise<never>(() => {});
      else await nextMessage("continue");
    };
  }
  if (msg.pause_before_claim === true) {
    hooks.beforeClaim = async () => {
      delete hooks.beforeClaim; // the first claim only
      tell({ type: "claiming" });
      await nextMessage("continue");
    };
  }
  offset = msg.clock_offset_ms ?? 0;
  if (msg.at_ms !== undefined) await new Promise((r) => setTimeout(r, Math.max(0, msg.at_ms! - Date.now())));
  const started = Date.now();
  const envelope = await (msg.short_wait === true ? impatient : gate).call(msg.ctx, msg.request);
  tell({ type: "result", id: msg.id, envelope: JSON.parse(JSON.stringify(envelope)), ms: Date.now() - started });
});
await store.close();
await pool.end();
process.exit(0);
