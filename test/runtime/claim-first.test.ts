/**
 * Claim-first (src/runtime/held-claim.ts): a call with an operation id that presents an approval
 * claims its operation in authorize's store round trip. One test per guarantee, on every store
 * (SQLite, and PostgreSQL when TOOLGATE_PG_URL is set).
 */
import { beforeAll, beforeEach, expect, it } from "vitest";
import type { PolicyEngine, PolicyInput } from "../../src/policy/engine.js";
import { versionsOf } from "../../src/policy/version.js";
import type { Envelope } from "../../src/runtime/index.js";
import type { ClaimFirstRequest, ClaimRequest, OperationRecord, Store } from "../../src/store/store.js";
import { alice, approved, loadShippedPolicy, makeGate, reserveArgs, until } from "./harness.js";
import type { Gate, GateOptions } from "./harness.js";
import { describeEachStore } from "../helpers/stores.js";

/** What the store was asked, by method, while proxied (the store's own methods stay bound to it). */
interface Watched {
  readonly store: Store;
  readonly calls: Record<string, number>;
}

function watch(target: Store, before: { claimFirst?: (req: ClaimFirstRequest) => Promise<void>; createApproval?: () => Promise<void> } = {}): Watched {
  const calls: Record<string, number> = {};
  const store = new Proxy(target, {
    get(t, key) {
      const v: unknown = Reflect.get(t, key, t);
      if (typeof v !== "function") return v;
      const method = (v as (...a: unknown[]) => unknown).bind(t);
      return async (...a: unknown[]) => {
        calls[String(key)] = (calls[String(key)] ?? 0) + 1;
        if (key === "claimFirst" && before.claimFirst !== undefined) await before.claimFirst(a[0] as ClaimFirstRequest);
        if (key === "createApproval" && before.createApproval !== undefined) await before.createApproval();
        return method(...a);
      };
    },
  });
  return { store, calls };
}

/** The policy, with `hook` run before each evaluation of a reserve_funds call (the first argument counts them from 1). */
function hooked(policy: PolicyEngine, hook: (n: number, input: PolicyInput) => Promise<"deny" | "ask" | void>): PolicyEngine {
  let n = 0;
  return {
    ...versionsOf(policy),
    async evaluate(input, options) {
      const says = input.tool === "reserve_funds" ? await hook(++n, input) : undefined;
      if (says === "deny") return { allow: false, reason: "test_denies_once", requires_approval: false };
      if (says === "ask") return { allow: false, reason: "test_asks_again", requires_approval: true };
      return policy.evaluate(input, options);
    },
  };
}

const reasonOf = (e: Envelope): string => (e.outcome === "success" ? (e.replayed ? "success (replayed)" : "success") : `${e.outcome}:${e.reason}`);

