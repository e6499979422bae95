/**
 * The limit race with crashes: worker processes race against one `max_sum` while some are
 * SIGKILLed at chosen phases of a call (deciding, claimed before the effect, after the effect
 * before the outcome is recorded: limit-gate.ts `CallPhase`) or at a random moment. After each
 * wave the calls the killed processes never answered are sent again, with their operation ids,
 * by fresh processes once the leases ran out, mixed with new calls that compete for the cap;
 * the retries reconcile (the gate's reconciler reads the effects side table). Waves go on until
 * every call is answered; the last one kills nothing.
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
import type { CallPhase } from "./limit-gate.js";
import type { RaceStore } from "./limit-race.js";
import { createTestSchema } from "../pg-env.js";
import { openSqliteEffects } from "./sqlite-effects.js";

export interface CrashRaceOptions {
  readonly store: RaceStore;
  readonly workers: number;
  /** New calls in all (amounts 1..100, seeded); spread over the waves. */
  readonly calls: number;
  readonly maxSum: number;
  /** Waves that kill processes, and how many of a wave's processes are killed. */
  readonly killWaves: number;
  readonly killsPerWave: number;
  /** The kills' phases, in turn; absent: each chosen at random. */
  readonly phases?: readonly (CallPhase | "random")[];
  readonly seed?: number;
}

export interface CrashRaceResult {
  /** The final answer of every call, by operation id (a crashed call's is its retry's). */
  readonly answers: ReadonlyMap<string, { readonly amount: number; readonly reason: string }>;
  readonly effects: readonly { readonly operation_id: string; readonly amount: number }[];
  /** Operation ids a killed process left unanswered (each was sent again). */
  readonly crashed: ReadonlySet<string>;
  readonly kills: number;
  /** The phase of each kill ("random": a SIGKILL from outside at a random moment). */
  readonly killPhases: readonly (CallPhase | "random")[];
  readonly waves: number;
  readonly elapsed_ms: number;
}

