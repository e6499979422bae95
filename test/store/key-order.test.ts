/**
 * Both stores give back JSON in the order it was written: an approval's preview in tools.yaml's
 * declared `approval.preview` order, and a replayed envelope (its value included) with the keys
 * of the recorded one in their order. PostgreSQL's jsonb would reorder them (shorter keys first).
 */
import { beforeAll, expect, it } from "vitest";
import { manifest } from "../../generated/index.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { alice, bob, loadShippedPolicy, makeGate, reserveArgs } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";

let policy: PolicyEngine;
beforeAll(async () => {
  policy = await loadShippedPolicy();
});

const declaredPreview = manifest.tools.reserve_funds?.approval?.preview ?? [];

describeEachStore("JSON key order", (stores) => {
  it("the declared preview order is not the order jsonb would give (the test can tell them apart)", () => {
    const jsonbOrder = [...declaredPreview].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
    expect(declaredPreview).not.toEqual(jsonbOrder);
  });

  it("an approval's preview comes back in the declared approval.preview order, in get and in list", async () => {
    const gate = makeGate({ policy, store: await stores.fresh() });
    const asked = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: "op-order-1" });
    if (asked.outcome !== "terminal_failure" || asked.approval_id === undefined) throw new Error(JSON.stringify(asked));
    const detail = await gate.runtime.approvals.get(asked.approval_id);
    expect(Object.keys(detail?.preview ?? {})).toEqual(declaredPreview);
    const page = await gate.runtime.approvals.list({ tenant: alice.tenant, status: "pending" });
    expect(Object.keys(page.approvals[0]?.preview ?? {})).toEqual(declaredPreview);
  });

  it("a replayed envelope has the recorded envelope's keys in the same order, its value's keys included", async () => {
    const gate = makeGate({ policy, store: await stores.fresh() });
    const asked = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(500), operation_id: "op-order-2" });
    if (asked.outcome !== "terminal_failure" || asked.approval_id === undefined) throw new Error(JSON.stringify(asked));
    const decided = await gate.runtime.approvals.decide(asked.approval_id, { decision: "approve" }, bob);
    expect(decided.ok).toBe(true);
    const request = { tool: "reserve_funds", args: reserveArgs(500), operation_id: "op-order-2", approval_id: asked.approval_id };
    const first = await gate.runtime.call(alice, request);
    const again = await gate.runtime.call(alice, request);
    expect(first.outcome).toBe("success");
    expect(again).toMatchObject({ outcome: "success", replayed: true });
    expect(Object.keys(again)).toEqual(Object.keys(first));
    if (first.outcome !== "success" || again.outcome !== "success") return;
    expect(Object.keys(first.value as object)).toEqual(["reservation_id", "state"]);
    expect(JSON.stringify(again.value)).toBe(JSON.stringify(first.value));
    // The replay is the recorded text, key for key: only `replayed` differs.
    expect(JSON.stringify({ ...again, replayed: false })).toBe(JSON.stringify(first));
  });
});
