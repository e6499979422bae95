/**
 * Separation of duties: decide() takes the approver's trusted context; the approver must be
 * in the request's tenant, non-empty, not the requester (unless approval.self_approve), and
 * hold one of approval.approver_roles when the tool declares them. Both stores.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, expect, it } from "vitest";
import type { PolicyEngine, PolicyInput } from "../../src/policy/engine.js";
import type { ApproverContext } from "../../src/runtime/index.js";
import { alice, bob, loadShippedPolicy, makeGate, reserveArgs, withTool } from "../runtime/harness.js";
import type { Gate } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";

const op = (s: string) => `${s}-${randomUUID().slice(0, 8)}`;

describeEachStore("separation of duties", (stores) => {
  let policy: PolicyEngine;
  beforeAll(async () => {
    policy = await loadShippedPolicy();
  });

  async function ask(g: Gate, operation_id: string): Promise<string> {
    const e = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id });
    if (e.outcome !== "terminal_failure" || e.approval_id === undefined) throw new Error(`expected approval_required: ${JSON.stringify(e)}`);
    return e.approval_id;
  }

  it("the requester cannot approve their own call", async () => {
    const g = makeGate({ policy, store: await stores.fresh() });
    const id = op("op-self");
    const approval = await ask(g, id);
    const self: ApproverContext = { tenant: alice.tenant, user: alice.user, roles: ["approver"] };
    expect(await g.runtime.approvals.decide(approval, { decision: "approve" }, self)).toMatchObject({ ok: false, why: "self_approval" });
    expect(await g.runtime.approvals.decide(approval, { decision: "edit", edited_args: reserveArgs(10) }, self)).toMatchObject({ ok: false, why: "self_approval" });
    expect((await g.store.getApproval(approval))?.status).toBe("pending");
    const e = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id: approval });
    expect(e).toMatchObject({ reason: "approval_required" });
    expect(g.ledger.effects).toHaveLength(0);
    // Withdrawing one's own request is allowed.
    expect(await g.runtime.approvals.decide(approval, { decision: "revoke" }, self)).toMatchObject({ ok: true });
  });

  it("an approver without a user, or with a malformed context, is refused", async () => {
    const g = makeGate({ policy, store: await stores.fresh() });
    const approval = await ask(g, op("op-empty"));
    for (const who of [
      { tenant: alice.tenant, user: "", roles: [] },
      { tenant: alice.tenant, user: "   ", roles: ["approver"] },
      { tenant: alice.tenant, user: "bob", roles: "approver" },
      null,
    ]) {
      expect(await g.runtime.approvals.decide(approval, { decision: "approve" }, who as unknown as ApproverContext)).toMatchObject({ ok: false, why: "invalid_approver" });
    }
    expect(await g.store.listApprovalEvents(approval)).toEqual([]);
  });

  it("an approver of another tenant cannot decide (the approval is not found there)", async () => {
    const g = makeGate({ policy, store: await stores.fresh() });
    const approval = await ask(g, op("op-tenant"));
    const outsider: ApproverContext = { tenant: "t_evil", user: "bob", roles: ["approver"] };
    expect(await g.runtime.approvals.decide(approval, { decision: "approve" }, outsider)).toMatchObject({ ok: false, why: "not_found" });
    expect((await g.store.getApproval(approval))?.status).toBe("pending");
  });

  it("approval.self_approve: true lets the requester approve their own call", async () => {
    const tool = withTool("reserve_funds", {}).tools["reserve_funds"]!;
    const g = makeGate({ policy, store: await stores.fresh(), manifest: withTool("reserve_funds", { approval: { ...tool.approval!, self_approve: true } }) });
    const id = op("op-selfok");
    const approval = await ask(g, id);
    expect(await g.runtime.approvals.decide(approval, { decision: "approve" }, { tenant: alice.tenant, user: alice.user, roles: [] })).toMatchObject({ ok: true });
    expect(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id: approval })).toMatchObject({ outcome: "success" });
  });

  it("approval.approver_roles restricts who may decide", async () => {
    const tool = withTool("reserve_funds", {}).tools["reserve_funds"]!;
    const g = makeGate({ policy, store: await stores.fresh(), manifest: withTool("reserve_funds", { approval: { ...tool.approval!, approver_roles: ["treasury"] } }) });
    const approval = await ask(g, op("op-roles"));
    expect(await g.runtime.approvals.decide(approval, { decision: "approve" }, bob)).toMatchObject({ ok: false, why: "approver_role_required", message: expect.stringContaining("treasury") });
    expect(await g.runtime.approvals.decide(approval, { decision: "reject" }, bob)).toMatchObject({ ok: false, why: "approver_role_required" });
    const carol: ApproverContext = { tenant: alice.tenant, user: "carol", roles: ["viewer", "treasury"] };
    expect(await g.runtime.approvals.decide(approval, { decision: "approve" }, carol)).toMatchObject({ ok: true });
    expect(await g.store.listApprovalEvents(approval)).toMatchObject([{ approver: "carol", approver_roles: ["viewer", "treasury"] }]);
  });

  it("an invalid decision value is a typed { ok: false } answer, not a store error", async () => {
    const g = makeGate({ policy, store: await stores.fresh() });
    const approval = await ask(g, op("op-bad"));
    for (const decision of ["approve; DROP TABLE approvals", "APPROVE", "", 1, null, undefined]) {
      const d = await g.runtime.approvals.decide(approval, { decision } as never, bob);
      expect(d).toMatchObject({ ok: false, why: "invalid_decision", message: expect.stringContaining("approve, edit, reject, revoke") });
    }
    expect(await g.runtime.approvals.decide(approval, { decision: "reject", reason: 42 } as never, bob)).toMatchObject({ ok: false, why: "invalid_decision" });
    expect(await g.store.listApprovalEvents(approval)).toEqual([]);
  });

  it("the policy input carries requested_by and the approver with roles", async () => {
    const seen: PolicyInput[] = [];
    const spy: PolicyEngine = { version: policy.version, evaluate: (input) => (seen.push(input), policy.evaluate(input)) };
    const g = makeGate({ policy: spy, store: await stores.fresh() });
    const id = op("op-input");
    const approval = await ask(g, id);
    expect(await g.runtime.approvals.decide(approval, { decision: "approve" }, bob)).toMatchObject({ ok: true });
    await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id: approval });
    expect(seen.at(-1)?.approval).toMatchObject({ requested_by: "alice", approver: "bob", approver_roles: ["approver"], decision: "approve" });
  });
});
