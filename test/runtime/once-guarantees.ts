/**
 * Exactly-once under timeouts, crashes and retries, retention, and bounded storage:
 * one test per guarantee, run by describeGuarantees on every store.
 */
import { describe, expect, it } from "vitest";
import { manifest as shipped } from "../../generated/index.js";
import { fingerprint, operationFingerprint } from "../../src/runtime/index.js";
import type { Envelope } from "../../src/runtime/index.js";
import type { Manifest } from "../../src/manifest.js";
import type { ClaimFirstRequest, ClaimRequest, Store } from "../../src/store/store.js";
import { escrowReconcilers } from "../../src/demo/escrow.js";
import { alice, approved, bob, until, withTool } from "./harness.js";
import type { Gate, GateOptions } from "./harness.js";

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const reasonOf = (e: Envelope): string => (e.outcome === "success" ? "success" : `${e.outcome}:${e.reason}`);

export function describeOnceGuarantees(gate: (over?: Partial<GateOptions>) => Gate): void {
  describe("exactly-once under timeouts", () => {
    const TIMEOUT_MS = 30;

    /**
     * reserve_funds times out at TIMEOUT_MS while its handler ignores the signal; the model
     * retries at once with the same operation id. The late effect lands exactly when the
     * retry has acted: either a reconciler looked first (the race the guarantee forbids), or
     * the retry found the operation still claimed and is waiting. No timer decides the order.
     * Even trials retry through the same gate, odd ones through a second gate on the same store.
     */
    async function timeoutRace(trials: number, manifest: Manifest): Promise<Record<string, number>> {
      let started = 0;
      let settled = 0;
      const landings = new Map<string, { land: () => void; landed: Promise<void> }>();
      const landing = (op: string) => {
        const known = landings.get(op);
        if (known !== undefined) return known;
        let land!: () => void;
        const made = { land: () => land(), landed: new Promise<void>((res) => (land = res)) };
        landings.set(op, made);
        return made;
      };
      const lateLanding: Partial<GateOptions>["handlers"] = (base) => ({
        reserve_funds: async (a, ctx) => {
          started++;
          try {
            await landing(ctx.operation_id ?? "").landed;
            return await base.reserve_funds(a, ctx);
          } finally {
            settled++;
          }
        },
      });
      const looking: Partial<GateOptions>["reconcilers"] = (ledger) => {
        const real = escrowReconcilers(ledger);
        return { ...real, reserve_funds: async (a, ctx) => { const r = await real.reserve_funds!(a, ctx); landing(ctx.operation_id ?? "").land(); return r; } };
      };
      const base = gate();
      const store = watchClaims(base.store, (op, kind) => kind === "busy" && landing(op).land());
      const a = gate({ manifest, store, handlers: lateLanding, reconcilers: looking, leaseMarginMs: 60_000, ledger: base.ledger, clock: base.clock });
      const b = gate({ manifest, store, handlers: lateLanding, reconcilers: looking, leaseMarginMs: 60_000, ledger: base.ledger, clock: base.clock });
      const tally: Record<string, number> = {};
      const count = (k: string) => (tally[k] = (tally[k] ?? 0) + 1);
      const ids = Array.from({ length: trials }, (_, i) => i);
      // Distinct amounts, so every trial has its own approval.
      const approvals = await Promise.all(ids.map((i) => approved(a, alice, "reserve_funds", reserveArgs(i), `op-tr-${i}`)));
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
    it("a record whose handler is still running is never taken over when its retention passes: 500 ms retention, a second gate at 600 ms, 20 trials, 1 effect each", async () => {
      const m = withTool("reserve_funds", { retention_ms: 500 });
      const tally: Record<string, number> = {};
      for (let i = 0; i < 20; i++) {
        let release!: () => void;
        const held = new Promise<void>((r) => (release = r));
        const a = gate({ manifest: m, handlers: (base) => ({ reserve_funds: async (x, ctx) => { const r = await base.reserve_funds(x, ctx); await held; return r; } }) });
        const b = gate({ manifest: m, store: a.store, ledger: a.ledger, clock: a.clock, inProgressWaitMs: 50 });
        const req = { tool: "reserve_funds", args: reserveArgs(i), operation_id: `op-ret-${i}`, approval_id: await approved(a, alice, "reserve_funds", reserveArgs(i), `op-ret-${i}`) };
        const first = a.runtime.call(alice, req);
        await until(() => a.ledger.effectsOf(`op-ret-${i}`).length === 1);
        a.clock.advance(600);
        const second = await b.runtime.call(alice, req);
        release();
        const done = await first;
        const k = `second ${reasonOf(second)}, first ${reasonOf(done)}, ${a.ledger.effectsOf(`op-ret-${i}`).length} effect(s)`;
        tally[k] = (tally[k] ?? 0) + 1;
      }
      expect(tally).toEqual({ "second retryable_failure:retryable_error, first success, 1 effect(s)": 20 });
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
          tenant: alice.tenant, operation_id: `op-cr-${i}`, tool: "reserve_funds", fingerprint: operationFingerprint(fingerprint(alice.tenant, "reserve_funds", reserveArgs(i), tool.fingerprint), alice.user),
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

  describe("storage cannot be grown by the model", () => {
    const bytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v));
    const MB = "x".repeat(1024 * 1024);

    it("arguments over 64 KiB of canonical JSON are refused in prepare: 50 calls with a 1 MB argument store, log and echo under 100 KB", async () => {
      const g = gate();
      let echoed = 0;
      for (let i = 0; i < 50; i++) {
        const e = await g.runtime.call(alice, { tool: "reserve_funds", args: { ...reserveArgs(i), recipient: `acc_${MB}` }, operation_id: `op-big-${i}` });
        expect(e).toMatchObject({ outcome: "terminal_failure", reason: "invalid_arguments", problems: [expect.stringContaining("at most 65536 (max_args_bytes)")] });
        echoed += bytes(e);
      }
      const log = await g.store.listDecisions({ tenant: alice.tenant });
      expect(log).toHaveLength(50);
      expect(log.every((d) => d.decision === "not_evaluated" && d.fingerprint === null)).toBe(true);
      expect(await g.store.getOperation(alice.tenant, "op-big-0", g.clock.now())).toBeNull();
      expect({ echoed: echoed < 100_000, logged: bytes(log) < 100_000 }).toEqual({ echoed: true, logged: true });
      // Just under the cap is a normal call (it asks for an approval, which stores the arguments).
      const fits = await g.runtime.call(alice, { tool: "reserve_funds", args: { ...reserveArgs(0), recipient: `acc_${"y".repeat(60_000)}` }, operation_id: "op-fits" });
      expect(fits).toMatchObject({ reason: "approval_required" });
      expect(fits.outcome === "terminal_failure" ? fits.message.length : 0).toBeLessThan(1_000);
    });

    it("a tool's max_args_bytes and the runtime's maxArgsBytes set the cap", async () => {
      const small = gate({ manifest: withTool("reserve_funds", { max_args_bytes: 120 }) });
      const args = reserveArgs(1);
      expect(bytes(args)).toBeLessThan(120);
      expect(await small.runtime.call(alice, { tool: "reserve_funds", args, operation_id: "op-s" })).toMatchObject({ reason: "approval_required" });
      expect(await small.runtime.call(alice, { tool: "reserve_funds", args: { ...args, recipient: "acc_" + "b".repeat(60) }, operation_id: "op-s2" })).toMatchObject({
        reason: "invalid_arguments",
        problems: [expect.stringContaining("at most 120")],
      });
      const global = gate({ maxArgsBytes: 50 });
      expect(await global.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_" + "a".repeat(60) } })).toMatchObject({ reason: "invalid_arguments", problems: [expect.stringContaining("at most 50")] });
    });

    it("a tool name longer than 64 characters is unknown_tool and is never echoed or logged: 50 calls with a 1 MB name", async () => {
      const g = gate();
      let echoed = 0;
      for (let i = 0; i < 50; i++) {
        const e = await g.runtime.call(alice, { tool: MB, args: {}, operation_id: MB });
        expect(e).toMatchObject({ outcome: "terminal_failure", reason: "unknown_tool", message: expect.stringContaining("a name of 1048576 characters") });
        echoed += bytes(e);
      }
      const log = await g.store.listDecisions({ tenant: alice.tenant });
      expect(log).toHaveLength(50);
      expect({ echoed: echoed < 50_000, logged: bytes(log) < 100_000 }).toEqual({ echoed: true, logged: true });
      expect(log[0]).toMatchObject({ tool: "(a name of 1048576 characters)", outcome_reason: "unknown_tool" });
      // A name of declarable length is still echoed, so the model sees its typo.
      const typo = await g.runtime.call(alice, { tool: "reserve_fund", args: {} });
      expect(typo).toMatchObject({ reason: "unknown_tool", message: expect.stringContaining('"reserve_fund"') });
    });

    it("a model-chosen property name is quoted bounded in invalid_arguments", async () => {
      const g = gate({ maxArgsBytes: 4 * 1024 * 1024 });
      const e = await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_a", [MB]: 1 } });
      expect(e).toMatchObject({ reason: "invalid_arguments" });
      expect(bytes(e)).toBeLessThan(2_000);
    });

    it("approvals that expire undecided are purged: 100 pending approvals, all deleted after their TTL", async () => {
      const g = gate();
      const ids: string[] = [];
      for (let i = 0; i < 100; i++) {
        const e = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(i), operation_id: `op-pend-${i}` });
        if (e.outcome === "terminal_failure" && e.approval_id !== undefined) ids.push(e.approval_id);
      }
      expect(ids).toHaveLength(100);
      expect(await g.store.purgeExpired(g.clock.now())).toBe(0);
      g.clock.advance(15 * 60_000);
      expect(await g.store.purgeExpired(g.clock.now())).toBeGreaterThanOrEqual(100);
      const left = await Promise.all(ids.map((id) => g.store.getApproval(id)));
      expect(left.filter((a) => a !== null)).toHaveLength(0);
    });
  });

  describe("revoke and interrupt race the claim", () => {
    /**
     * Commits `act` right before every claim: after the approval and the interrupt flag were last
     * read on their own (for a call that claims first, the claim is that read).
     */
    function actBeforeClaim(store: Store, act: (req: ClaimRequest) => Promise<void>): Store {
      return new Proxy(store, {
        get(target, key) {
          if (key === "claimOperation") return async (req: ClaimRequest) => (await act(req), target.claimOperation(req));
          if (key === "claimFirst") return async (req: ClaimFirstRequest) => (await act(req), target.claimFirst(req));
          const v: unknown = Reflect.get(target, key, target);
          return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
    }

    it("a revoke committed between the approval re-read and the claim stops the effect: 20 trials, 0 effects", async () => {
      const base = gate();
      let g: Gate = base;
      const revokeNow = new Map<string, string>();
      const store = actBeforeClaim(base.store, async (req) => {
        const id = revokeNow.get(req.operation_id);
        if (id !== undefined) expect((await g.runtime.approvals.decide(id, { decision: "revoke", reason: "customer called" }, bob)).ok).toBe(true);
      });
      g = gate({ store, ledger: base.ledger, clock: base.clock });
      const tally: Record<string, number> = {};
      for (let i = 0; i < 20; i++) {
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(i), `op-rv-${i}`);
        revokeNow.set(`op-rv-${i}`, approval_id);
        const e = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(i), operation_id: `op-rv-${i}`, approval_id });
        const said = e.outcome === "terminal_failure" && e.message.includes("revoked") ? " (revoked)" : "";
        const k = `${reasonOf(e)}${said}, ${g.ledger.effectsOf(`op-rv-${i}`).length} effect(s)`;
        tally[k] = (tally[k] ?? 0) + 1;
      }
      expect(tally).toEqual({ "terminal_failure:policy_denied (revoked), 0 effect(s)": 20 });
    });

    it("an interrupt committed between the interrupt re-read and the claim stops the effect: 20 trials, 0 effects", async () => {
      const base = gate();
      let stopNow = false;
      const store = actBeforeClaim(base.store, async () => {
        if (stopNow) await base.store.setInterrupt({ tenant: alice.tenant, run_id: alice.run_id, reason: "user pressed stop", at_ms: base.clock.now() });
      });
      const g = gate({ store, ledger: base.ledger, clock: base.clock });
      const tally: Record<string, number> = {};
      for (let i = 0; i < 20; i++) {
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(i), `op-in-${i}`);
        stopNow = true;
        const e = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(i), operation_id: `op-in-${i}`, approval_id });
        stopNow = false;
        await g.runtime.resume(alice);
        const claimed = (await g.store.getOperation(alice.tenant, `op-in-${i}`, g.clock.now())) === null ? "no claim" : "claimed";
        const k = `${reasonOf(e)}, ${g.ledger.effectsOf(`op-in-${i}`).length} effect(s), ${claimed}`;
        tally[k] = (tally[k] ?? 0) + 1;
      }
      expect(tally).toEqual({ "terminal_failure:interrupted, 0 effect(s), no claim": 20 });
    });
  });
}

/** The store, reporting every claim's answer (the store's own methods stay bound to it). */
function watchClaims(store: Store, seen: (operationId: string, kind: string) => void): Store {
  return new Proxy(store, {
    get(target, key) {
      if (key === "claimOperation") {
        return async (req: ClaimRequest) => {
          const r = await target.claimOperation(req);
          seen(req.operation_id, r.kind);
          return r;
        };
      }
      const v: unknown = Reflect.get(target, key, target);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

const reserveArgs = (i: number) => ({ account_id: "acc_alice", amount: 100 + i, currency: "EUR", recipient: "acc_bob" });
