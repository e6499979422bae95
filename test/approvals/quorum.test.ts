/**
 * Quorum approvals on both stores: a call that needs N distinct approvers (optionally covering
 * named roles) runs only once the quorum is complete; a rejection ends it, a revoke drops it,
 * an edit starts a new one; concurrent approvers, the host's resume and the agent's retry
 * keep exactly one effect.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { quorumOf, quorumState } from "../../src/approvals/quorum.js";
import { decisionText } from "../../src/cli/approvals-output.js";
import type { Manifest } from "../../src/manifest.js";
import { toDecision } from "../../src/policy/engine.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import type { ApproverContext } from "../../src/approvals/approver.js";
import { createInboxApp, createTokenVerifier, issueApproverToken } from "../../src/server/index.js";
import type { Store } from "../../src/store/store.js";
import { manifest } from "../../generated/index.js";
import { alice, loadShippedPolicy, makeGate, reserveArgs, withTool } from "../runtime/harness.js";
import type { Gate } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";

const SECRET = "q".repeat(40);
const base = manifest.tools["reserve_funds"]!.approval!;
const twoOfAny: Manifest = withTool("reserve_funds", { approval: { ...base, quorum: 2 } });
const twoWithTreasury: Manifest = withTool("reserve_funds", { approval: { ...base, quorum: 2, quorum_roles: ["treasury"] } });
const who = (user: string, roles: string[] = ["approver"]): ApproverContext => ({ tenant: "t_acme", user, roles });
const bob = who("bob");
const carol = who("carol");
const dave = who("dave");
const tina = who("tina", ["approver", "treasury"]);

let policy: PolicyEngine;
beforeAll(async () => {
  policy = await loadShippedPolicy();
});

/** The shipped policy, plus a per-call demand above an amount, as a policy's decision object would carry it. */
const demanding = (demand: { quorum?: number; quorum_roles?: string[]; signed?: boolean }, above = 5_000): PolicyEngine => ({
  version: policy.version,
  ...(policy.code_version === undefined ? {} : { code_version: policy.code_version }),
  ...(policy.data_version === undefined ? {} : { data_version: policy.data_version }),
  async evaluate(input, options) {
    const d = await policy.evaluate(input, options);
    return d.requires_approval && Number(input.args["amount"]) > above ? { ...d, approval_demand: demand } : d;
  },
});

describe("the policy's approval demand in its decision object", () => {
  it("approvals_required, approval_roles and signed_approval are read; a malformed one denies", () => {
    const ask = { allow: false, requires_approval: true, reason: "large_amount" };
    expect(toDecision({ ...ask, approvals_required: 2, approval_roles: ["treasury"], signed_approval: true })).toEqual({
      ...ask,
      approval_demand: { quorum: 2, quorum_roles: ["treasury"], signed: true },
    });
    expect(toDecision(ask)).toEqual(ask);
    for (const bad of [{ approvals_required: 0 }, { approvals_required: 1.5 }, { approvals_required: "2" }, { approval_roles: "treasury" }, { approval_roles: [""] }, { signed_approval: "yes" }]) {
      expect(toDecision({ ...ask, ...bad }), JSON.stringify(bad)).toMatchObject({ allow: false, requires_approval: false, reason: "policy_malformed_decision" });
    }
  });
});

