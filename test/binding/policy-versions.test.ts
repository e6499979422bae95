/**
 * Policy versions and approvals: the code hash and the data hash are recorded apart (on the
 * approval and on each decision) and both reach the policy; the shipped policy voids an
 * approval on a code change only; deciding under other versions than the request's, or than
 * the gates run now (recorded in the store), warns.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, expect, it } from "vitest";
import type { PolicyEngine, PolicyInput } from "../../src/policy/engine.js";
import { policyCodeVersion, policyDataVersion, versionsOf } from "../../src/policy/version.js";
import { manifest, validators } from "../../generated/index.js";
import { createApprovals } from "../../src/approvals/index.js";
import { alice, bob, compileShippedPolicyWasm, ENTRYPOINT, loadShippedPolicy, makeGate, reserveArgs, shippedData, until } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";

const op = (s: string) => `${s}-${randomUUID().slice(0, 8)}`;

describeEachStore("policy versions and approvals", (stores) => {
  let policy: PolicyEngine;
  let tighter: PolicyEngine;
  let looser: PolicyEngine;
  beforeAll(async () => {
    policy = await loadShippedPolicy();
    const data = shippedData() as { toolgate: { config: Record<string, unknown> } };
    const withLimit = (max: number) => ({ toolgate: { config: { ...data.toolgate.config, limits: { reserve_funds: { amount: { max } } } } } });
    tighter = await loadShippedPolicy(withLimit(500));
    looser = await loadShippedPolicy(withLimit(2_000_000));
  });

  it("the code hash and the data hash are recorded separately and both reach the policy", async () => {
    const wasm = await compileShippedPolicyWasm();
    expect(versionsOf(policy)).toEqual({ version: policy.version, code_version: policyCodeVersion(wasm), data_version: policyDataVersion(shippedData()) });
    expect(tighter.code_version).toBe(policy.code_version);
    expect(tighter.data_version).not.toBe(policy.data_version);
    const seen: PolicyInput[] = [];
    const spy: PolicyEngine = { ...versionsOf(policy), evaluate: (i) => (seen.push(i), policy.evaluate(i)) };
    const g = makeGate({ policy: spy, store: await stores.fresh() });
    const id = op("op-v");
    const ask = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id });
    const approvalId = ask.outcome === "terminal_failure" ? (ask.approval_id ?? "") : "";
    expect(await g.store.getApproval(approvalId)).toMatchObject({ policy_code_version: policy.code_version, policy_data_version: policy.data_version });
    await g.runtime.approvals.decide(approvalId, { decision: "approve" }, bob);
    expect(await g.store.listApprovalEvents(approvalId)).toMatchObject([{ policy_code_version: policy.code_version, policy_data_version: policy.data_version }]);
    await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id: approvalId });
    expect(seen.at(-1)).toMatchObject({
      policy_code_version: policy.code_version,
      policy_data_version: policy.data_version,
      approval: { policy_code_version: policy.code_version, policy_data_version: policy.data_version },
    });
  });

  it("a data-only policy change does not void outstanding approvals, and tightened data still denies at commit time", async () => {
    const store = await stores.fresh();
    const g = makeGate({ policy, store });
    const ids = [op("op-d1"), op("op-d2")];
    const approvals: string[] = [];
    for (const id of ids) {
      const ask = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: id });
      const a = ask.outcome === "terminal_failure" ? (ask.approval_id ?? "") : "";
      await g.runtime.approvals.decide(a, { decision: "approve" }, bob);
      approvals.push(a);
    }
    const loose = makeGate({ policy: looser, store, ledger: g.ledger, clock: g.clock });
    expect(await loose.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: ids[0]!, approval_id: approvals[0]! })).toMatchObject({ outcome: "success" });
    const tight = makeGate({ policy: tighter, store, ledger: g.ledger, clock: g.clock });
    expect(await tight.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: ids[1]!, approval_id: approvals[1]! })).toMatchObject({ reason: "policy_denied", message: expect.stringContaining("limit_exceeded") });
    expect(g.ledger.effects).toHaveLength(1);
  });

  it("a policy code change voids outstanding approvals (approval_policy_changed)", async () => {
    const store = await stores.fresh();
    const g = makeGate({ policy, store });
    const id = op("op-c");
    const ask = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id });
    const a = ask.outcome === "terminal_failure" ? (ask.approval_id ?? "") : "";
    await g.runtime.approvals.decide(a, { decision: "approve" }, bob);
    const newCode: PolicyEngine = { ...versionsOf(policy), version: "sha256:new", code_version: "sha256:new-code", evaluate: (i) => policy.evaluate(i) };
    const g2 = makeGate({ policy: newCode, store, ledger: g.ledger, clock: g.clock });
    expect(await g2.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id: a })).toMatchObject({ reason: "policy_denied", message: expect.stringContaining("approval_policy_changed") });
    expect(g.ledger.effects).toHaveLength(0);
  });

  it("deciding under another policy version than the request's answers with a warning the approver sees", async () => {
    const store = await stores.fresh();
    const g = makeGate({ policy, store });
    const ask = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: op("op-w") });
    const a = ask.outcome === "terminal_failure" ? (ask.approval_id ?? "") : "";
    const oldCode: PolicyEngine = { ...versionsOf(policy), version: "sha256:old", code_version: "sha256:old-code", evaluate: (i) => policy.evaluate(i) };
    const approver = makeGate({ policy: oldCode, store, clock: g.clock });
    const d = await approver.runtime.approvals.decide(a, { decision: "approve" }, bob);
    // The gates (g) run `policy`, so the old-code approver is also told it is not deciding under the gates' code.
    expect(d).toMatchObject({ ok: true, warnings: [expect.stringMatching(/^policy_code_changed: .*will not authorise/), expect.stringMatching(/^policy_code_not_current: /)] });
    const dataOnly = makeGate({ policy: tighter, store, clock: g.clock });
    const ask2 = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(7), operation_id: op("op-w2") });
    const a2 = ask2.outcome === "terminal_failure" ? (ask2.approval_id ?? "") : "";
    expect(await dataOnly.runtime.approvals.decide(a2, { decision: "approve" }, bob)).toMatchObject({
      ok: true,
      warnings: [expect.stringMatching(/^policy_data_changed: /), expect.stringMatching(/^policy_data_not_current: /)],
    });
    const ask3 = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(8), operation_id: op("op-w3") });
    const a3 = ask3.outcome === "terminal_failure" ? (ask3.approval_id ?? "") : "";
    expect(await g.runtime.approvals.decide(a3, { decision: "approve" }, bob)).toMatchObject({ ok: true, warnings: [] });
  });

  it("decide under a policy version other than the gates' current one warns", async () => {
    const store = await stores.fresh();
    const g = makeGate({ policy, store });
    const id = op("op-cur");
    const ask = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id });
    const a = ask.outcome === "terminal_failure" ? (ask.approval_id ?? "") : "";
    // The gate is hot-reloaded to new policy code after the request; an approver service still runs the old one.
    const newCode: PolicyEngine = { ...versionsOf(policy), version: "sha256:new", code_version: "sha256:new-code", evaluate: (i) => policy.evaluate(i) };
    g.runtime.setPolicy(newCode);
    await until(async () => (await store.getCurrentPolicy(ENTRYPOINT))?.code_version === "sha256:new-code");
    expect(await store.getCurrentPolicy(ENTRYPOINT)).toMatchObject({ version: "sha256:new", code_version: "sha256:new-code", data_version: policy.data_version });
    const approver = createApprovals({ store, manifest, validators, policy, clock: g.clock });
    const d = await approver.decide(a, { decision: "approve" }, bob);
    // Requested and decided under the same (old) versions: only the store knows the gates moved on.
    expect(d).toMatchObject({ ok: true, warnings: [expect.stringMatching(/^policy_code_not_current: .*sha256:new-code.*will not authorise/)] });
    // The warning is true: the gates refuse that approval.
    expect(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id: a })).toMatchObject({
      reason: "policy_denied",
      message: expect.stringContaining("approval_policy_changed"),
    });
    expect(g.ledger.effects).toHaveLength(0);

    // Another gate's first call records its data version; an approver on other data is told so.
    const tight = makeGate({ policy: tighter, store, ledger: g.ledger, clock: g.clock });
    const ask2 = await tight.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(7), operation_id: op("op-cur2") });
    const a2 = ask2.outcome === "terminal_failure" ? (ask2.approval_id ?? "") : "";
    expect(await store.getCurrentPolicy(ENTRYPOINT)).toMatchObject({ code_version: tighter.code_version, data_version: tighter.data_version });
    const looseApprover = createApprovals({ store, manifest, validators, policy: looser, clock: g.clock });
    expect(await looseApprover.decide(a2, { decision: "approve" }, bob)).toMatchObject({
      ok: true,
      warnings: [expect.stringMatching(/^policy_data_changed: /), expect.stringMatching(/^policy_data_not_current: .*checked again/)],
    });
    // An approver that runs exactly the gates' policy gets no warning.
    const ask3 = await tight.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(8), operation_id: op("op-cur3") });
    const a3 = ask3.outcome === "terminal_failure" ? (ask3.approval_id ?? "") : "";
    expect(await createApprovals({ store, manifest, validators, policy: tighter, clock: g.clock }).decide(a3, { decision: "approve" }, bob)).toMatchObject({ ok: true, warnings: [] });
  });
});
