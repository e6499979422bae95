/**
 * The policy's reason reaches the model. The shipped policy runs
 * through createRuntime (compiled by the project's compiler, loaded by the SDK);
 * a small policy with its own ask reason checks approval_required carries it.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";
import { alice, loadShippedPolicy, makeGate, reserveArgs } from "../runtime/harness.js";

describe("the runtime returns the policy's reason in its envelopes", () => {
  it("policy_denied carries the shipped policy's reason (limit, role), destructive_denied the policy's answer too", async () => {
    const g = makeGate({ policy: await loadShippedPolicy() });
    const destructive = await g.runtime.call(alice, { tool: "close_account", args: { account_id: "acc_bob" }, operation_id: "op-d" });
    expect(destructive).toMatchObject({ outcome: "terminal_failure", reason: "destructive_denied" });
    expect(destructive.outcome === "success" ? "" : destructive.message).toContain("here: deny, destructive_denied");
    const cases = [
      { ctx: alice, call: { tool: "reserve_funds", args: reserveArgs(1_000_001), operation_id: "op-big" }, reason: "limit_exceeded" },
      { ctx: { ...alice, roles: ["viewer"] }, call: { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-v" }, reason: "role_not_permitted" },
    ];
    for (const c of cases) {
      expect(await g.runtime.call(c.ctx, c.call)).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied", message: `policy denied ${c.call.tool}: ${c.reason}` });
    }
    expect((await g.store.listDecisions()).map((d) => d.reason).sort()).toEqual(["destructive_denied", ...cases.map((c) => c.reason)].sort());
  }, 120_000);

  it("approval_required carries the shipped policy's reason", async () => {
    const g = makeGate({ policy: await loadShippedPolicy() });
    const e = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-a" });
    expect(e).toMatchObject({ outcome: "terminal_failure", reason: "approval_required", message: expect.stringContaining("(policy: approval_required)") });
    expect((await g.store.listDecisions())[0]).toMatchObject({ decision: "approval_required", reason: "approval_required" });
  }, 120_000);

  it("approval_required carries a policy's own ask reason", async () => {
    const source = [
      "package toolgate.authz",
      'decision := {"allow": false, "reason": "needs_manager", "requires_approval": true} if input.args.amount > 100',
      'default decision := {"allow": true, "reason": "small", "requires_approval": false}',
    ].join("\n");
    const out = compilePolicy({ modules: [{ file: "ask.rego", source }], entrypoints: ["toolgate/authz/decision"] });
    expect(out.errors).toEqual([]);
    const g = makeGate({ policy: await loadOpaWasmEngine({ wasm: out.wasm as Uint8Array, entrypoint: "toolgate/authz/decision" }) });
    const e = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: "op-m" });
    expect(e).toMatchObject({ outcome: "terminal_failure", reason: "approval_required", message: expect.stringContaining("(policy: needs_manager)") });
  }, 120_000);
});
