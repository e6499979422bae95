/**
 * npx tsx bench/pg-write.bench.ts [--baseline DIR] [--calls N] [--rounds R]
 *
 * Approved writes through the gate on PostgreSQL (createRuntime over openPgStore, the
 * shipped policy, each call pre-approved, one sequential caller) next to raw `pg` INSERTs
 * (one autocommit INSERT of a decision-log-shaped row per call, a named statement, one
 * connection), measured in interleaved rounds in one process. Per write it also prints
 * the round trips to the database, the connections checked out of the pool, the time
 * spent in each statement, and CPU time of this process and of the PostgreSQL backends
 * serving it (read from /proc when the server runs on this machine), which a loaded
 * machine disturbs far less than wall time. Statements are traced on the pool's
 * connections, so a store that keeps a connection between statements is counted too;
 * the trace (statements, checkouts, process CPU inside the store's write-path calls) is
 * taken in one extra round per side after the timed rounds, so the timed writes do not
 * pay for it (the raw inserts are never traced).
 *
 * --baseline DIR runs the same calls against a second source tree (for example
 * `git archive <commit> src generated policies | tar -x -C DIR`, with node_modules linked)
 * in the same rounds, so a change is measured as a ratio against its baseline.
 * Needs TOOLGATE_PG_URL. Each tree works in its own schema, dropped afterwards.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import type { TrustedContext } from "../src/generated-runtime.js";
import type { JsonObject } from "../src/manifest.js";
import type { Runtime } from "../src/runtime/index.js";
import type { Store } from "../src/store/store.js";

const { values: args } = parseArgs({
  options: { baseline: { type: "string" }, calls: { type: "string" }, rounds: { type: "string" } },
});
const url = process.env["TOOLGATE_PG_URL"];
if (url === undefined || url === "") {
  console.error("bench:pg-write needs TOOLGATE_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/test)");
  process.exit(2);
}
const perRound = Number(args.calls ?? "150");
const rounds = Number(args.rounds ?? "6");

const ctx: TrustedContext = { tenant: "t_bench", user: "bench", roles: ["agent"], run_id: "run_bench" };
const writeArgs: JsonObject = { account_id: "acc_alice", amount: 1, currency: "EUR", recipient: "acc_bob" };

/** Per write: statements sent and their time, by prepared-statement name (or SQL head). */
interface Trace {
  readonly statements: Map<string, { count: number; ms: number }>;
  /** Connections checked out of the pool. */
  checkouts: number;
  /** Process CPU µs (user, system) spent while a store method of the write path was pending. */
  readonly storeCpu: { user: number; system: number };
  on: boolean;
}

interface Side {
  readonly name: string;
  readonly rt: Runtime;
  readonly store: Store;
  readonly pool: pg.Pool;
  readonly schema: string;
  readonly approvals: string[];
  readonly trace: Trace;
  next: number;
}

/** CPU µs of each server process behind these connections that /proc shows (none when the server runs elsewhere). */
function backendCpuUs(pids: readonly number[]): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      cpu.set(pid, (Number(fields[11]) + Number(fields[12])) * 10_000);
    } catch {
      // another machine, or the backend ended
    }
  }
  return cpu;
}

/** CPU µs used between two readings by the processes present in both. */
function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let us = 0;
  for (const [pid, v] of after) us += v - (before.get(pid) ?? v);
  return us;
}

async function backendPids(pool: pg.Pool, app: string): Promise<number[]> {
  const res = await pool.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = $1", [app]);
  return res.rows.map((r) => r.pid);
}

/**
 * Counts the process CPU spent while each write-path store method is pending: with one
 * sequential caller that is the store's own work (driver, socket, row mapping), and the
 * rest of a write's process CPU is the runtime's.
 */
function traceStoreCpu(store: Store, trace: Trace): void {
  // claimFirst and releaseClaim are absent from a baseline tree older than claim-first.
  const methods = ["readCallState", "claimFirst", "releaseClaim", "claimOperation", "recordOutcome"] as const;
  for (const m of methods) {
    if (typeof store[m] !== "function") continue;
    const original = (store[m] as (...a: unknown[]) => Promise<unknown>).bind(store);
    (store as unknown as Record<string, unknown>)[m] = async (...a: unknown[]): Promise<unknown> => {
      if (!trace.on) return original(...a);
      const c0 = process.cpuUsage();
      try {
        return await original(...a);
      } finally {
        const c = process.cpuUsage(c0);
        trace.storeCpu.user += c.user;
        trace.storeCpu.system += c.system;
      }
    };
  }
}

