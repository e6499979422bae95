/**
 * Exactly-once under timeouts, crashes and retries, retention, and bounded storage:
 * one test per guarantee, run by describeGuarantees on every store.
 */
import { describe, expect, it } from "vitest";
import type { Envelope } from "../../src/runtime/index.js";
import type { Manifest } from "../../src/manifest.js";
import { alice, approved, until, withTool } from "./harness.js";
import type { Gate, GateOptions } from "./harness.js";

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const reasonOf = (e: Envelope): string => (e.outcome === "success" ? "success" : `${e.outcome}:${e.reason}`);

export function describeOnceGuarantees(gate: (over?: Partial<GateOptions>) => Gate): void {
  describe("exactly-once under timeouts", () => {
    const TIMEOUT_MS = 30;
    const LANDS_AT_MS = 300;

    /**
     * reserve_funds times out at TIMEOUT_MS while its handler ignores the signal and lands
     * the effect at LANDS_AT_MS; the model retries at once with the same operation id.
     * Even trials retry through the same gate, odd ones through a second gate on the same store.
     */
    async function timeoutRace(trials: number, manifest: Manifest): Promise<Record<string, number>> {
      let started = 0;
      let settled = 0;
      const lateLanding: Partial<GateOptions>["handlers"] = (base) => ({
        reserve_funds: async (a, ctx) => {
          started++;
          try {
            await delay(LANDS_AT_MS);
            return await base.reserve_funds(a, ctx);
          } finally {
            settled++;
          }
        },
      });
      const a = gate({ manifest, handlers: lateLanding, leaseMarginMs: 60_000 });
      const b = gate({ manifest, handlers: lateLanding, leaseMarginMs: 60_000, store: a.store, ledger: a.ledger, clock: a.clock });
      const tally: Record<string, number> = {};
      const count = (k: string) => (tally[k] = (tally[k] ?? 0) + 1);
      const ids = Array.from({ length: trials }, (_, i) => i);
      // Distinct amounts, so every trial has its own approval.
      const approvals: string[] = [];
      for (const i of ids) approvals.push(await approved(a, alice, "reserve_funds", reserveArgs(i), `op-tr-${i}`));
      const answers = await Promise.all(
        ids.map(async (i) => {
          const req = { tool: "reserve_funds", args: reserveArgs(i), operation_id: `op-tr-${i}`, approval_id: approvals[i]! };
          const first = await a.runtime.call(alice, req);
          const retry = await (i % 2 === 0 ? a : b).runtime.call(alice, req);
          return { first, retry };
        }),
      );
      await until(() => settled === started);
      for (const i of ids) {
        const { first, retry } = answers[i]!;
        const effects = a.ledger.effectsOf(`op-tr-${i}`).length;
        count(effects === 1 ? "one effect" : effects === 0 ? "no effect" : "double effect");
        count(`first ${reasonOf(first)}`);
        count(`retry ${reasonOf(retry)}`);
        const later = await b.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(i), operation_id: `op-tr-${i}` });
        count(`recorded ${reasonOf(later)}`);
      }
      return tally;
    }

    const budget = (max_attempts: number) =>
      withTool("reserve_funds", { timeout_ms: TIMEOUT_MS, retry: { max_attempts, backoff: { initial_ms: 10, multiplier: 2, max_ms: 100 } } });
    const exactlyOnce = (n: number) => ({
      "one effect": n,
      [`first retryable_failure:timeout`]: n,
      "retry success": n,
      "recorded success": n,
    });

    it("a timed-out write stays claimed until its handler settles: 100 immediate retries (max_attempts 3), 0 double effects, outcome success", async () => {
      expect(await timeoutRace(100, budget(3))).toEqual(exactlyOnce(100));
    });

    it("a late success is recorded and wins over the unknown: 100 immediate retries (max_attempts 1), never retry_exhausted over a landed effect", async () => {
      expect(await timeoutRace(100, budget(1))).toEqual(exactlyOnce(100));
    });
  });
}

const reserveArgs = (i: number) => ({ account_id: "acc_alice", amount: 100 + i, currency: "EUR", recipient: "acc_bob" });
