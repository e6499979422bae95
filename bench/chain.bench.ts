/**
 * The audit chain's cost per logged decision, against the same store with the chain off
 * (`decisionLog: { chain: false }`), measured alternately in the same run:
 * - SQLite: group-committed entries (append, then flush, batches of 256) into a WAL file, in
 *   CPU time (the store's writes are synchronous, so CPU is the cost);
 * - PostgreSQL (with TOOLGATE_PG_URL): group-committed entries, and `sync` durability (one
 *   commit per entry, where the trigger's per-tenant lock is held to each commit), in wall
 *   time, in a fresh schema dropped afterwards.
 * Each row is the chained log's decisions per second next to the unchained log's; the ratio
 * is the chained log's share of the plain log's rate (1 / the cost ratio).
 * `npx tsx bench/chain.bench.ts`; BENCH_CHAIN_ENTRIES sets the entries per round.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { chainLink, contentHash, decisionContent, genesisLink } from "../src/store/chain/index.js";
import type { DecisionLogOptions } from "../src/store/decision-batch.js";
import { openSqliteStore } from "../src/store/index.js";
import { openPgStore } from "../src/store/postgres/index.js";
import type { DecisionLogEntry, Store } from "../src/store/store.js";
import { createTestSchema, pgUrl } from "../test/helpers/pg-env.js";
import { printRows, row } from "./store-anchors.js";
import type { BenchRow } from "./store-anchors.js";

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const cpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

let serial = 0;
const entry = (tenant: string): DecisionLogEntry => {
  serial++;
  return {
    at_ms: 1_800_000_000_000 + serial,
    tenant,
    run_id: "run-bench",
    user: "alice",
    tool: "reserve_funds",
    operation_id: `op-${serial}`,
    fingerprint: "f".repeat(64),
    decision: "allow",
    reason: "approved",
    policy_version: "sha256:403e3e1e1049",
    outcome: "success",
    outcome_reason: null,
    path: "toolgate/authz/decision",
    input: { tool: "reserve_funds", args: { account: "acc_1", amount: serial % 1000, memo: "invoice 2026-12" }, principal: { tenant, user: "alice", roles: ["agent"] } },
    result: { allow: true, reason: "approved", requires_approval: false },
    erased: [],
    eval_ns: 41_000,
    shadow: null,
    expires_at_ms: null,
  };
};

/** Appends `n` entries over two tenants and waits for their commits; answers the elapsed µs by `clock`. */
async function logEntries(store: Store, n: number, clock: () => number): Promise<number> {
  const t = clock();
  for (let i = 0; i < n; i++) await store.appendDecision(entry(i % 2 === 0 ? "t_acme" : "t_globex"));
  await store.flushDecisions();
  return clock() - t;
}

/** Median µs per entry of each store over alternating rounds (chained first, then plain). */
async function alternate(chained: Store, plain: Store, n: number, rounds: number, clock: () => number): Promise<{ chained: number; plain: number }> {
  await logEntries(chained, Math.min(n, 200), clock);
  await logEntries(plain, Math.min(n, 200), clock);
  const c: number[] = [];
  const p: number[] = [];
  for (let k = 0; k < rounds; k++) {
    c.push((await logEntries(chained, n, clock)) / n);
    p.push((await logEntries(plain, n, clock)) / n);
  }
  return { chained: median(c), plain: median(p) };
}

function hashingRow(n: number): BenchRow {
  const entries = Array.from({ length: n }, () => entry("t_acme"));
  const t = cpuUs();
  let link = genesisLink;
  for (const e of entries) link = chainLink(link, contentHash(decisionContent(e, "01a249c1-6920-7a22-bbed-464a3a048049")));
  const us = (cpuUs() - t) / n;
  return { ...row("bench:chain", "chain hashing alone (RFC 8785 + 2x SHA-256)", 1e6 / us, "entries/CPU-s", null), note: `${us.toFixed(2)} µs per entry` };
}

export async function chainBenchRows(opts: { readonly entries?: number; readonly rounds?: number } = {}): Promise<BenchRow[]> {
  const n = opts.entries ?? Number(process.env["BENCH_CHAIN_ENTRIES"] ?? "4000");
  const rounds = opts.rounds ?? 5;
  const rows: BenchRow[] = [hashingRow(n)];
  const ratioRow = (name: string, unit: string, m: { chained: number; plain: number }): BenchRow => ({
    ...row("bench:chain", name, 1e6 / m.chained, unit, { name: "same log unchained", value: 1e6 / m.plain }),
    note: `cost per decision ${m.chained.toFixed(2)} µs chained vs ${m.plain.toFixed(2)} µs unchained: ${(m.chained / m.plain).toFixed(2)}x`,
  });

  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-chain-"));
  const chained = openSqliteStore(join(dir, "chained.db"));
  const plain = openSqliteStore(join(dir, "plain.db"), { decisionLog: { chain: false } });
  try {
    rows.push(ratioRow("chained decision log, SQLite, group commit", "decisions/CPU-s", await alternate(chained, plain, n, rounds, cpuUs)));
  } finally {
    await chained.close();
    await plain.close();
    rmSync(dir, { recursive: true, force: true });
  }

  if (pgUrl !== undefined) {
    const schema = await createTestSchema();
    const open = async (log: DecisionLogOptions): Promise<Store> => openPgStore({ url: pgUrl!, schema: schema.schema, max: 4, decisionLog: log });
    const stores = await Promise.all([open({}), open({ chain: false }), open({ durability: "sync" }), open({ durability: "sync", chain: false })]);
    const wall = (): number => performance.now() * 1000;
    try {
      rows.push(ratioRow("chained decision log, PostgreSQL, group commit", "decisions/s", await alternate(stores[0]!, stores[1]!, n, rounds, wall)));
      const syncN = Math.max(100, Math.floor(n / 10));
      rows.push(ratioRow("chained decision log, PostgreSQL, sync (1 per commit)", "decisions/s", await alternate(stores[2]!, stores[3]!, syncN, rounds, wall)));
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await schema.drop();
    }
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rows = await chainBenchRows();
  printRows(rows);
  if (pgUrl === undefined) console.log("  (PostgreSQL rows skipped: TOOLGATE_PG_URL is not set)");
}