/** The statements a pool's connections send while `trace.on`, counted and timed by name. */
function tracePool(pool: pg.Pool, trace: Trace): void {
  const wrap = (client: pg.PoolClient): void => {
    const marked = client as pg.PoolClient & { __traced?: boolean };
    if (marked.__traced === true) return;
    marked.__traced = true;
    const query = client.query.bind(client) as (...a: unknown[]) => unknown;
    (client as unknown as { query: (...a: unknown[]) => unknown }).query = (...a: unknown[]) => {
      const q = a[0] as string | { name?: string; text: string };
      const started = performance.now();
      const key = (typeof q === "string" ? q.slice(0, 40) : (q.name ?? q.text.slice(0, 40))).replace(/\s+/g, " ").trim();
      const seen = (): void => {
        const s = trace.statements.get(key) ?? { count: 0, ms: 0 };
        s.count++;
        s.ms += performance.now() - started;
        trace.statements.set(key, s);
      };
      const on = trace.on;
      // A submittable (the store's json statements) answers through its own callback.
      const sub = q as { submit?: unknown; callback?: unknown };
      if (typeof sub.submit === "function" && typeof sub.callback === "function") {
        const own = sub.callback as (e: unknown, r: unknown) => void;
        sub.callback = (err: unknown, res: unknown) => {
          if (on && err == null) seen();
          own(err, res);
        };
        return query(...a);
      }
      // pool.query passes a callback; runPrepared passes one too.
      const cb = a.at(-1);
      if (typeof cb === "function") {
        a[a.length - 1] = (err: unknown, res: unknown) => {
          if (on && err == null) seen();
          (cb as (e: unknown, r: unknown) => void)(err, res);
        };
        return query(...a);
      }
      const done = query(...a);
      if (on && done instanceof Promise) void done.then(seen, () => undefined);
      return done;
    };
  };
  pool.on("connect", wrap);
  pool.on("acquire", (client) => {
    if (trace.on) trace.checkouts++;
    wrap(client);
  });
}

async function openSide(name: string, root: string, calls: number): Promise<Side> {
  const from = (p: string) => import(pathToFileURL(resolve(root, p)).href);
  const gen = await from("generated/index.js");
  const escrow = await from("src/demo/escrow.js");
  const { loadPolicyEngine } = await from("src/policy/default-engine.js");
  const { createRuntime } = await from("src/runtime/index.js");
  const { openPgStore } = await from("src/store/postgres/index.js");
  const { createPgPool } = await from("src/store/postgres/pool.js");
  const { migrate } = await from("src/store/postgres/migrations.js");
  const schema = `bench_pgw_${name}_${process.pid}`;
  const pool = createPgPool({ url, schema, max: 4, applicationName: `tg pgw ${name} ${process.pid}` }) as pg.Pool;
  await migrate(pool, { schema });
  const store = (await openPgStore({ pool })) as Store;
  const data = JSON.parse(readFileSync(resolve(root, "policies/data.json"), "utf8")) as JsonObject;
  const policy = await loadPolicyEngine({ wasm: new Uint8Array(readFileSync(resolve(root, "generated/policy.wasm"))), entrypoint: "toolgate/authz/decision", data });
  const ledger = new escrow.EscrowLedger([
    { account_id: "acc_alice", balance: 1e12, currency: "EUR", status: "open" },
    { account_id: "acc_bob", balance: 0, currency: "EUR", status: "open" },
  ]);
  const rt = createRuntime({
    manifest: gen.manifest, validators: gen.validators, handlers: escrow.escrowHandlers(ledger), reconcilers: escrow.escrowReconcilers(ledger),
    policy, store, onError: () => undefined,
  }) as Runtime;
  const approvals: string[] = [];
  for (let i = 0; i < calls; i++) {
    const ask = await rt.call(ctx, { tool: "reserve_funds", args: writeArgs, operation_id: `pgw-${i}` });
    if (ask.outcome !== "terminal_failure" || ask.approval_id === undefined) throw new Error(`expected approval_required: ${JSON.stringify(ask)}`);
    const d = await rt.approvals.decide(ask.approval_id, { decision: "approve" }, { tenant: ctx.tenant, user: "approver", roles: ["approver"] });
    if (!d.ok) throw new Error(d.message);
    approvals.push(ask.approval_id);
  }
  await store.flushDecisions();
  const trace: Trace = { statements: new Map(), checkouts: 0, storeCpu: { user: 0, system: 0 }, on: false };
  tracePool(pool, trace);
  traceStoreCpu(store, trace);
  return { name, rt, store, pool, schema, approvals, trace, next: 0 };
}

interface Tally {
  ms: number;
  calls: number;
  cpuUs: number;
  /** The part of cpuUs spent in the kernel (socket work shows up here). */
  sysUs: number;
  backendUs: number;
}

const tallies = new Map<string, Tally>();
async function timed(name: string, pids: () => Promise<number[]>, count: boolean, fn: () => Promise<void>): Promise<void> {
  const ps = await pids();
  const b0 = backendCpuUs(ps);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < perRound; i++) await fn();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const backend = cpuBetween(b0, backendCpuUs(ps));
  if (!count) return;
  const t = tallies.get(name) ?? { ms: 0, calls: 0, cpuUs: 0, sysUs: 0, backendUs: 0 };
  t.ms += ms;
  t.calls += perRound;
  t.cpuUs += cpu.user + cpu.system;
  t.sysUs += cpu.system;
  t.backendUs += backend;
  tallies.set(name, t);
}

