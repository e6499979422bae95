/**
 * A worker process for the limit and natural-key races: the runtime over the PostgreSQL store
 * (TG_STORE=postgres, TOOLGATE_TEST_SCHEMA) or a SQLite file shared with the other workers
 * (TG_STORE=sqlite, TG_SQLITE_PATH), with reserve_funds limited to TG_MAX_SUM per account
 * (limit-gate.ts), an allow-all policy, and effects in a side table. A "run" message makes
 * all its calls at once (at `at_ms`) and answers each call's outcome; with `kill: {phase, at}`
 * the process SIGKILLs itself when the `at`-th call reaches that phase (a crash race), and
 * TG_TIMEOUT_MS / TG_LEASE_MARGIN_MS shorten the lease so the race can wait it out.
 */
import type { TrustedContext } from "../../../src/generated-runtime.js";
import type { CallRequest } from "../../../src/runtime/index.js";
import { openSqliteStore } from "../../../src/store/index.js";
import { openPgStore } from "../../../src/store/postgres/index.js";
import { createPgPool } from "../../../src/store/postgres/pool.js";
import type { Store } from "../../../src/store/store.js";
import { pgEffects } from "./effects-table.js";
import type { EffectSink } from "./effects-table.js";
import { buildLimitGate } from "./limit-gate.js";
import type { CallPhase } from "./limit-gate.js";
import { openSqliteEffects } from "./sqlite-effects.js";
import { serve, tell } from "./worker-io.js";

const env = (name: string): string => {
  const v = process.env[name];
  if (v === undefined) throw new Error(`limit-worker: ${name} is not set`);
  return v;
};

const name = env("TOOLGATE_WORKER_NAME");
let store: Store;
let effects: EffectSink;
if (env("TG_STORE") === "postgres") {
  const pool = createPgPool({ schema: env("TOOLGATE_TEST_SCHEMA"), max: 4, applicationName: `toolgate ${name}` });
  store = await openPgStore({ pool });
  effects = pgEffects(pool);
} else {
  store = openSqliteStore(env("TG_SQLITE_PATH"), { busyTimeoutMs: 60_000 });
  effects = openSqliteEffects(env("TG_EFFECTS_PATH"));
}
let kill: { phase: CallPhase; at: number } | null = null;
const reached = new Map<CallPhase, number>();
const onPhase = (phase: CallPhase): void => {
  const n = (reached.get(phase) ?? 0) + 1;
  reached.set(phase, n);
  if (kill !== null && kill.phase === phase && kill.at === n) process.kill(process.pid, "SIGKILL");
};
const optional = (name: string): number | undefined => (process.env[name] === undefined || process.env[name] === "" ? undefined : Number(process.env[name]));
const timeoutMs = optional("TG_TIMEOUT_MS");
const leaseMarginMs = optional("TG_LEASE_MARGIN_MS");
const gate = buildLimitGate({
  store,
  effects,
  name,
  maxSum: Number(env("TG_MAX_SUM")),
  onPhase,
  ...(timeoutMs === undefined ? {} : { timeoutMs }),
  ...(leaseMarginMs === undefined ? {} : { leaseMarginMs }),
});
tell({ type: "ready" });

await serve(["run"], async (msg) => {
  const calls = msg["calls"] as { ctx: TrustedContext; request: CallRequest }[];
  kill = (msg["kill"] as { phase: CallPhase; at: number } | undefined) ?? null;
  const wait = Number(msg["at_ms"]) - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const answers = await Promise.all(calls.map((c) => gate.call(c.ctx, c.request)));
  tell({ type: "done", answers: answers.map((e) => ({ outcome: e.outcome, reason: e.outcome === "success" ? (e.replayed ? "replayed" : "success") : e.reason })) });
});
await store.close();
process.exit(0);
