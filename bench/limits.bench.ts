/**
 * npm run bench:limits (and the "limits" rows of npm run bench): what a limit check costs.
 * On each store, in the same run, approved reserve_funds writes through createRuntime with the
 * shipped policy, once as tools.yaml declares the tool (no limit) and once with a limit on it
 * (max_sum far above what the run reserves, so every call is checked and none refused):
 * the limit's figures read for the policy, then the claim that re-reads and counts them.
 * Rounds alternate between the two; the row is the median per-call time of each. Target: the
 * limited write at most 1.3x the unlimited one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { manifest, validators } from "../generated/index.js";
import type { TrustedContext } from "../src/generated-runtime.js";
import type { Manifest } from "../src/manifest.js";
import { EscrowLedger, escrowHandlers, escrowReconcilers } from "../src/demo/escrow.js";
import { createRuntime } from "../src/runtime/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { openPgStore } from "../src/store/postgres/index.js";
import type { Store } from "../src/store/store.js";
import { loadShippedPolicy } from "../test/helpers/shipped-policy.js";
import { createTestSchema } from "../test/helpers/pg-env.js";
import { grantedApprovals } from "./granted-approvals.js";
import type { BenchRow, RowContext, RowSource } from "./rows.js";

const limited: Manifest = {
  ...manifest,
  tools: { ...manifest.tools, reserve_funds: { ...manifest.tools.reserve_funds, limits: ["reserved_per_account"] } },
  limits: {
    ...manifest.limits,
    reserved_per_account: { name: "reserved_per_account", per: ["account_id"], window_ms: 86_400_000, sum: "amount", max_sum: 1e12, max_count: null, tools: ["reserve_funds"] },
  },
};
const args = { account_id: "acc_alice", amount: 1, currency: "EUR", recipient: "acc_bob" };
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** µs per approved write, `n` sequential calls, each in a tenant of its own round so records never meet. */
async function round(store: Store, m: Manifest, n: number, tenant: string): Promise<number> {
  const ledger = new EscrowLedger();
  const runtime = createRuntime({ manifest: m, validators, handlers: escrowHandlers(ledger), reconcilers: escrowReconcilers(ledger), policy: await loadShippedPolicy(), store });
  const ctx: TrustedContext = { tenant, user: "alice", roles: ["agent"], run_id: `run_${tenant}` };
  const approvals = await grantedApprovals(runtime, ctx, "reserve_funds", args, n);
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const e = await runtime.call(ctx, { tool: "reserve_funds", args, operation_id: `op-${i}`, approval_id: approvals[i]! });
    if (e.outcome !== "success") throw new Error(`bench:limits: ${JSON.stringify(e)}`);
  }
  return ((performance.now() - started) * 1000) / n;
}

async function measure(store: Store, n: number, rounds: number): Promise<{ plain: number; limited: number }> {
  const plain: number[] = [];
  const checked: number[] = [];
  await round(store, manifest, Math.min(n, 50), "warm_plain");
  await round(store, limited, Math.min(n, 50), "warm_limited");
  for (let r = 0; r < rounds; r++) {
    plain.push(await round(store, manifest, n, `plain_${r}`));
    checked.push(await round(store, limited, n, `limited_${r}`));
  }
  return { plain: median(plain), limited: median(checked) };
}

const rowOf = (storeName: string, f: { plain: number; limited: number }): BenchRow => ({
  what: `approved write with a limit check (${storeName})`,
  unit: "µs/call",
  better: "lower",
  toolgate: { label: "toolgate", value: f.limited },
  anchors: [{ label: "the same approved write without a limit", value: f.plain }],
  notes: [`limited / unlimited = ${(f.limited / f.plain).toFixed(2)}x; target <= 1.3x`],
});

export const limitsSource: RowSource = {
  name: "limits",
  async run(ctx: RowContext) {
    const n = Number(process.env["BENCH_LIMITS_CALLS"] ?? (ctx.quick ? 100 : 300));
    const rounds = ctx.quick ? 3 : 5;
    const rows: BenchRow[] = [];
    const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-limits-"));
    try {
      const sqlite = openSqliteStore(join(dir, "bench.db"));
      ctx.log("bench:limits SQLite");
      rows.push(rowOf("SQLite", await measure(sqlite, n, rounds)));
      await sqlite.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const missing: string[] = [];
    if (ctx.pgUrl === undefined) missing.push("PostgreSQL row: TOOLGATE_PG_URL is not set");
    else {
      const schema = await createTestSchema();
      try {
        const pg = await openPgStore({ pool: schema.pool });
        ctx.log("bench:limits PostgreSQL");
        rows.push(rowOf("PostgreSQL", await measure(pg, n, rounds)));
        await pg.close();
      } finally {
        await schema.drop();
      }
    }
    return missing.length === 0 ? { rows } : { rows, missing };
  },
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await limitsSource.run({ quick: process.argv.includes("--quick"), pgUrl: process.env["TOOLGATE_PG_URL"], log: (m) => void process.stderr.write(`${m}\n`) });
  if ("rows" in result) for (const r of result.rows) console.log(`${r.what}: ${r.toolgate.value.toFixed(0)} µs/call vs ${r.anchors[0]!.value.toFixed(0)} µs/call without; ${r.notes?.[0] ?? ""}`);
  if ("missing" in result) console.log(result.missing);
}
