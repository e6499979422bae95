/**
 * npm run bench:limits (and the "limits" rows of npm run bench): what a limit check costs.
 * On each store, in the same run, approved reserve_funds writes through createRuntime with the
 * shipped policy, once as tools.yaml declares the tool (no limit) and once with a limit on it
 * (max_sum far above what the run reserves, so every call is checked and none refused):
 * the limit's figures read for the policy, then the claim that re-reads and counts them.
 * Rounds alternate between the two; the row is the median per-call time of each, and the ratio
 * the median of each round pair's ratio (a limited round over the unlimited round just before
 * it: the two ran under the same load on a shared machine). Target: the limited write at most
 * 1.3x the unlimited one. A note adds the CPU per call (this process, and
 * on PostgreSQL its pool's server processes when they run on this machine), which holds steady on
 * a loaded machine where wall time does not.
 *
 * Two rows a store: one hot key (every call of a round on one account, so the window holds up to
 * `n` entries that each figures read counts), and one key per call (each call on an account of
 * its own: the window holds no entry, so the row is the check's fixed cost).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import type pg from "pg";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { manifest, validators } from "../generated/index.js";
import type { TrustedContext } from "../src/generated-runtime.js";
import type { Manifest } from "../src/manifest.js";
import { EscrowLedger, defaultAccounts, escrowHandlers, escrowReconcilers } from "../src/demo/escrow.js";
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
/** The calls of a round: all on one account (a hot limit key), or each on an account of its own. */
type Keys = "hot" | "own";
const argsOf = (keys: Keys) => (i: number) => (keys === "hot" ? args : { ...args, account_id: `acc_${i}` });
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** CPU µs so far of this process and of the server processes `pids` (Linux schedstat; those not readable count 0). */
function cpuUs(pids: ReadonlySet<number>): number {
  const own = process.cpuUsage();
  let server = 0;
  for (const pid of pids) {
    const file = `/proc/${pid}/schedstat`;
    if (existsSync(file)) server += Number(readFileSync(file, "utf8").split(" ")[0]) / 1000;
  }
  return own.user + own.system + server;
}

/** The server process ids of a pool's connections: those it holds (all checked out at once, `max` of them) and those it opens later. */
async function serverPids(pool: pg.Pool, max: number): Promise<Set<number>> {
  const pids = new Set<number>();
  const add = (client: pg.PoolClient): void => {
    const pid = (client as unknown as { processID?: number }).processID;
    if (pid !== undefined) pids.add(pid);
  };
  pool.on("connect", add);
  const held = await Promise.all(Array.from({ length: max }, () => pool.connect()));
  for (const client of held) {
    add(client);
    client.release();
  }
  return pids;
}

interface Timing {
  readonly wall: number;
  readonly cpu: number;
}

/** µs per approved write (wall and CPU), `n` sequential calls, each in a tenant of its own round so records never meet. */
async function round(store: Store, m: Manifest, n: number, tenant: string, pids: ReadonlySet<number>, keys: Keys): Promise<Timing> {
  const own = keys === "own" ? Array.from({ length: n }, (_, i) => ({ account_id: `acc_${i}`, balance: 500_000, currency: "EUR" as const, status: "open" as const })) : [];
  const ledger = new EscrowLedger([...defaultAccounts, ...own]);
  const runtime = createRuntime({ manifest: m, validators, handlers: escrowHandlers(ledger), reconcilers: escrowReconcilers(ledger), policy: await loadShippedPolicy(), store });
  const ctx: TrustedContext = { tenant, user: "alice", roles: ["agent"], run_id: `run_${tenant}` };
  const callArgs = argsOf(keys);
  const approvals = await grantedApprovals(runtime, ctx, "reserve_funds", callArgs, n);
  const cpu = cpuUs(pids);
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const e = await runtime.call(ctx, { tool: "reserve_funds", args: callArgs(i), operation_id: `op-${i}`, approval_id: approvals[i]! });
    if (e.outcome !== "success") throw new Error(`bench:limits: ${JSON.stringify(e)}`);
  }
  return { wall: ((performance.now() - started) * 1000) / n, cpu: (cpuUs(pids) - cpu) / n };
}

