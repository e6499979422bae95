/**
 * The runtime's decision log, on both stores: every authorize decision is an
 * OPA-shaped entry with its input, result, path, policy version and evaluation
 * time; sensitive arguments are erased and listed; entries expire with retention.
 */
import { describe, expect, it } from "vitest";
import { loadToolsSource } from "../../codegen/toolsyaml/index.js";
import { manifest } from "../../generated/index.js";
import { opaDecisionEvent } from "../../src/runtime/index.js";
import { alice, approvedWrite, gate, loadGeneratedPolicy, reserve } from "./harness.js";
import { describeEachStore } from "../helpers/stores.js";

describeEachStore("decision log through the runtime", (stores) => {
  const open = async () => ({ store: await stores.fresh() });

  it("an authorize decision is logged with its input, result, path, policy version and evaluation time", async () => {
    const { store } = await open();
    const policy = await loadGeneratedPolicy();
    const g = gate(store, policy);
    const env = await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
    expect(env.outcome).toBe("success");
    const [d] = await store.listDecisions();
    expect(d).toMatchObject({
      tenant: "t_acme",
      user: "alice",
      tool: "get_account",
      decision: "allow",
      reason: "read_allowed",
      outcome: "success",
      path: "toolgate/authz/decision",
      policy_version: policy.version,
      result: { allow: true, reason: "read_allowed", requires_approval: false },
      erased: [],
      shadow: null,
    });
    expect(d!.input).toMatchObject({ tool: "get_account", effect: "read", args: { account_id: "acc_alice" }, principal: { tenant: "t_acme", user: "alice" }, policy_version: policy.version, now_ms: g.clock.now() });
    expect(d!.eval_ns).toBeGreaterThan(0);
    expect(await store.getDecision(d!.decision_id)).toEqual(d);
    const event = opaDecisionEvent(d!);
    expect(event).toMatchObject({
      decision_id: d!.decision_id,
      path: "toolgate/authz/decision",
      input: d!.input,
      result: d!.result,
      timestamp: new Date(g.clock.now()).toISOString(),
      bundles: { toolgate: { revision: policy.version } },
      metrics: { timer_rego_query_eval_ns: d!.eval_ns },
    });
    expect(event).not.toHaveProperty("erased");
  });

  it("the runtime's fail-closed paths are logged too: denials with the policy's reason, calls answered before the policy without input", async () => {
    const { store } = await open();
    const g = gate(store, await loadGeneratedPolicy());
    await g.runtime.call(alice, { tool: "close_account", args: { account_id: "acc_alice" }, operation_id: "op-c" });
    await g.runtime.call(alice, { tool: "nope", args: {} });
    const [unknown, denied] = await store.listDecisions();
    expect(denied).toMatchObject({ decision: "deny", reason: "destructive_denied", outcome_reason: "destructive_denied", result: { allow: false, reason: "destructive_denied" } });
    expect(denied!.input).toMatchObject({ tool: "close_account", effect: "destructive" });
    expect(unknown).toMatchObject({ decision: "not_evaluated", reason: "unknown_tool", input: null, result: null, path: null, eval_ns: null });
  });

  it("sensitive arguments are erased from the logged input and listed in erased; the approval keeps the exact arguments", async () => {
    const { store } = await open();
    const g = gate(store, await loadGeneratedPolicy());
    expect(manifest.tools["reserve_funds"]?.sensitive).toEqual(["memo"]);
    const done = await approvedWrite(g, alice, reserve(100, { memo: "rent for flat 3b, Jane Doe" }), "op-memo");
    expect(done.outcome).toBe("success");
    const log = await store.listDecisions({ operation_id: "op-memo" });
    expect(log.map((d) => d.decision)).toEqual(["allow", "approval_required"]);
    for (const d of log) {
      expect(d.erased).toEqual(["/input/args/memo"]);
      expect(d.input!["args"]).toEqual({ account_id: "acc_alice", amount: 100, currency: "EUR", recipient: "acc_bob" });
      expect(JSON.stringify(d)).not.toContain("Jane Doe");
      expect(opaDecisionEvent(d)["erased"]).toEqual(["/input/args/memo"]);
    }
    // A call without the field erases nothing.
    await approvedWrite(g, alice, reserve(100), "op-plain");
    expect((await store.listDecisions({ operation_id: "op-plain" }))[0]!.erased).toEqual([]);
    // The approval keeps the exact arguments the human signs.
    const approvalId = (log[0]!.input!["approval"] as { id: string }).id;
    const approval = await store.getApproval(approvalId);
    expect(approval?.args["memo"]).toBe("rent for flat 3b, Jane Doe");
  });

  it("entries expire after the runtime's decision-log retention and are purged with the other expired state", async () => {
    const { store } = await open();
    const g = gate(store, await loadGeneratedPolicy(), { decisionLogRetentionMs: 60_000 });
    await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
    const [d] = await store.listDecisions();
    expect(d!.expires_at_ms).toBe(d!.at_ms + 60_000);
    expect(await store.purgeExpired(d!.at_ms + 59_999)).toBe(0);
    expect(await store.purgeExpired(d!.at_ms + 60_000)).toBe(1);
    expect(await store.listDecisions()).toEqual([]);
  });
});

describe("tools.yaml sensitive:", () => {
  it("is carried into the manifest", () => {
    const src = `version: 1
tools:
  pay:
    description: Pay.
    effect: read
    input: { type: object, additionalProperties: false, properties: { card: { type: string }, amount: { type: integer } } }
    output: { type: object }
    sensitive: [card]
`;
    const { loaded, errors } = loadToolsSource(src, "tools.yaml");
    expect(errors).toEqual([]);
    expect(loaded?.manifest.tools["pay"]?.sensitive).toEqual(["card"]);
  });
});
