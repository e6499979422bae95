/**
 * The multi-process races of limits and natural keys, shared by the tests
 * (test/workers/limits-race.test.ts) and the full-size run (bench/limits-race.ts):
 * `workers` processes over one store (PostgreSQL schema or SQLite file) send their share of
 * `calls` concurrent calls at the same instant, and the effects side table is read back.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TrustedContext } from "../../../src/generated-runtime.js";
import type { CallRequest } from "../../../src/runtime/index.js";
import { mulberry32 } from "../prng.js";
import { createEffectsTable } from "./effects-table.js";
import { startWorker, stopWorkers } from "./harness.js";
import type { WorkerHandle } from "./harness.js";
import { createTestSchema } from "../pg-env.js";
import { openSqliteEffects } from "./sqlite-effects.js";

export type RaceStore = "postgres" | "sqlite";

export interface RaceAnswer {
  readonly amount: number;
  readonly operation_id: string;
  readonly outcome: string;
  readonly reason: string;
}

export interface RaceResult {
  readonly answers: readonly RaceAnswer[];
  /** The effects the handler made (the side table), by operation id. */
  readonly effects: readonly { readonly operation_id: string; readonly amount: number }[];
  readonly elapsed_ms: number;
}

const ctx: TrustedContext = { tenant: "t_race", user: "agent", roles: ["agent"], run_id: "run_race" };
const worker = new URL("./limit-worker.ts", import.meta.url);

/** Runs `requests` split across `workers` processes at one instant; `maxSum`: the limit's cap. */
async function race(store: RaceStore, workers: number, maxSum: number, requests: readonly CallRequest[]): Promise<RaceResult> {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-race-"));
  const schema = store === "postgres" ? await createTestSchema() : null;
  const handles: WorkerHandle[] = [];
  try {
    if (schema !== null) await createEffectsTable(schema.pool);
    const base = { TG_STORE: store, TG_MAX_SUM: String(maxSum), TG_SQLITE_PATH: join(dir, "store.db"), TG_EFFECTS_PATH: join(dir, "effects.db"), TOOLGATE_TEST_SCHEMA: schema?.schema ?? "" };
    if (store === "sqlite") openSqliteEffects(base.TG_EFFECTS_PATH).close();
    for (let i = 0; i < workers; i++) handles.push(startWorker(worker, `w${i}`, base));
    await Promise.all(handles.map((h) => h.next("ready", 60_000)));
    const shares = handles.map((_, i) => requests.filter((_, j) => j % workers === i));
    const at = Date.now() + 300;
    const started = Date.now();
    handles.forEach((h, i) => h.send({ type: "run", at_ms: at, calls: shares[i]!.map((request) => ({ ctx, request })) }));
    const done = await Promise.all(handles.map((h) => h.next("done", 600_000)));
    const elapsed = Date.now() - started;
    const answers: RaceAnswer[] = [];
    done.forEach((d, i) => {
      const got = d["answers"] as { outcome: string; reason: string }[];
      got.forEach((a, j) => {
        const req = shares[i]![j]!;
        answers.push({ amount: Number((req.args as { amount: number }).amount), operation_id: req.operation_id ?? "", ...a });
      });
    });
    for (const h of handles) h.send({ type: "exit" });
    await Promise.all(handles.map((h) => h.exited));
    let effects: { operation_id: string; amount: number }[];
    if (schema !== null) {
      effects = (await schema.pool.query<{ operation_id: string; amount: number }>("SELECT operation_id, amount FROM test_effects ORDER BY seq")).rows;
    } else {
      const sink = openSqliteEffects(base.TG_EFFECTS_PATH);
      effects = sink.rows();
      sink.close();
    }
    return { answers, effects, elapsed_ms: elapsed };
  } finally {
    await stopWorkers(handles);
    await schema?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `calls` reserve_funds calls on one account, amounts 1..100 (seeded), each with its own operation id. */
export function limitRace(store: RaceStore, workers: number, calls: number, maxSum: number, seed = 7): Promise<RaceResult> {
  const rand = mulberry32(seed);
  const requests: CallRequest[] = Array.from({ length: calls }, (_, i) => ({
    tool: "reserve_funds",
    args: { account_id: "acc_race", amount: 1 + Math.floor(rand() * 100), currency: "EUR", recipient: "acc_payee" },
    operation_id: `op-${i}`,
  }));
  return race(store, workers, maxSum, requests);
}

/** `calls` calls of the natural-key tool with the same key and arguments, each with a random operation id (or none). */
export function naturalKeyRace(store: RaceStore, workers: number, calls: number, seed = 11): Promise<RaceResult> {
  const rand = mulberry32(seed);
  const requests: CallRequest[] = Array.from({ length: calls }, (_, i) => ({
    tool: "page_once",
    args: { account_id: "acc_incident", amount: 1, currency: "EUR", recipient: "acc_oncall" },
    ...(i % 10 === 9 ? {} : { operation_id: `model-${Math.floor(rand() * 1e12).toString(36)}` }),
  }));
  return race(store, workers, 1_000_000, requests);
}

/** The race's verdict: what ran, what was refused, and whether every refusal was one that did not fit. */
export function limitVerdict(r: RaceResult, maxSum: number) {
  const executed = r.answers.filter((a) => a.reason === "success");
  const refused = r.answers.filter((a) => a.reason === "limit_exceeded");
  const executedSum = executed.reduce((s, a) => s + a.amount, 0);
  const effectsSum = r.effects.reduce((s, e) => s + e.amount, 0);
  // Figures only grow in this race (every call that runs succeeds), so a refusal was right at the
  // end exactly when the call does not fit what is left of the cap after every executed call.
  const wronglyRefused = refused.filter((a) => executedSum + a.amount <= maxSum).length;
  const other = r.answers.filter((a) => a.reason !== "success" && a.reason !== "limit_exceeded");
  return { executed: executed.length, refused: refused.length, other: other.map((a) => a.reason), executedSum, effectsSum, effects: r.effects.length, over: Math.max(0, effectsSum - maxSum), wronglyRefused };
}