interface Figures {
  /** Median over round pairs of limited / unlimited (wall time). */
  readonly ratio: number;
  readonly plain: number;
  readonly limited: number;
  readonly plainCpu: number;
  readonly limitedCpu: number;
}

async function measure(store: Store, n: number, rounds: number, keys: Keys, pids: ReadonlySet<number> = new Set()): Promise<Figures> {
  const plain: Timing[] = [];
  const checked: Timing[] = [];
  await round(store, manifest, Math.min(n, 50), `warm_plain_${keys}`, pids, keys);
  await round(store, limited, Math.min(n, 50), `warm_limited_${keys}`, pids, keys);
  for (let r = 0; r < rounds; r++) {
    plain.push(await round(store, manifest, n, `plain_${keys}_${r}`, pids, keys));
    checked.push(await round(store, limited, n, `limited_${keys}_${r}`, pids, keys));
  }
  return {
    ratio: median(checked.map((t, r) => t.wall / plain[r]!.wall)),
    plain: median(plain.map((t) => t.wall)),
    limited: median(checked.map((t) => t.wall)),
    plainCpu: median(plain.map((t) => t.cpu)),
    limitedCpu: median(checked.map((t) => t.cpu)),
  };
}

const rowOf = (storeName: string, keys: Keys, n: number, f: Figures): BenchRow => ({
  what: `approved write with a limit check (${storeName}, ${keys === "hot" ? `one hot key, up to ${n} entries in its window` : "a key per call"})`,
  unit: "µs/call",
  better: "lower",
  toolgate: { label: "toolgate", value: f.limited },
  anchors: [{ label: "the same approved write without a limit", value: f.plain }],
  notes: [
    `limited / unlimited = ${f.ratio.toFixed(2)}x (median of round pairs; of the medians ${(f.limited / f.plain).toFixed(2)}x); target <= 1.3x`,
    `CPU per call (client and server): ${f.limitedCpu.toFixed(0)} µs vs ${f.plainCpu.toFixed(0)} µs without, ${(f.limitedCpu / f.plainCpu).toFixed(2)}x`,
  ],
});

export const limitsSource: RowSource = {
  name: "limits",
  async run(ctx: RowContext) {
    const n = Number(process.env["BENCH_LIMITS_CALLS"] ?? (ctx.quick ? 100 : 300));
    const rounds = ctx.quick ? 3 : 7;
    const rows: BenchRow[] = [];
    const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-limits-"));
    try {
      const sqlite = openSqliteStore(join(dir, "bench.db"));
      ctx.log("bench:limits SQLite");
      for (const keys of ["hot", "own"] as const) rows.push(rowOf("SQLite", keys, n, await measure(sqlite, n, rounds, keys)));
      await sqlite.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const missing: string[] = [];
    if (ctx.pgUrl === undefined) missing.push("PostgreSQL row: TOOLGATE_PG_URL is not set");
    else {
      const schema = await createTestSchema();
      try {
        const pids = await serverPids(schema.pool, schema.pool.options.max);
        const pg = await openPgStore({ pool: schema.pool });
        ctx.log("bench:limits PostgreSQL");
        for (const keys of ["hot", "own"] as const) rows.push(rowOf("PostgreSQL", keys, n, await measure(pg, n, rounds, keys, pids)));
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
  if ("rows" in result) for (const r of result.rows) console.log(`${r.what}: ${r.toolgate.value.toFixed(0)} µs/call vs ${r.anchors[0]!.value.toFixed(0)} µs/call without; ${(r.notes ?? []).join("; ")}`);
  if ("missing" in result) console.log(result.missing);
}