const ctx: TrustedContext = { tenant: "t_crash", user: "agent", roles: ["agent"], run_id: "run_crash" };
const worker = new URL("./limit-worker.ts", import.meta.url);
const timeoutMs = 1_000;
const leaseMarginMs = 500;
const phases: readonly (CallPhase | "random")[] = ["policy", "before_effect", "after_effect", "random"];
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function crashRace(opts: CrashRaceOptions): Promise<CrashRaceResult> {
  const rand = mulberry32(opts.seed ?? 13);
  const fresh: CallRequest[] = Array.from({ length: opts.calls }, (_, i) => ({
    tool: "reserve_funds",
    args: { account_id: "acc_crash", amount: 1 + Math.floor(rand() * 100), currency: "EUR", recipient: "acc_payee" },
    operation_id: `op-${i}`,
  }));
  const dir = mkdtempSync(join(tmpdir(), "toolgate-crash-race-"));
  const schema = opts.store === "postgres" ? await createTestSchema() : null;
  const answers = new Map<string, { amount: number; reason: string }>();
  const crashed = new Set<string>();
  const killPhases: (CallPhase | "random")[] = [];
  let pending: CallRequest[] = [];
  let handles: WorkerHandle[] = [];
  const started = Date.now();
  let wave = 0;
  try {
    if (schema !== null) await createEffectsTable(schema.pool);
    const base = {
      TG_STORE: opts.store,
      TG_MAX_SUM: String(opts.maxSum),
      TG_SQLITE_PATH: join(dir, "store.db"),
      TG_EFFECTS_PATH: join(dir, "effects.db"),
      TOOLGATE_TEST_SCHEMA: schema?.schema ?? "",
      TG_TIMEOUT_MS: String(timeoutMs),
      TG_LEASE_MARGIN_MS: String(leaseMarginMs),
    };
    if (opts.store === "sqlite") openSqliteEffects(base.TG_EFFECTS_PATH).close();
    const perWave = Math.ceil(opts.calls / (opts.killWaves + 1));
    for (; wave === 0 || pending.length > 0 || fresh.length > 0; wave++) {
      const killing = wave < opts.killWaves;
      // This wave: the retries of the last wave's unanswered calls, mixed with new calls.
      const batch = [...pending, ...fresh.splice(0, killing ? perWave : fresh.length)];
      for (let i = batch.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [batch[i], batch[j]] = [batch[j]!, batch[i]!];
      }
      handles = Array.from({ length: opts.workers }, (_, i) => startWorker(worker, `w${wave}-${i}`, base));
      await Promise.all(handles.map((h) => h.next("ready", 60_000)));
      const shares = handles.map((_, i) => batch.filter((_, j) => j % opts.workers === i));
      const victims = new Set(killing ? handles.map((_, i) => i).sort(() => rand() - 0.5).slice(0, opts.killsPerWave) : []);
      const at = Date.now() + 300;
      handles.forEach((h, i) => {
        const phase = opts.phases === undefined ? phases[Math.floor(rand() * phases.length)]! : opts.phases[killPhases.length % opts.phases.length]!;
        const kill = victims.has(i) && phase !== "random" ? { phase, at: 1 + Math.floor(rand() * Math.max(1, shares[i]!.length)) } : undefined;
        if (victims.has(i)) killPhases.push(phase);
        if (victims.has(i) && phase === "random") setTimeout(() => h.child.kill("SIGKILL"), 300 + Math.floor(rand() * 200));
        h.send({ type: "run", at_ms: at, calls: shares[i]!.map((request) => ({ ctx, request })), ...(kill === undefined ? {} : { kill }) });
      });
      pending = [];
      const outcomes = await Promise.all(handles.map((h) => h.next("done", 600_000).catch(() => null)));
      outcomes.forEach((done, i) => {
        if (done === null) {
          // Killed: none of its calls has an answer the caller saw; each is sent again.
          for (const r of shares[i]!) {
            crashed.add(r.operation_id!);
            pending.push(r);
          }
          return;
        }
        const got = done["answers"] as { outcome: string; reason: string }[];
        got.forEach((a, j) => {
          const r = shares[i]![j]!;
          answers.set(r.operation_id!, { amount: Number((r.args as { amount: number }).amount), reason: a.reason });
        });
      });
      for (const h of handles) if (h.child.exitCode === null && h.child.signalCode === null) h.send({ type: "exit" });
      await Promise.all(handles.map((h) => h.exited));
      // The killed processes' claims hold until their leases run out.
      if (pending.length > 0) await sleep(timeoutMs + leaseMarginMs + 500);
    }
    let effects: { operation_id: string; amount: number }[];
    if (schema !== null) {
      effects = (await schema.pool.query<{ operation_id: string; amount: number }>("SELECT operation_id, amount FROM test_effects ORDER BY seq")).rows;
    } else {
      const sink = openSqliteEffects(base.TG_EFFECTS_PATH);
      effects = sink.rows();
      sink.close();
    }
    return { answers, effects, crashed, kills: killPhases.length, killPhases, waves: wave, elapsed_ms: Date.now() - started };
  } finally {
    await stopWorkers(handles);
    await schema?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The verdict. `over`: what the effects exceed the cap by. A call refused `limit_exceeded` was
 * wrongly refused when it fits what is left of the cap after every executed call and every
 * crashed call that made no effect: a crashed call counts from its claim until a retry with its
 * operation id reconciles it (its effect may have happened), so a refusal while it counted was
 * right even if its retry then found no effect and was itself refused. `unanswered`: calls
 * without a final answer; `twice`: operations with more than one effect; `unreported`: effects
 * whose call was not answered success, and successes without an effect.
 */
export function crashVerdict(r: CrashRaceResult, maxSum: number) {
  const effectOps = new Map<string, number>();
  for (const e of r.effects) effectOps.set(e.operation_id, (effectOps.get(e.operation_id) ?? 0) + 1);
  const effectsSum = r.effects.reduce((s, e) => s + e.amount, 0);
  const all = [...r.answers.entries()];
  const executed = all.filter(([, a]) => a.reason === "success" || a.reason === "replayed");
  const refused = all.filter(([, a]) => a.reason === "limit_exceeded");
  const heldByCrashed = all.filter(([id]) => r.crashed.has(id) && !effectOps.has(id)).reduce((s, [, a]) => s + a.amount, 0);
  const wronglyRefused = refused.filter(([, a]) => effectsSum + heldByCrashed + a.amount <= maxSum).length;
  const unreported = [...effectOps.keys()].filter((id) => !executed.some(([x]) => x === id)).length + executed.filter(([id]) => !effectOps.has(id)).length;
  return {
    executed: executed.length,
    refused: refused.length,
    effectsSum,
    over: Math.max(0, effectsSum - maxSum),
    wronglyRefused,
    twice: [...effectOps.values()].filter((n) => n > 1).length,
    unreported,
    other: all.filter(([, a]) => a.reason !== "success" && a.reason !== "replayed" && a.reason !== "limit_exceeded").map(([, a]) => a.reason),
  };
}
