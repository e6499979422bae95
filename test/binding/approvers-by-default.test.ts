/**
 * Who may decide by default, on both stores: a tool without approval.approver_roles needs a
 * role from tools.yaml approvals.default_approver_roles; with neither, nobody may decide.
 * Self-approval compares normalized identities, and identities with control characters are
 * refused with a typed answer before anything is written.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, expect, it } from "vitest";
import type { TrustedContext } from "../../src/generated-runtime.js";
import type { Manifest } from "../../src/manifest.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import type { ApproverContext } from "../../src/runtime/index.js";
import { manifest } from "../../generated/manifest.js";
import { alice, bob, loadShippedPolicy, makeGate, reserveArgs } from "../runtime/harness.js";
import type { Gate } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";

const op = (s: string) => `${s}-${randomUUID().slice(0, 8)}`;

const withApprovals = (approvals: Manifest["approvals"]): Manifest => {
  const { approvals: _shipped, ...rest } = manifest;
  return approvals === undefined ? rest : { ...rest, approvals };
};

async function ask(g: Gate, ctx: TrustedContext = alice): Promise<string> {
  const e = await g.runtime.call(ctx, { tool: "reserve_funds", args: reserveArgs(), operation_id: op("op-ask") });
  if (e.outcome !== "terminal_failure" || e.approval_id === undefined) throw new Error(`expected approval_required: ${JSON.stringify(e)}`);
  return e.approval_id;
}

describeEachStore("approvers by default", (stores) => {
  let policy: PolicyEngine;
  beforeAll(async () => {
    policy = await loadShippedPolicy();
  });

  it("the shipped tools.yaml names default approver roles, and reserve_funds declares none of its own", () => {
    expect(manifest.approvals?.default_approver_roles).toEqual(["approver"]);
    expect(manifest.tools["reserve_funds"]?.approval?.approver_roles).toEqual([]);
  });

  it("without approver_roles on the tool, an approver needs one of approvals.default_approver_roles: a viewer, an agent or a user without roles cannot approve", async () => {
    const g = makeGate({ policy, store: await stores.fresh() });
    const approval = await ask(g);
    for (const roles of [[], ["agent"], ["viewer"]]) {
      const who: ApproverContext = { tenant: alice.tenant, user: "vera", roles };
      for (const decision of ["approve", "reject", "revoke"] as const) {
        expect(await g.runtime.approvals.decide(approval, { decision }, who)).toMatchObject({ ok: false, why: "approver_role_required" });
      }
    }
    expect(await g.store.getApproval(approval)).toMatchObject({ status: "pending" });
    expect(await g.store.listApprovalEvents(approval)).toEqual([]);
    expect(await g.runtime.approvals.decide(approval, { decision: "approve" }, bob)).toMatchObject({ ok: true });
  });

  it("with neither approver_roles nor approvals.default_approver_roles, deciding is refused with a typed answer, never open to every user", async () => {
    for (const approvals of [undefined, { default_approver_roles: [], identity_case: "sensitive" as const }]) {
      const g = makeGate({ policy, store: await stores.fresh(), manifest: withApprovals(approvals) });
      const approval = await ask(g);
      for (const who of [bob, { tenant: alice.tenant, user: "root", roles: ["admin", "approver"] }]) {
        const d = await g.runtime.approvals.decide(approval, { decision: "approve" }, who);
        expect(d).toMatchObject({ ok: false, why: "approver_roles_unconfigured", message: expect.stringContaining("approvals.default_approver_roles") });
      }
      expect(await g.store.getApproval(approval)).toMatchObject({ status: "pending" });
      // The requester may still withdraw their own request.
      expect(await g.runtime.approvals.decide(approval, { decision: "revoke" }, { tenant: alice.tenant, user: alice.user, roles: [] })).toMatchObject({ ok: true });
    }
  });

  it("self-approval compares normalized identities: other case forms of the requester's id are the requester when identities are case-insensitive, other spacing and Unicode forms always", async () => {
    const requester: TrustedContext = { ...alice, user: "José" };
    const sensitive = makeGate({ policy, store: await stores.fresh() });
    for (const user of [" José", "José ", "Jose\u0301", "\u00a0José"]) {
      const approval = await ask(sensitive, requester);
      expect(await sensitive.runtime.approvals.decide(approval, { decision: "approve" }, { tenant: alice.tenant, user, roles: ["approver"] }), JSON.stringify(user)).toMatchObject({ ok: false, why: "self_approval" });
    }
    // Case differs: another user where the identity provider tells case apart (the default) ...
    expect(await sensitive.runtime.approvals.decide(await ask(sensitive, requester), { decision: "approve" }, { tenant: alice.tenant, user: "JOSÉ", roles: ["approver"] })).toMatchObject({ ok: true });
    // ... and the requester where tools.yaml says it does not.
    const insensitive = makeGate({ policy, store: await stores.fresh(), manifest: withApprovals({ default_approver_roles: ["approver"], identity_case: "insensitive" }) });
    for (const user of ["JOSÉ", " jose\u0301", "José"]) {
      const approval = await ask(insensitive, requester);
      expect(await insensitive.runtime.approvals.decide(approval, { decision: "approve" }, { tenant: alice.tenant, user, roles: ["approver"] }), user).toMatchObject({ ok: false, why: "self_approval" });
    }
    expect(sensitive.ledger.effects).toHaveLength(0);
  });

  it("an approver identity with a control character (NUL included) is refused with invalid_approver on every store, and nothing is written", async () => {
    const g = makeGate({ policy, store: await stores.fresh() });
    const approval = await ask(g);
    const bad: ApproverContext[] = [
      { ...bob, user: "alice\u0000" },
      { ...bob, user: "bob\u0007" },
      { ...bob, user: "bob\u0085" },
      { ...bob, user: "bob\ud800" },
      { ...bob, tenant: `${bob.tenant}\u0000` },
      { ...bob, roles: ["approver\u0000"] },
    ];
    for (const who of bad) {
      for (const decision of ["approve", "reject", "revoke"] as const) {
        expect(await g.runtime.approvals.decide(approval, { decision }, who), JSON.stringify(who)).toMatchObject({ ok: false, why: "invalid_approver" });
      }
    }
    expect(await g.store.listApprovalEvents(approval)).toEqual([]);
    expect(await g.runtime.approvals.decide(approval, { decision: "reject", reason: "no\u0000" }, bob)).toMatchObject({ ok: false, why: "invalid_decision" });
    expect(await g.runtime.approvals.decide(`${approval}\u0000`, { decision: "approve" }, bob)).toMatchObject({ ok: false, why: "not_found" });
    expect(await g.runtime.approvals.get(`${approval}\u0000`)).toBeNull();
    expect(await g.runtime.approvals.resume(`${approval}\u0000`)).toMatchObject({ ok: false, why: "not_found" });
    expect(await g.store.getApproval(approval)).toMatchObject({ status: "pending" });
  });
});
