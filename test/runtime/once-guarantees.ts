/**
 * Exactly-once under timeouts, crashes and retries, retention, and bounded storage:
 * one test per guarantee, run by describeGuarantees on every store.
 */
import { describe, expect, it } from "vitest";
import { manifest as shipped } from "../../generated/index.js";
import { fingerprint, isRuntimeConfigError } from "../../src/runtime/index.js";
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

  describe("retention vs approval TTL vs running handler", () => {
    it("the runtime refuses a tool whose retention is shorter than its approval TTL or than timeout + lease margin", () => {
      const refused = (over: Partial<GateOptions>): string => {
        try {
          gate(over);
          return "accepted";
        } catch (err) {
          return isRuntimeConfigError(err) ? err.message : `threw ${String(err)}`;
        }
      };
      expect(refused({ manifest: withTool("reserve_funds", { retention_ms: 500 }) })).toMatch(/reserve_funds: retention \(500 ms\) is shorter than approval\.ttl \(900000 ms\).*timeout_ms \+ lease margin/);
      expect(refused({ manifest: withTool("reserve_funds", { retention_ms: 60_000 }) })).toMatch(/shorter than approval\.ttl/);
      expect(refused({ manifest: withTool("get_account", { retention_ms: 3_000, timeout_ms: 2_000 }), leaseMarginMs: 1_000 })).toBe("accepted");
      expect(refused({ manifest: withTool("get_account", { retention_ms: 3_000, timeout_ms: 2_000 }), leaseMarginMs: 1_001 })).toMatch(/get_account: .*timeout_ms \+ lease margin \(2000 \+ 1001 ms\)/);
    });
  });

  describe("crash before the effect", () => {
    it("a claim that provably did not apply its effect does not consume the retry budget: 20 crashes between claim and handler, 20 successes", async () => {
      const g = gate({ manifest: withTool("reserve_funds", { retry: { max_attempts: 1, backoff: { initial_ms: 10, multiplier: 2, max_ms: 100 } } }) });
      const tool = shipped.tools["reserve_funds"]!;
      const ids = Array.from({ length: 20 }, (_, i) => i);
      const approvals: string[] = [];
      for (const i of ids) {
        approvals.push(await approved(g, alice, "reserve_funds", reserveArgs(i), `op-cr-${i}`));
        // What a worker SIGKILLed right after its claim leaves behind: in_progress, fence 1, no effect.
        const claim = await g.store.claimOperation({
          tenant: alice.tenant, operation_id: `op-cr-${i}`, tool: "reserve_funds", fingerprint: fingerprint(alice.tenant, "reserve_funds", reserveArgs(i), tool.fingerprint),
          owner: "killed-worker", now_ms: g.clock.now(), lease_ms: tool.timeout_ms + 1_000, retention_ms: tool.retention_ms,
        });
        expect(claim.kind).toBe("claimed");
      }
      g.clock.advance(tool.timeout_ms + 1_000); // the dead worker's lease runs out
      const tally: Record<string, number> = {};
      for (const i of ids) {
        const e = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(i), operation_id: `op-cr-${i}`, approval_id: approvals[i]! });
        const k = `${reasonOf(e)}, ${g.ledger.effectsOf(`op-cr-${i}`).length} effect(s)`;
        tally[k] = (tally[k] ?? 0) + 1;
        expect(await g.store.getOperation(alice.tenant, `op-cr-${i}`, g.clock.now())).toMatchObject({ status: "final", fence_token: 2, attempts: 1 });
      }
      expect(tally).toEqual({ "success, 1 effect(s)": 20 });
    });
  });

  describe("retryable means retryable", () => {
    const args = (i: number) => ({ account_id: "acc_bob", channel: "sms", message: `code ${i}` });

    it("a declared retryable failure under the default budget is answered retryable_failure and retried, never a final outcome: 20 trials", async () => {
      const failFirst = new Set<string>();
      const g = gate({
        handlers: (base) => ({
          send_notification: async (a, ctx) => {
            if (!failFirst.has(a.message)) {
              failFirst.add(a.message);
              return { ok: false, failure: "channel_unavailable" };
            }
            return base.send_notification(a, ctx);
          },
        }),
      });
      expect(shipped.tools["send_notification"]?.retry.max_attempts).toBe(3); // tools.yaml sets no retry block: the default
      const tally: Record<string, number> = {};
      const count = (k: string) => (tally[k] = (tally[k] ?? 0) + 1);
      for (let i = 0; i < 20; i++) {
        const approval_id = await approved(g, alice, "send_notification", args(i), `op-sms-${i}`);
        const req = { tool: "send_notification", args: args(i), operation_id: `op-sms-${i}`, approval_id };
        const first = await g.runtime.call(alice, req);
        count(`first ${reasonOf(first)}${first.outcome === "retryable_failure" ? ` after ${first.retry_after_ms} ms` : ""}`);
        count(`recorded ${(await g.store.getOperation(alice.tenant, `op-sms-${i}`, g.clock.now()))?.status}`);
        count(`retry ${reasonOf(await g.runtime.call(alice, req))}`);
      }
      expect(tally).toEqual({ "first retryable_failure:retryable_error after 30000 ms": 20, "recorded retryable": 20, "retry success": 20 });
      expect(g.ledger.effects).toHaveLength(20);
    });

    it("a retryable failure is recorded final only when the budget is spent", async () => {
      const g = gate({ handlers: () => ({ send_notification: async () => ({ ok: false, failure: "channel_unavailable" }) }) });
      const approval_id = await approved(g, alice, "send_notification", args(0), "op-spent");
      const req = { tool: "send_notification", args: args(0), operation_id: "op-spent", approval_id };
      const seen: string[] = [];
      for (let attempt = 1; attempt <= 4; attempt++) {
        const e = await g.runtime.call(alice, req);
        seen.push(`${reasonOf(e)} / ${(await g.store.getOperation(alice.tenant, "op-spent", g.clock.now()))?.status}`);
      }
      expect(seen).toEqual([
        "retryable_failure:retryable_error / retryable",
        "retryable_failure:retryable_error / retryable",
        "terminal_failure:retry_exhausted / final",
        "terminal_failure:retry_exhausted / final",
      ]);
    });
  });
}

const reserveArgs = (i: number) => ({ account_id: "acc_alice", amount: 100 + i, currency: "EUR", recipient: "acc_bob" });
