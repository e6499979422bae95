/**
 * npx tsx bench/decision-labels.bench.ts — what OPA's labels and trace ids cost a
 * decision-log write: group-committed entries as the runtime makes them (an allowed read's
 * input and result), with the runtime's labels and a trace and span id, against the same
 * entries without them, measured in the same process, in interleaved rounds (median), on
 * SQLite (a WAL file) and, with TOOLGATE_PG_URL, PostgreSQL (a fresh schema, dropped after).
 * Figures are entries per CPU-second of this process (SQLite) or per wall second (PostgreSQL,
 * whose work is mostly the server's). BENCH_LABELS_ENTRIES sets entries per round (default
 * 4000), BENCH_LABELS_ROUNDS the rounds (default 5).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decisionLabels } from "../src/runtime/decision-log.js";
import { openSqliteStore } from "../src/store/index.js";
import { openPgStore } from "../src/store/postgres/index.js";
import type { DecisionLogEntry, Store } from "../src/store/store.js";
import { createTestSchema, pgUrl } from "../test/helpers/pg-env.js";

const perRound = Number(process.env["BENCH_LABELS_ENTRIES"] ?? "4000");
const rounds = Number(process.env["BENCH_LABELS_ROUNDS"] ?? "5");
const labels = decisionLabels({ service: "payments-agent", instance: "gate-7", region: "eu-west-1" });

const entry = (n: number, traced: boolean): DecisionLogEntry => ({
  at_ms: 1_700_000_000_000 + n,
  tenant: "t_acme",
  run_id: "run_1",
  user: "alice",
  tool: "get_account",
  operation_id: null,
  fingerprint: null,
  decision: "allow",
  reason: "read_allowed",
  policy_version: "sha256:0123456789abcdef",
  outcome: "success",
  outcome_reason: null,
  path: "toolgate/authz/decision",
  input: { tool: "get_account", effect: "read", args: { account_id: "acc_alice" }, principal: { tenant: "t_acme", user: "alice", roles: ["agent"] } },
  result: { allow: true, reason: "read_allowed", requires_approval: false },
  erased: [],
  eval_ns: 41_000,
  shadow: null,
  expires_at_ms: 1_700_000_000_000 + n + 86_400_000,
  ...(traced ? { labels, trace_id: "4bf92f3577b34da6a3ce929d0e0e4736", span_id: "00f067aa0ba902b7" } : {}),
});

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(store: Store, traced: boolean, cpu: boolean): Promise<number> {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < perRound; i++) await store.appendDecision(entry(i, traced));
  await store.flushDecisions();
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = process.cpuUsage(c0);
  const seconds = cpu ? (c.user + c.system) / 1e6 : wallS;
  return perRound / seconds;
}

async function compare(name: string, store: Store, cpu: boolean): Promise<void> {
  await measure(store, true, cpu); // warm-up
  await measure(store, false, cpu);
  const withLabels: number[] = [];
  const without: number[] = [];
  // The order alternates per round: the table grows, so neither side always runs on the larger one.
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      without.push(await measure(store, false, cpu));
      withLabels.push(await measure(store, true, cpu));
    } else {
      withLabels.push(await measure(store, true, cpu));
      without.push(await measure(store, false, cpu));
    }
  }
  const a = median(withLabels);
  const b = median(without);
  const unit = cpu ? "entries/CPU-s" : "entries/s";
  console.log(`${name.padEnd(10)} with labels+trace ${a.toFixed(0).padStart(8)} ${unit}   without ${b.toFixed(0).padStart(8)} ${unit}   ratio ${(a / b).toFixed(3)}`);
}

const dir = mkdtempSync(join(tmpdir(), "toolgate-labels-bench-"));
try {
  const sqlite = openSqliteStore(join(dir, "state.db"));
  await compare("sqlite", sqlite, true);
  await sqlite.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (pgUrl === undefined) console.log("postgres   skipped: TOOLGATE_PG_URL is not set");
else {
  const env = await createTestSchema();
  try {
    const pg = await openPgStore({ pool: env.pool });
    await compare("postgres", pg, false);
    await pg.close();
  } finally {
    await env.drop();
  }
}