// The timed rounds, round 0 (warm-up), and one traced round per side.
const total = perRound * (rounds + 2);
const sides: Side[] = [await openSide("toolgate", ".", total)];
if (args.baseline !== undefined) sides.push(await openSide("baseline", args.baseline, total));

const raw = new pg.Client({ connectionString: url, application_name: `tg pgw raw ${process.pid}` });
await raw.connect();
const rawTable = `bench_pgw_raw_${process.pid}`;
await raw.query(`CREATE TABLE ${rawTable} (seq bigint PRIMARY KEY, at_ms bigint, tenant text, run_id text, user_id text, tool text,
  operation_id text, decision text, reason text, outcome text)`);
let rawSeq = 0;
const rawPid = [(await raw.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid];
try {
  // Round 0 warms up every path and is not counted; the order of the sides alternates.
  for (let r = 0; r <= rounds; r++) {
    const count = r > 0;
    await timed("raw pg INSERT, 1 connection", async () => rawPid, count, async () => {
      await raw.query({ name: "raw_insert", text: `INSERT INTO ${rawTable} VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        values: [rawSeq++, Date.now(), "t_bench", "run_bench", "bench", "get_account", null, "allow", "read_allowed", "success"] });
    });
    for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
      await timed(side.name, () => backendPids(side.pool, `tg pgw ${side.name} ${process.pid}`), count, async () => {
        const i = side.next++;
        const env = await side.rt.call(ctx, { tool: "reserve_funds", args: writeArgs, operation_id: `pgw-${i}`, approval_id: side.approvals[i]! });
        if (env.outcome !== "success") throw new Error(`approved write failed: ${JSON.stringify(env)}`);
      });
    }
  }
  // Tracing statements and store calls costs process CPU that the raw inserts do not pay,
  // so it runs in a round of its own after the timed ones.
  for (const side of sides) {
    side.trace.on = true;
    for (let i = 0; i < perRound; i++) {
      const n = side.next++;
      const env = await side.rt.call(ctx, { tool: "reserve_funds", args: writeArgs, operation_id: `pgw-${n}`, approval_id: side.approvals[n]! });
      if (env.outcome !== "success") throw new Error(`approved write failed: ${JSON.stringify(env)}`);
    }
    side.trace.on = false;
  }
  await new Promise((r) => setTimeout(r, 50));
  const rawT = tallies.get("raw pg INSERT, 1 connection")!;
  const rate = (t: Tally) => (t.calls / t.ms) * 1000;
  const us = (v: number) => v.toFixed(0).padStart(5);
  console.log(`bench:pg-write  ${rounds} interleaved rounds of ${perRound} calls (after one warm-up round); PostgreSQL at ${new URL(url).host}`);
  for (const [name, t] of tallies) {
    const vs = `  = ${(rate(t) / rate(rawT)).toFixed(3)}x raw`;
    console.log(`  ${name.padEnd(28)} ${rate(t).toFixed(0).padStart(6)} calls/s ${us((t.ms / t.calls) * 1000)} µs/call  cpu: process ${us(t.cpuUs / t.calls)} µs (sys ${us(t.sysUs / t.calls)}), backend ${us(t.backendUs / t.calls)} µs${vs}`);
  }
  for (const side of sides) {
    const t = { calls: perRound };
    const trips = [...side.trace.statements.values()].reduce((n, s) => n + s.count, 0) / t.calls;
    console.log(`  ${side.name}: ${trips.toFixed(2)} round trips, ${(side.trace.checkouts / t.calls).toFixed(2)} pool checkouts per write`);
    const sc = side.trace.storeCpu;
    console.log(`    process cpu inside store calls: user ${us(sc.user / t.calls)} µs, system ${us(sc.system / t.calls)} µs per write`);
    for (const [name, s] of side.trace.statements) {
      console.log(`    ${(s.count / t.calls).toFixed(2)} x ${name.padEnd(32)} ${us((s.ms / s.count) * 1000)} µs each`);
    }
  }
  const base = tallies.get("baseline");
  const mine = tallies.get("toolgate");
  if (base !== undefined && mine !== undefined) console.log(`  toolgate / baseline: ${(rate(mine) / rate(base)).toFixed(3)}x calls/s`);
} finally {
  await raw.query(`DROP TABLE IF EXISTS ${rawTable}`).catch(() => undefined);
  await raw.end();
  for (const side of sides) {
    await side.store.close();
    await side.pool.query(`DROP SCHEMA IF EXISTS ${side.schema} CASCADE`).catch(() => undefined);
    await side.pool.end();
  }
}
