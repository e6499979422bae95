/**
 * A revoke that loses the race with the call it revokes, on both stores: the call claimed its
 * operation first, so the revoke answers already_executed (with the outcome once recorded) and
 * the approval is not marked revoked. Of a revoke and a claim exactly one wins, in the store.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, expect, it } from "vitest";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { alice, approved, bob, loadShippedPolicy, makeGate, reserveArgs, until } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";

const op = (s: string) => `${s}-${randomUUID().slice(0, 8)}`;

describeEachStore("revoke after execution", (stores) => {
  let policy: PolicyEngine;
  beforeAll(async () => {
    policy = await loadShippedPolicy();
  });

  it("a revoke after the call claimed its operation answers already_executed with the outcome and does not mark the approval revoked", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started = false;
    const g = makeGate({
      policy,
      store: await stores.fresh(),
      handlers: (base) => ({
        reserve_funds: async (args, ctx) => {
          started = true;
          await gate;
          return base.reserve_funds(args, ctx);
        },
      }),
    });
    const id = op("op-race");
    const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), id);
    const call = g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id });
    await until(() => started);
    // The handler runs: the money may be moving.
    const running = await g.runtime.approvals.decide(approval_id, { decision: "revoke", reason: "customer called" }, bob);
    expect(running).toMatchObject({ ok: false, why: "already_executed", outcome: null, message: expect.stringContaining("already executed") });
    release();
    const done = await call;
    expect(done).toMatchObject({ outcome: "success" });
    // Once recorded, the answer carries the outcome.
    const after = await g.runtime.approvals.decide(approval_id, { decision: "revoke" }, bob);
    expect(after).toMatchObject({ ok: false, why: "already_executed", outcome: { outcome: "success", operation_id: id } });
    expect(await g.store.getApproval(approval_id)).toMatchObject({ status: "approved", consumed_by: id });
    expect((await g.store.listApprovalEvents(approval_id)).map((e) => e.decision)).toEqual(["approve"]);
    expect(g.ledger.effects).toHaveLength(1);
  });

  it("a revoke before the claim still stops the call", async () => {
    const g = makeGate({ policy, store: await stores.fresh() });
    const id = op("op-first");
    const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), id);
    expect(await g.runtime.approvals.decide(approval_id, { decision: "revoke" }, bob)).toMatchObject({ ok: true, approval: { status: "revoked" } });
    expect(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id })).toMatchObject({ outcome: "terminal_failure" });
    expect(g.ledger.effects).toHaveLength(0);
  });

  it("revoke racing the call: exactly one wins, and the approval's status tells which (30 trials)", async () => {
    const store = await stores.fresh();
    const g = makeGate({ policy, store });
    const tally: Record<string, number> = {};
    for (let i = 0; i < 30; i++) {
      const id = op(`op-r${i}`);
      const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(100 + i), id);
      const [env, revoke] = await Promise.all([
        g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(100 + i), operation_id: id, approval_id }),
        g.runtime.approvals.decide(approval_id, { decision: "revoke" }, bob),
      ]);
      const effects = g.ledger.effectsOf(id).length;
      const status = (await store.getApproval(approval_id))?.status;
      if (revoke.ok) {
        // The revoke won: nothing ran.
        expect({ effects, outcome: env.outcome, status }).toEqual({ effects: 0, outcome: "terminal_failure", status: "revoked" });
      } else {
        expect(revoke).toMatchObject({ why: "already_executed" });
        expect({ effects, outcome: env.outcome, status }).toEqual({ effects: 1, outcome: "success", status: "approved" });
      }
      const k = revoke.ok ? "revoked" : "already_executed";
      tally[k] = (tally[k] ?? 0) + 1;
    }
    expect((tally["revoked"] ?? 0) + (tally["already_executed"] ?? 0)).toBe(30);
  });
});
