/**
 * The adapters' check of a model-supplied approval_id does not tell whether an id exists in
 * another tenant: another tenant's approval id and one that exists nowhere get the same answer,
 * as at the gate (both stores). An error of the adapter's own lookups never reaches the model.
 */
import { describe, expect, it } from "vitest";
import { gatedCalls } from "../../src/adapters/gated-calls.js";
import { createLangChainTools } from "../../src/adapters/langchain.js";
import type { Envelope } from "../../src/runtime/envelope.js";
import { alice, loadShippedPolicy, makeGate, mallory, reserveArgs } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";

/** The answer with the presented id written as ID, so two answers compare by what they say. */
const withoutId = (env: Envelope, id: string): string => JSON.stringify(env).replaceAll(id, "ID");

describeEachStore("adapter approval ids", (stores) => {
  it("another tenant's approval id presented through an adapter is answered as an id that does not exist", async () => {
    const gate = makeGate({ policy: await loadShippedPolicy(), store: await stores.fresh() });
    const first = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-victim" });
    expect(first).toMatchObject({ outcome: "terminal_failure", reason: "approval_required" });
    const victimId = first.outcome === "terminal_failure" ? (first.approval_id ?? "") : "";
    const missingId = "apr_00000000-0000-4000-8000-000000000000";
    expect(victimId).toMatch(/^apr_/);

    const attacker = gatedCalls(gate.runtime, { context: mallory });
    const tool = gate.runtime.manifest.tools["reserve_funds"]!;
    const args = { ...reserveArgs(), account_id: "acc_mallory", operation_id: "op-probe" };
    const existing = await attacker.call(tool, { ...args, approval_id: victimId });
    const missing = await attacker.call(tool, { ...args, approval_id: missingId });
    expect(existing).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied" });
    expect(withoutId(existing, victimId)).toBe(withoutId(missing, missingId));
    expect(gate.ledger.effects).toHaveLength(0);
  });
});

describe("adapter store errors", () => {
  it("an error thrown by the adapter's own approval lookup reaches onError; the model's answer is a fixed retryable envelope, never the error's text", async () => {
    const DRIVER_TEXT = 'password authentication failed for user "toolgate_prod"';
    const gate = makeGate({ policy: await loadShippedPolicy() });
    const broken = new Proxy(gate.runtime, {
      get(target, key, receiver) {
        if (key === "approvals") return { ...target.approvals, list: () => Promise.reject(new Error(DRIVER_TEXT)) };
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const logged: unknown[] = [];
    const calls = gatedCalls(broken, { context: alice, onError: (e) => logged.push(e) });
    const tool = gate.runtime.manifest.tools["reserve_funds"]!;
    const env = await calls.call(tool, { ...reserveArgs(), operation_id: "op-store-down" });
    expect(env).toMatchObject({ outcome: "retryable_failure", reason: "retryable_error" });
    expect(JSON.stringify(env)).not.toContain("toolgate_prod");
    expect(logged.map((e) => (e instanceof Error ? e.message : String(e)))).toEqual([DRIVER_TEXT]);
    expect(gate.ledger.effects).toHaveLength(0);
    await gate.store.close();
  });
});

describe("LangChain pausing tools and store errors", () => {
  it("a pausing LangChain tool answers a failed approval lookup with the fixed retryable envelope, never the error's text", async () => {
    const DRIVER_TEXT = 'password authentication failed for user "toolgate_prod"';
    const gate = makeGate({ policy: await loadShippedPolicy() });
    const broken = new Proxy(gate.runtime, {
      get(target, key, receiver) {
        if (key === "approvals") return { ...target.approvals, list: () => Promise.reject(new Error(DRIVER_TEXT)) };
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const logged: unknown[] = [];
    const { tools } = await createLangChainTools(broken, { context: alice, pause: "interrupt", onError: (e) => logged.push(e) });
    const reserve = tools.find((t) => t.name === "reserve_funds")!;
    const answer = String(await reserve.invoke({ ...reserveArgs(), operation_id: "op-lc-store-down" }));
    expect(answer).not.toContain("toolgate_prod");
    expect(JSON.parse(answer)).toMatchObject({ outcome: "retryable_failure", reason: "retryable_error" });
    expect(logged.length).toBeGreaterThan(0);
    expect(gate.ledger.effects).toHaveLength(0);
    await gate.store.close();
  });
});