describeEachStore("quorum approvals", (stores) => {
  async function setup(m: Manifest = twoOfAny, engine: PolicyEngine = policy): Promise<{ gate: Gate; store: Store }> {
    const store = await stores.fresh();
    return { gate: makeGate({ policy: engine, store, manifest: m }), store };
  }
  async function pending(gate: Gate, op: string, amount = 1_000): Promise<string> {
    const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(amount), operation_id: op });
    if (env.outcome !== "terminal_failure" || env.approval_id === undefined) throw new Error(JSON.stringify(env));
    return env.approval_id;
  }
  const retry = (gate: Gate, op: string, id: string, amount = 1_000) => gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(amount), operation_id: op, approval_id: id });

  it("a call that needs a quorum of 2 runs only when two distinct approvers approved, once", async () => {
    const { gate, store } = await setup();
    const id = await pending(gate, "op-q2");
    const first = await gate.runtime.approvals.decide(id, { decision: "approve" }, bob);
    expect(first).toMatchObject({ ok: true, quorum: { have: 1, need: 2, complete: false } });
    expect(decisionText(id, first)).toBe(`${id}: approval recorded, 1 of 2 approvals (bob); the call runs once the quorum is complete`);
    expect((await store.getApproval(id))?.status).toBe("pending");
    expect((await retry(gate, "op-q2", id)).outcome).not.toBe("success");
    expect(gate.ledger.effectsOf("op-q2")).toHaveLength(0);
    // The same approver twice is one approval.
    expect(await gate.runtime.approvals.decide(id, { decision: "approve" }, bob)).toMatchObject({ ok: false, why: "already_voted" });
    const second = await gate.runtime.approvals.decide(id, { decision: "approve" }, carol);
    expect(second).toMatchObject({ ok: true, quorum: { have: 2, complete: true } });
    expect((await store.getApproval(id))?.status).toBe("approved");
    expect((await retry(gate, "op-q2", id)).outcome).toBe("success");
    expect((await retry(gate, "op-q2", id)).outcome).toBe("success");
    expect(gate.ledger.effectsOf("op-q2")).toHaveLength(1);
    // Every vote is bound to the approval's argument hash and policy version.
    const approval = (await store.getApproval(id))!;
    for (const v of await store.listApprovalVotes(id)) expect(v).toMatchObject({ args_hash: approval.args_hash, policy_version: approval.policy_version });
  });

  it("approvers are distinct identities: with case-insensitive identities Bob and bob are one approval", async () => {
    const { gate } = await setup({ ...twoOfAny, approvals: { default_approver_roles: ["approver"], identity_case: "insensitive" } });
    const id = await pending(gate, "op-q-case");
    expect((await gate.runtime.approvals.decide(id, { decision: "approve" }, bob)).ok).toBe(true);
    expect(await gate.runtime.approvals.decide(id, { decision: "approve" }, who(" Bob"))).toMatchObject({ ok: false, why: "already_voted" });
    expect(gate.ledger.effectsOf("op-q-case")).toHaveLength(0);
  });

  it("a quorum with a named role needs an approver holding it: 2 approvers, one of them treasury", async () => {
    const { gate, store } = await setup(twoWithTreasury);
    const id = await pending(gate, "op-treasury");
    await gate.runtime.approvals.decide(id, { decision: "approve" }, bob);
    const without = await gate.runtime.approvals.decide(id, { decision: "approve" }, dave);
    expect(without).toMatchObject({ ok: true, quorum: { have: 2, complete: false, missing_roles: ["treasury"] } });
    expect((await store.getApproval(id))?.status).toBe("pending");
    const withTreasury = await gate.runtime.approvals.decide(id, { decision: "approve" }, tina);
    expect(withTreasury).toMatchObject({ ok: true, quorum: { complete: true, missing_roles: [] } });
    expect((await retry(gate, "op-treasury", id)).outcome).toBe("success");
    expect(gate.ledger.effectsOf("op-treasury")).toHaveLength(1);
  });

  it("a rejection by any approver ends a quorum request", async () => {
    const { gate, store } = await setup();
    const id = await pending(gate, "op-q-reject");
    await gate.runtime.approvals.decide(id, { decision: "approve" }, bob);
    expect((await gate.runtime.approvals.decide(id, { decision: "reject" }, carol)).ok).toBe(true);
    expect(await gate.runtime.approvals.decide(id, { decision: "approve" }, dave)).toMatchObject({ ok: false, why: "already_decided" });
    expect((await store.getApproval(id))?.status).toBe("rejected");
    expect((await retry(gate, "op-q-reject", id)).outcome).toBe("terminal_failure");
    expect(gate.ledger.effectsOf("op-q-reject")).toHaveLength(0);
  });

  it("a revoke before execution drops a completed quorum", async () => {
    const { gate } = await setup();
    const id = await pending(gate, "op-q-revoke");
    await gate.runtime.approvals.decide(id, { decision: "approve" }, bob);
    await gate.runtime.approvals.decide(id, { decision: "approve" }, carol);
    expect((await gate.runtime.approvals.decide(id, { decision: "revoke" }, bob)).ok).toBe(true);
    expect((await retry(gate, "op-q-revoke", id)).outcome).toBe("terminal_failure");
    expect(gate.ledger.effectsOf("op-q-revoke")).toHaveLength(0);
  });

  it("an edit starts a new quorum for the edited arguments, with the editor's approval as its first", async () => {
    const { gate, store } = await setup();
    const id = await pending(gate, "op-q-edit", 2_000);
    await gate.runtime.approvals.decide(id, { decision: "approve" }, dave);
    const edit = await gate.runtime.approvals.decide(id, { decision: "edit", edited_args: reserveArgs(1_200) }, bob);
    if (!edit.ok || edit.edited === undefined) throw new Error(JSON.stringify(edit));
    expect(edit.quorum).toMatchObject({ have: 1, complete: false, approvers: [{ approver: "bob" }] });
    const next = edit.edited.approval.id;
    expect((await store.getApproval(next))?.status).toBe("pending");
    const resumedEarly = await gate.runtime.approvals.resume(id);
    expect(resumedEarly.ok).toBe(false);
    expect(await gate.runtime.approvals.decide(next, { decision: "approve" }, carol)).toMatchObject({ ok: true, quorum: { complete: true } });
    const resumed = await gate.runtime.approvals.resume(id);
    expect(resumed).toMatchObject({ ok: true, approval_id: next, envelope: { outcome: "success" } });
    expect([...gate.ledger.reservations.values()].map((r) => r.amount)).toEqual([1_200]);
  });

  it("an approval approved without its quorum (written to the store directly) never releases the call", async () => {
    const { gate, store } = await setup();
    const id = await pending(gate, "op-q-forged");
    const approval = (await store.getApproval(id))!;
    // One vote bound to other arguments does not count either.
    await store.addApprovalVote({ approval_id: id, tenant: "t_acme", approver: "carol", approver_roles: ["approver"], args_hash: "0".repeat(64), policy_version: approval.policy_version, decided_at_ms: Date.now() });
    await store.decideApproval({
      approval_id: id,
      decision: "approve",
      approver: "bob",
      approver_roles: ["approver"],
      reason: null,
      edited_args: null,
      decided_at_ms: gate.clock.now(),
      policy_version: approval.policy_version,
      policy_code_version: approval.policy_code_version,
      policy_data_version: approval.policy_data_version,
    });
    const env = await retry(gate, "op-q-forged", id);
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied", message: expect.stringContaining("approval_quorum_incomplete") });
    expect(gate.ledger.effectsOf("op-q-forged")).toHaveLength(0);
    expect(quorumState(quorumOf({ quorum: 2 })!, approval, await store.listApprovalVotes(id)).have).toBe(0);
  });

  it("concurrent approvers, the host's resume and the agent's retries keep exactly one effect", async () => {
    const { gate, store } = await setup();
    for (let round = 0; round < 6; round++) {
      const op = `op-q-race-${round}`;
      const id = await pending(gate, op, 1_000 + round);
      const approvers = [bob, carol, dave, tina];
      const results = await Promise.all([
        ...approvers.map((a) => gate.runtime.approvals.decide(id, { decision: "approve" }, a)),
        retry(gate, op, id, 1_000 + round),
        gate.runtime.approvals.resume(id),
        retry(gate, op, id, 1_000 + round),
        gate.runtime.approvals.resume(id),
      ]);
      // Approvers after the completing one find it decided; none is refused for another reason.
      const votes = results.slice(0, 4) as Awaited<ReturnType<Gate["runtime"]["approvals"]["decide"]>>[];
      expect(votes.filter((r) => r.ok).length).toBeGreaterThanOrEqual(2);
      expect(votes.every((r) => r.ok || r.why === "already_decided")).toBe(true);
      expect((await store.getApproval(id))?.status).toBe("approved");
      const events = await store.listApprovalEvents(id);
      expect(events.filter((e) => e.decision === "approve")).toHaveLength(1);
      const after = await gate.runtime.approvals.resume(id);
      expect(after).toMatchObject({ ok: true, envelope: { outcome: "success" } });
      expect(gate.ledger.effectsOf(op)).toHaveLength(1);
    }
  });

  it("the policy's per-call demand wins when stricter: above an amount, two approvers, one of them treasury", async () => {
    const { gate, store } = await setup(manifest, demanding({ quorum: 2, quorum_roles: ["treasury"] }));
    const small = await pending(gate, "op-d-small", 1_000);
    expect(await gate.runtime.approvals.decide(small, { decision: "approve" }, bob)).not.toHaveProperty("quorum");
    expect((await retry(gate, "op-d-small", small, 1_000)).outcome).toBe("success");
    const large = await pending(gate, "op-d-large", 9_000);
    expect(await store.getApprovalRequirement(large)).toEqual({ approval_id: large, quorum: 2, quorum_roles: ["treasury"], signed: false });
    expect(await gate.runtime.approvals.decide(large, { decision: "approve" }, bob)).toMatchObject({ ok: true, quorum: { have: 1, need: 2, complete: false } });
    expect((await retry(gate, "op-d-large", large, 9_000)).outcome).not.toBe("success");
    expect(await gate.runtime.approvals.decide(large, { decision: "approve" }, carol)).toMatchObject({ ok: true, quorum: { complete: false, missing_roles: ["treasury"] } });
    expect(await gate.runtime.approvals.decide(large, { decision: "approve" }, tina)).toMatchObject({ ok: true, quorum: { complete: true } });
    expect((await retry(gate, "op-d-large", large, 9_000)).outcome).toBe("success");
    expect(gate.ledger.effectsOf("op-d-large")).toHaveLength(1);
  });

  it("the policy's demand holds in another runtime on the same store, which did not request the approval", async () => {
    const demand = demanding({ quorum: 2 });
    const { gate, store } = await setup(manifest, demand);
    const id = await pending(gate, "op-d-other", 9_000);
    const approval = (await store.getApproval(id))!;
    // Approved in the store without its quorum; another process (its own runtime and caches) executes.
    await store.decideApproval({
      approval_id: id,
      decision: "approve",
      approver: "bob",
      approver_roles: ["approver"],
      reason: null,
      edited_args: null,
      decided_at_ms: gate.clock.now(),
      policy_version: approval.policy_version,
      policy_code_version: approval.policy_code_version,
      policy_data_version: approval.policy_data_version,
    });
    const sameStore = new Proxy(store, { get: (t, k) => { const v: unknown = Reflect.get(t, k, t); return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(t) : v; } });
    const other = makeGate({ policy: demand, store: sameStore, manifest, clock: gate.clock, ledger: gate.ledger });
    const env = await retry(other, "op-d-other", id, 9_000);
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied", message: expect.stringContaining("approval_quorum_incomplete") });
    expect(gate.ledger.effectsOf("op-d-other")).toHaveLength(0);
  });

  it("the tool's quorum wins when it is stricter than the policy's demand", async () => {
    const { gate } = await setup(withTool("reserve_funds", { approval: { ...base, quorum: 3 } }), demanding({ quorum: 2 }));
    const id = await pending(gate, "op-d-tool", 9_000);
    await gate.runtime.approvals.decide(id, { decision: "approve" }, bob);
    expect(await gate.runtime.approvals.decide(id, { decision: "approve" }, carol)).toMatchObject({ ok: true, quorum: { have: 2, need: 3, complete: false } });
    expect(await gate.runtime.approvals.decide(id, { decision: "approve" }, dave)).toMatchObject({ ok: true, quorum: { complete: true } });
  });

  it("a policy demanding signed approval makes an unsigned approval of that call never release it", async () => {
    const { gate } = await setup(manifest, demanding({ signed: true }));
    const id = await pending(gate, "op-d-signed", 9_000);
    expect((await gate.runtime.approvals.decide(id, { decision: "approve" }, bob)).ok).toBe(true);
    const env = await retry(gate, "op-d-signed", id, 9_000);
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied", message: expect.stringContaining("approval_signature_missing") });
    expect(gate.ledger.effectsOf("op-d-signed")).toHaveLength(0);
  });

  it("the inbox shows 1 of 2 approvals and who approved, and says it waits for more approvals", async () => {
    const { gate, store } = await setup();
    const app = createInboxApp({ approvals: gate.runtime.approvals, verifyApprover: createTokenVerifier({ secret: SECRET }), csrfSecret: "c".repeat(40), now: () => gate.clock.now(), operations: store, tools: twoOfAny.tools });
    const id = await pending(gate, "op-q-inbox");
    const jwt = (user: string) => issueApproverToken({ secret: SECRET, tenant: "t_acme", user, roles: ["approver"], nowMs: Date.now() });
    const decide = async (user: string) =>
      app.request(`/api/approvals/${id}/decision`, { method: "POST", headers: { authorization: `Bearer ${await jwt(user)}`, "content-type": "application/json" }, body: JSON.stringify({ decision: "approve" }) });
    const first = (await (await decide("bob")).json()) as { resumed: unknown; next_step: { state: string; text: string } };
    expect(first.resumed).toBeNull();
    expect(first.next_step.state).toBe("awaiting_approvals");
    expect(first.next_step.text).toContain("1 of 2 approvals (bob)");
    const page = await (await app.request(`/approvals/${id}`, { headers: { cookie: `toolgate_approver=${await jwt("carol")}` } })).text();
    expect(page).toContain('id="quorum" data-have="1" data-need="2"');
    expect(page).toContain("1 of 2 approvals (bob)");
    expect((await decide("bob")).status).toBe(409);
    const second = (await (await decide("carol")).json()) as { resumed: { ok: boolean; envelope: { outcome: string } }; next_step: { state: string } };
    expect(second.resumed.envelope.outcome).toBe("success");
    expect(second.next_step.state).toBe("ran");
    expect(gate.ledger.effectsOf("op-q-inbox")).toHaveLength(1);
  });
});
