// Rows of `npm run bench` for calls through the gate, next to the store's own limit in the
// same process: an allowed read and an approved write on SQLite (WAL file) against raw
// better-sqlite3 single-row INSERT commits with synchronous FULL and NORMAL, and an approved
// write on PostgreSQL against raw `pg` INSERTs on 1 connection (interleaved rounds) and on 4,
// and against its ceiling (the least two-commit write with no toolgate code, ./pg-ceiling.ts).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { manifest, validators } from "../generated/index.js";
import { EscrowLedger, escrowHandlers, escrowReconcilers } from "../src/demo/escrow.js";
import type { TrustedContext } from "../src/generated-runtime.js";
import type { JsonObject } from "../src/manifest.js";
import { loadPolicyEngine } from "../src/policy/default-engine.js";
import { createRuntime } from "../src/runtime/index.js";
import type { Runtime } from "../src/runtime/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { openPgStore } from "../src/store/postgres/index.js";
import type { Store } from "../src/store/store.js";
import { createPgPool } from "../src/store/postgres/pool.js";
import { migrate } from "../src/store/postgres/migrations.js";
import { leastTwoCommitPgWritesPerSec } from "./pg-ceiling.js";
import { median } from "./rows.js";
import type { BenchRow, RowContext, RowSource } from "./rows.js";
import { rawPgInsertsPerSec, rawSqliteInsertsPerSec } from "./store-anchors.js";

const ENTRY = "toolgate/authz/decision";
const ctx: TrustedContext = { tenant: "t_bench", user: "bench", roles: ["agent"], run_id: "run_bench" };
const writeArgs: JsonObject = { account_id: "acc_alice", amount: 1, currency: "EUR", recipient: "acc_bob" };

/** Calls per second of `n` sequential calls. */
async function rate(n: number, fn: (i: number) => unknown): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  return (n / (performance.now() - t)) * 1000;
}

async function gate(store: Store): Promise<Runtime> {
  const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as JsonObject;
  const policy = await loadPolicyEngine({ wasm: new Uint8Array(readFileSync("generated/policy.wasm")), entrypoint: ENTRY, data });
  const ledger = new EscrowLedger([{ account_id: "acc_alice", balance: 1e12, currency: "EUR", status: "open" }, { account_id: "acc_bob", balance: 0, currency: "EUR", status: "open" }]);
  return createRuntime({ manifest, validators, handlers: escrowHandlers(ledger), reconcilers: escrowReconcilers(ledger), policy, store, onError: () => undefined });
}

/** Approvals for `n` writes, requested and granted before any timing. */
async function approvals(rt: Runtime, n: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const ask = await rt.call(ctx, { tool: "reserve_funds", args: writeArgs, operation_id: `${prefix}-${i}` });
    if (ask.outcome !== "terminal_failure" || ask.approval_id === undefined) throw new Error(`expected approval_required: ${JSON.stringify(ask)}`);
    const d = await rt.approvals.decide(ask.approval_id, { decision: "approve" }, { tenant: ctx.tenant, user: "approver", roles: ["approver"] });
    if (!d.ok) throw new Error(d.message);
    ids.push(ask.approval_id);
  }
  return ids;
}

const ok = (e: { outcome: string }): void => {
  if (e.outcome !== "success") throw new Error(`gated call failed: ${JSON.stringify(e)}`);
};