describeEachStore("claim-first", (stores) => {
  let policy: PolicyEngine;
  let store: Store;
  beforeAll(async () => {
    policy = await loadShippedPolicy();
  });
  beforeEach(async () => {
    store = await stores.fresh();
  });
  const gate = (over: Partial<GateOptions> = {}): Gate => makeGate({ policy, store, ...over });

  it("a call denied after claim-first leaves no idempotency record (a retry with an approval runs fresh)", async () => {
    const g = gate({ policy: hooked(policy, async (n) => (n === 2 ? "deny" : undefined)) });
    const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-deny");
    const req = { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-deny", approval_id };
    expect(await g.runtime.call(alice, req)).toMatchObject({ reason: "policy_denied", message: expect.stringContaining("test_denies_once") });
    expect(await store.getOperation(alice.tenant, "op-deny", g.clock.now())).toBeNull();
    // A presented approval bound to another operation: the claim was made (the guard holds), the runtime's binding check denies.
    const other = await approved(g, alice, "reserve_funds", reserveArgs(7), "op-other");
    expect(await g.runtime.call(alice, { ...req, approval_id: other })).toMatchObject({ reason: "policy_denied", message: expect.stringContaining("approval_") });
    expect(await store.getOperation(alice.tenant, "op-deny", g.clock.now())).toBeNull();
    // The retry is a fresh first attempt, not a takeover of an unknown outcome (no reconcile, fence 1).
    const seen: { fence_token: number | null }[] = [];
    const h = gate({ clock: g.clock, ledger: g.ledger, inProgressWaitMs: 50, handlers: (base) => ({ reserve_funds: async (a, ctx) => (seen.push({ fence_token: ctx.fence_token }), base.reserve_funds(a, ctx)) }) });
    expect(await h.runtime.call(alice, req)).toMatchObject({ outcome: "success", replayed: false });
    expect(seen).toEqual([{ fence_token: 1 }]);
    expect(await store.getOperation(alice.tenant, "op-deny", g.clock.now())).toMatchObject({ status: "final", fence_token: 1, attempts: 1 });
    expect(g.ledger.effectsOf("op-deny")).toHaveLength(1);
  });

  it("an interrupt committed before claim-first stops the effect, and leaves no record", async () => {
    let stop = false;
    const w = watch(store, { claimFirst: async () => (stop ? store.setInterrupt({ tenant: alice.tenant, run_id: alice.run_id, reason: "user pressed stop", at_ms: 0 }) : undefined) });
    const g = gate({ store: w.store });
    const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-int");
    stop = true;
    const e = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-int", approval_id });
    stop = false;
    expect(w.calls["claimFirst"]).toBe(1);
    expect(e).toMatchObject({ outcome: "terminal_failure", reason: "interrupted" });
    expect(g.ledger.effectsOf("op-int")).toHaveLength(0);
    expect(await store.getOperation(alice.tenant, "op-int", g.clock.now())).toBeNull();
    await g.runtime.resume(alice);
    expect(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-int", approval_id })).toMatchObject({ outcome: "success" });
    expect(g.ledger.effectsOf("op-int")).toHaveLength(1);
  });

  it("an interrupt from this process while a claim-first call is authorized stops the effect, and leaves no record", async () => {
    let g!: Gate;
    g = gate({ policy: hooked(policy, async (n) => (n === 2 ? g.runtime.interrupt(alice, "user pressed stop") : undefined)) });
    const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-int-here");
    const e = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-int-here", approval_id });
    expect(e).toMatchObject({ outcome: "terminal_failure", reason: "interrupted", message: expect.stringContaining("before the effect") });
    expect(g.ledger.effectsOf("op-int-here")).toHaveLength(0);
    expect(await store.getOperation(alice.tenant, "op-int-here", g.clock.now())).toBeNull();
  });

  it("concurrent calls of one operation id in one process join the claim-first call's flight: one effect, nobody claims again or polls", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const w = watch(store);
    let evaluations = 0;
    const g = gate({ store: w.store, policy: hooked(policy, async (n) => ((evaluations = n), n === 2 ? held : undefined)) });
    const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-join");
    const req = { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-join", approval_id };
    const leader = g.runtime.call(alice, req);
    // The leader has claimed and waits in its policy evaluation; the followers arrive now.
    await until(() => evaluations === 2);
    expect(w.calls["claimFirst"]).toBe(1);
    const followers = Array.from({ length: 5 }, () => g.runtime.call(alice, req));
    // Let the followers pass their own policy and reach the leader's flight.
    await until(() => evaluations >= 2 + 5).catch((e: unknown) => { console.log("DEBUG", evaluations, JSON.stringify(w.calls)); throw e; });
    await new Promise((r) => setTimeout(r, 50));
    release();
    const answers = [await leader, ...(await Promise.all(followers))];
    expect(answers.map(reasonOf)).toEqual(["success", ...Array<string>(5).fill("success (replayed)")]);
    expect(g.ledger.effectsOf("op-join")).toHaveLength(1);
    expect(w.calls["claimFirst"]).toBe(1);
    // A caller that did not join would claim (and find the lease held: busy, then poll).
    expect(w.calls["claimOperation"] ?? 0).toBe(0);
  });

  it("a call answered in authorize after claim-first gives its flight back: the callers that joined it claim on their own and one effect runs", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const w = watch(store);
    // The leader (evaluation 2) waits, then is denied; the followers are allowed.
    let evaluations = 0;
    const g = gate({ store: w.store, policy: hooked(policy, async (n) => ((evaluations = n), n === 2 ? (await held, "deny") : undefined)) });
    const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-give");
    const req = { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-give", approval_id };
    const leader = g.runtime.call(alice, req);
    await until(() => evaluations === 2);
    expect(w.calls["claimFirst"]).toBe(1);
    const followers = Array.from({ length: 4 }, () => g.runtime.call(alice, req));
    await until(() => evaluations >= 2 + 4);
    // Let the followers pass their own policy and reach the leader's flight.
    await new Promise((r) => setTimeout(r, 50));
    release();
    expect(reasonOf(await leader)).toBe("terminal_failure:policy_denied");
    const answers = (await Promise.all(followers)).map(reasonOf).sort();
    expect(answers).toEqual(["success", ...Array<string>(3).fill("success (replayed)")]);
    expect(g.ledger.effectsOf("op-give")).toHaveLength(1);
    expect(await store.getOperation(alice.tenant, "op-give", g.clock.now())).toMatchObject({ status: "final", fence_token: 1, attempts: 1 });
  });

  it("a throw between claim-first and invoke gives the claim back", async () => {
    const w = watch(store, { createApproval: async () => { throw new Error("approvals table unavailable"); } });
    // The guard holds (approved, this tenant), so the claim is made; the policy then asks for a
    // new approval, and creating it throws.
    const g = gate({ store: w.store, policy: hooked(policy, async (n) => (n === 1 ? "ask" : undefined)) });
    const approval_id = await approved(gate({ clock: g.clock }), alice, "reserve_funds", reserveArgs(), "op-throw");
    const e = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-throw", approval_id });
    // The store's error goes to the host (onError), never into the model's answer.
    expect(e).toMatchObject({ outcome: "terminal_failure", reason: "permanent_error", message: expect.stringContaining("internal error in the gate") });
    expect(e.outcome === "terminal_failure" ? e.message : "").not.toContain("approvals table unavailable");
    expect(w.calls["claimFirst"]).toBe(1);
    expect(await store.getOperation(alice.tenant, "op-throw", g.clock.now())).toBeNull();
  });

  it("a handler that starts after a slow authorize still gets a full lease: a claim older than the slack is made again", async () => {
    const leaseLeft: number[] = [];
    const claims: string[] = [];
    const w = watch(store);
    const observed = new Proxy(w.store, {
      get(t, key) {
        if (key === "claimOperation") return async (req: ClaimRequest) => (claims.push(req.operation_id), t.claimOperation(req));
        const v: unknown = Reflect.get(t, key, t);
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(t) : v;
      },
    });
    let slow = 0;
    const g: Gate = gate({
      store: observed,
      policy: hooked(policy, async () => void g.clock.advance(slow)),
      handlers: (base) => ({
        reserve_funds: async (a, ctx) => {
          const rec: OperationRecord | null = await store.getOperation(alice.tenant, ctx.operation_id ?? "", g.clock.now());
          leaseLeft.push((rec?.lease_expires_at_ms ?? 0) - g.clock.now());
          return base.reserve_funds(a, ctx);
        },
      }),
    });
    const lease = 5_000 + 1_000; // reserve_funds' timeout plus the harness's lease margin
    const quick = await approved(g, alice, "reserve_funds", reserveArgs(1), "op-quick");
    expect(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1), operation_id: "op-quick", approval_id: quick })).toMatchObject({ outcome: "success" });
    slow = 1_000;
    const late = await approved(g, alice, "reserve_funds", reserveArgs(2), "op-slow");
    expect(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(2), operation_id: "op-slow", approval_id: late })).toMatchObject({ outcome: "success" });
    expect(leaseLeft).toEqual([lease, lease]);
    expect(claims).toEqual(["op-slow"]);
    expect(await store.getOperation(alice.tenant, "op-slow", g.clock.now())).toMatchObject({ status: "final", fence_token: 1, attempts: 1 });
  });
});