async function sqliteRows(ctx2: RowContext): Promise<BenchRow[]> {
  const n = ctx2.quick ? 300 : 2_000;
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-"));
  try {
    const store = openSqliteStore(join(dir, "gate.db"));
    const rt = await gate(store);
    ctx2.log(`gate: SQLite, ${n} approvals granted before timing`);
    const ids = await approvals(rt, n, "op");
    const read = async (): Promise<void> => ok(await rt.call(ctx, { tool: "get_account", args: { account_id: "acc_alice" } }));
    // Warm the read path as a serving process is (200 calls left it in baseline code: half the rate).
    await rate(ctx2.quick ? 1_000 : 5_000, read);
    // Rounds of raw NORMAL inserts, reads and writes, medians: one raw run lasts a few tens of
    // milliseconds, so a single one swung with the machine's load (29k against 40k/s in one run).
    const rounds = ctx2.quick ? 2 : 5;
    const chunk = Math.floor(n / rounds);
    const normals: number[] = [];
    const reads: number[] = [];
    const writes: number[] = [];
    let next = 0;
    const write = async (): Promise<void> => {
      const i = next++;
      ok(await rt.call(ctx, { tool: "reserve_funds", args: writeArgs, operation_id: `op-${i}`, approval_id: ids[i]! }));
    };
    for (let r = 0; r < rounds; r++) {
      // The same raw insert (a decision-log-shaped row, autocommit) as bench:runtime and bench:store.
      normals.push(rawSqliteInsertsPerSec(n, "NORMAL"));
      reads.push(await rate(n, read));
      writes.push(await rate(chunk, write));
    }
    await store.close();
    const readRate = median(reads);
    const writeRate = median(writes);
    const normal = median(normals);
    const full = rawSqliteInsertsPerSec(n, "FULL");
    const anchors = [{ label: "raw WAL INSERT, synchronous FULL", value: full }, { label: "raw WAL INSERT, synchronous NORMAL", value: normal }];
    return [
      { what: "allowed read through the gate, SQLite", unit: "calls/s", better: "higher", toolgate: { label: "runtime.call(get_account)", value: readRate }, anchors, notes: ["target >= 1.5x a raw WAL insert", `medians of ${rounds} rounds (raw NORMAL insert, ${n} reads, ${chunk} writes)`] },
      { what: "approved write through the gate, SQLite", unit: "calls/s", better: "higher", toolgate: { label: "runtime.call(reserve_funds), approved", value: writeRate }, anchors, notes: ["target >= 0.4x a raw WAL insert (synchronous as the store runs it)", `medians of ${rounds} rounds (raw NORMAL insert, ${n} reads, ${chunk} writes); the ceiling row of [store] is the highest ratio a two-commit write reaches`] },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function pgRows(ctx2: RowContext, url: string): Promise<BenchRow[]> {
  const n = ctx2.quick ? 200 : 1_000;
  const schema = `bench_${process.pid}_${Date.now()}`;
  const pool = createPgPool({ url, schema, max: 4, applicationName: "toolgate bench" });
  try {
    await migrate(pool, { schema });
    const store = await openPgStore({ pool });
    const rt = await gate(store);
    ctx2.log(`gate: PostgreSQL, ${n} approvals granted before timing`);
    const ids = await approvals(rt, n, "pg");
    // Interleaved rounds (gate, then raw, then raw, then gate, ...): a disk or a database
    // whose speed drifts during the run weighs on both figures alike.
    const rounds = ctx2.quick ? 2 : 6;
    const chunk = Math.floor(n / rounds);
    let gateMs = 0;
    let rawSeconds = 0;
    const gateChunk = async (r: number): Promise<void> => {
      const t = performance.now();
      for (let i = r * chunk; i < (r + 1) * chunk; i++) ok(await rt.call(ctx, { tool: "reserve_funds", args: writeArgs, operation_id: `pg-${i}`, approval_id: ids[i]! }));
      gateMs += performance.now() - t;
    };
    let ceilingSeconds = 0;
    const rawChunk = async (): Promise<void> => {
      rawSeconds += chunk / (await rawPgInsertsPerSec(url, chunk, 1));
      ceilingSeconds += chunk / (await leastTwoCommitPgWritesPerSec(url, chunk));
    };
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        await gateChunk(r);
        await rawChunk();
      } else {
        await rawChunk();
        await gateChunk(r);
      }
    }
    const writeRate = ((rounds * chunk) / gateMs) * 1000;
    const one = (rounds * chunk) / rawSeconds;
    const ceiling = (rounds * chunk) / ceilingSeconds;
    await store.close();
    const four = await rawPgInsertsPerSec(url, n, 4);
    return [{
      what: "approved write through the gate, PostgreSQL",
      unit: "calls/s",
      better: "higher",
      toolgate: { label: "runtime.call(reserve_funds), approved, 1 worker", value: writeRate },
      anchors: [
        { label: "raw pg INSERT, 1 connection", value: one },
        { label: "raw pg INSERT, 4 connections", value: four },
        { label: "ceiling: two-commit write, no toolgate code", value: ceiling },
      ],
      notes: [
        "target >= 0.3x a raw single-connection insert",
        `the gate, the 1-connection anchor and the ceiling in ${rounds} interleaved rounds of ${chunk}`,
        `ceiling / raw 1-connection insert = ${(ceiling / one).toFixed(2)}x: the highest ratio an approved write can reach (claim committed, then the outcome with its log row; bench/pg-ceiling.ts)`,
      ],
    }];
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pool.end();
  }
}

export const gateRows: RowSource = {
  name: "gate",
  async run(ctx2) {
    const rows = await sqliteRows(ctx2);
    if (ctx2.pgUrl === undefined) {
      return { rows, missing: ["approved write through the gate, PostgreSQL (and its raw pg anchors): TOOLGATE_PG_URL is not set"] };
    }
    return { rows: [...rows, ...(await pgRows(ctx2, ctx2.pgUrl))] };
  },
};
