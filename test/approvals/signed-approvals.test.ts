/**
 * Passkey-signed decisions on both stores, without a browser (a software authenticator makes
 * the same WebAuthn assertions a browser does): the inbox requires and verifies the signature
 * of approve, edit and reject for a tool with `approval.signed`, stores it with the decision,
 * the runtime releases the call only with a valid one, and `verifyApprovalSignatures` re-checks
 * every decision offline from the store and the registered public keys.
 */
import { beforeAll, expect, it } from "vitest";
import { decisionChallenge, decisionRecord } from "../../src/approvals/decision-signature.js";
import { verifyApprovalSignatures } from "../../src/approvals/verify.js";
import type { JsonObject, Manifest } from "../../src/manifest.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { createInboxApp, createTokenVerifier, issueApproverToken } from "../../src/server/index.js";
import type { Store } from "../../src/store/store.js";
import { manifest } from "../../generated/index.js";
import { alice, loadShippedPolicy, makeGate, reserveArgs, withTool } from "../runtime/harness.js";
import type { Gate } from "../runtime/harness.js";
import { softAuthenticator, tamperSignature } from "./soft-authenticator.js";
import type { SoftAuthenticator } from "./soft-authenticator.js";
import { describeEachStore } from "../helpers/stores.js";

const SECRET = "s".repeat(40);
const CSRF = "c".repeat(40);
const signedManifest: Manifest = withTool("reserve_funds", { approval: { ...manifest.tools["reserve_funds"]!.approval!, signed: true } });
let policy: PolicyEngine;
beforeAll(async () => {
  policy = await loadShippedPolicy();
});

describeEachStore("passkey-signed decisions", (stores) => {
  async function setup() {
    const store: Store = await stores.fresh();
    const gate = makeGate({ policy, store, manifest: signedManifest });
    const app = createInboxApp({
      approvals: gate.runtime.approvals,
      verifyApprover: createTokenVerifier({ secret: SECRET }),
      csrfSecret: CSRF,
      now: () => gate.clock.now(),
      onError: () => undefined,
      operations: store,
      passkeys: store,
      tools: signedManifest.tools,
    });
    const bobKey = softAuthenticator();
    await store.saveApproverCredential(bobKey.credential("t_acme", "bob"));
    const bobJwt = await issueApproverToken({ secret: SECRET, tenant: "t_acme", user: "bob", roles: ["approver"], nowMs: Date.now() });
    return { gate, store, app, bobKey, bobJwt };
  }

  async function pending(gate: Gate, op: string, amount = 1_000): Promise<string> {
    const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(amount), operation_id: op });
    if (env.outcome !== "terminal_failure" || env.approval_id === undefined) throw new Error(JSON.stringify(env));
    return env.approval_id;
  }

  type App = ReturnType<typeof createInboxApp>;
  const post = (app: App, jwt: string, path: string, body: unknown) =>
    app.request(path, { method: "POST", headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" }, body: JSON.stringify(body) });

  /** Asks the inbox what to sign, signs it with `key`, and sends the decision with the assertion. */
  async function signedDecision(app: App, jwt: string, id: string, key: SoftAuthenticator, body: JsonObject, tamper = false) {
    const signing = (await (await post(app, jwt, `/api/approvals/${id}/signing`, body)).json()) as { challenge: string; credential_ids: string[] };
    expect(signing.credential_ids).toContain(key.credential_id);
    const assertion = key.assert(signing.challenge);
    return post(app, jwt, `/api/approvals/${id}/decision`, { ...body, assertion: tamper ? tamperSignature(assertion) : assertion });
  }

  it("an approval signed with the approver's passkey releases the call once and verifies offline", async () => {
    const { gate, store, app, bobKey, bobJwt } = await setup();
    const id = await pending(gate, "op-signed");
    const res = await signedDecision(app, bobJwt, id, bobKey, { decision: "approve" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { resumed: { ok: boolean; envelope: { outcome: string } } };
    expect(body.resumed.envelope.outcome).toBe("success");
    expect(gate.ledger.effectsOf("op-signed")).toHaveLength(1);
    const sigs = await store.listDecisionSignatures(id);
    expect(sigs).toHaveLength(1);
    const approval = (await store.getApproval(id))!;
    expect(sigs[0]!.record).toEqual(decisionRecord(approval, "approve", "bob", null));
    const report = await verifyApprovalSignatures(store, signedManifest, approval);
    expect(report).toMatchObject({ ok: true, signature_required: true, decisions: [{ decision: "approve", approver: "bob", state: "valid", problem: null }] });
    // The agent's own retry replays the one outcome.
    const again = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: "op-signed", approval_id: id });
    expect(again.outcome).toBe("success");
    expect(gate.ledger.effectsOf("op-signed")).toHaveLength(1);
  });

  it("a decision that needs a signature and has none is refused by the inbox, and an unsigned approval never releases the call", async () => {
    const { gate, store, app, bobJwt } = await setup();
    const id = await pending(gate, "op-unsigned");
    const refused = await post(app, bobJwt, `/api/approvals/${id}/decision`, { decision: "approve" });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/passkey-signed/);
    expect((await store.getApproval(id))?.status).toBe("pending");
    // Approved where no signature is checked (the CLI, the API): the runtime still refuses it.
    const decided = await gate.runtime.approvals.decide(id, { decision: "approve" }, { tenant: "t_acme", user: "bob", roles: ["approver"] });
    expect(decided.ok).toBe(true);
    const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: "op-unsigned", approval_id: id });
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied", message: expect.stringContaining("approval_signature_missing") });
    expect(gate.ledger.effectsOf("op-unsigned")).toHaveLength(0);
    const report = await verifyApprovalSignatures(store, signedManifest, (await store.getApproval(id))!);
    expect(report.ok).toBe(false);
    expect(report.decisions[0]).toMatchObject({ state: "unsigned", problem: expect.stringMatching(/requires/) });
  });

  it("a tampered signature is refused by the inbox, and one planted in the store never releases the call and fails verification", async () => {
    const { gate, store, app, bobKey, bobJwt } = await setup();
    const id = await pending(gate, "op-tampered");
    const res = await signedDecision(app, bobJwt, id, bobKey, { decision: "approve" }, true);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/signature is invalid/);
    expect((await store.getApproval(id))?.status).toBe("pending");
    // Someone with write access records an approval and a tampered assertion beside it.
    const approval = (await store.getApproval(id))!;
    const record = decisionRecord(approval, "approve", "bob", null);
    await store.saveDecisionSignature({
      approval_id: id,
      tenant: "t_acme",
      decision: "approve",
      approver: "bob",
      credential_id: bobKey.credential_id,
      record: record as unknown as JsonObject,
      assertion: tamperSignature(bobKey.assert(decisionChallenge(record))),
      signed_at_ms: Date.now(),
    });
    expect((await gate.runtime.approvals.decide(id, { decision: "approve" }, { tenant: "t_acme", user: "bob", roles: ["approver"] })).ok).toBe(true);
    const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: "op-tampered", approval_id: id });
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied", message: expect.stringContaining("approval_signature_invalid") });
    expect(gate.ledger.effectsOf("op-tampered")).toHaveLength(0);
    const report = await verifyApprovalSignatures(store, signedManifest, (await store.getApproval(id))!);
    expect(report.ok).toBe(false);
    expect(report.decisions[0]?.state).toBe("invalid");
  });

  it("a signature over another decision, or made with another approver's passkey, is refused", async () => {
    const { gate, store, app, bobKey, bobJwt } = await setup();
    const id = await pending(gate, "op-other");
    // bob signs a rejection and sends it as an approval.
    const signing = (await (await post(app, bobJwt, `/api/approvals/${id}/signing`, { decision: "reject" })).json()) as { challenge: string };
    const asApprove = await post(app, bobJwt, `/api/approvals/${id}/decision`, { decision: "approve", assertion: bobKey.assert(signing.challenge) });
    expect(asApprove.status).toBe(403);
    // carol's passkey cannot sign bob's decision.
    const carolKey = softAuthenticator();
    await store.saveApproverCredential(carolKey.credential("t_acme", "carol"));
    const approval = (await store.getApproval(id))!;
    const foreign = await post(app, bobJwt, `/api/approvals/${id}/decision`, { decision: "approve", assertion: carolKey.assert(decisionChallenge(decisionRecord(approval, "approve", "bob", null))) });
    expect(foreign.status).toBe(403);
    expect((await store.getApproval(id))?.status).toBe("pending");
    expect(gate.ledger.effectsOf("op-other")).toHaveLength(0);
  });

  it("an assertion replayed for another approval, or whose signature counter does not rise (a cloned passkey), is refused", async () => {
    const { gate, store, app, bobKey, bobJwt } = await setup();
    const first = await pending(gate, "op-replay-1");
    const signing = (await (await post(app, bobJwt, `/api/approvals/${first}/signing`, { decision: "reject" })).json()) as { challenge: string };
    const assertion = bobKey.assert(signing.challenge);
    expect((await post(app, bobJwt, `/api/approvals/${first}/decision`, { decision: "reject", assertion })).status).toBe(200);
    expect((await store.getApproverCredential(bobKey.credential_id))?.counter).toBe(1);
    const second = await pending(gate, "op-replay-2");
    const replay = await post(app, bobJwt, `/api/approvals/${second}/decision`, { decision: "reject", assertion });
    expect(replay.status).toBe(403);
    bobKey.resetCounter();
    const cloned = await signedDecision(app, bobJwt, second, bobKey, { decision: "reject" });
    expect(cloned.status).toBe(403);
    expect(((await cloned.json()) as { error: { message: string } }).error.message).toMatch(/counter did not rise/);
    expect((await store.getApproval(second))?.status).toBe("pending");
  });

  it("a passkey's signature counter rises atomically: two clones signing at once get one decision through, not two", async () => {
    const { gate, store, app, bobKey, bobJwt } = await setup();
    const ids = [await pending(gate, "op-clone-1"), await pending(gate, "op-clone-2")];
    // Both assertions carry counter 1, as a cloned authenticator's would.
    const assertions: JsonObject[] = [];
    for (const id of ids) {
      const signing = (await (await post(app, bobJwt, `/api/approvals/${id}/signing`, { decision: "reject" })).json()) as { challenge: string };
      bobKey.resetCounter();
      assertions.push(bobKey.assert(signing.challenge));
    }
    const answers = await Promise.all(ids.map((id, i) => post(app, bobJwt, `/api/approvals/${id}/decision`, { decision: "reject", assertion: assertions[i] })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 403]);
    const refused = answers.find((r) => r.status === 403)!;
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/counter did not rise/);
    const statuses = await Promise.all(ids.map(async (id) => (await store.getApproval(id))?.status));
    expect(statuses.sort()).toEqual(["pending", "rejected"]);
    expect((await store.getApproverCredential(bobKey.credential_id))?.counter).toBe(1);
  });

  it("with a quorum, every approver's approval is signed: one unsigned approval of the quorum never releases the call", async () => {
    const store: Store = await stores.fresh();
    const quorumSigned: Manifest = withTool("reserve_funds", { approval: { ...manifest.tools["reserve_funds"]!.approval!, signed: true, quorum: 2 } });
    const gate = makeGate({ policy, store, manifest: quorumSigned });
    const app = createInboxApp({ approvals: gate.runtime.approvals, verifyApprover: createTokenVerifier({ secret: SECRET }), csrfSecret: CSRF, now: () => gate.clock.now(), onError: () => undefined, operations: store, passkeys: store, tools: quorumSigned.tools });
    const keys = { bob: softAuthenticator(), carol: softAuthenticator() };
    for (const [user, key] of Object.entries(keys)) await store.saveApproverCredential(key.credential("t_acme", user));
    const jwt = (user: string) => issueApproverToken({ secret: SECRET, tenant: "t_acme", user, roles: ["approver"], nowMs: Date.now() });

    const signedBoth = await pending(gate, "op-qs-1");
    expect((await signedDecision(app, await jwt("bob"), signedBoth, keys.bob, { decision: "approve" })).status).toBe(200);
    expect(gate.ledger.effectsOf("op-qs-1")).toHaveLength(0);
    const second = (await (await signedDecision(app, await jwt("carol"), signedBoth, keys.carol, { decision: "approve" })).json()) as { resumed: { envelope: { outcome: string } } };
    expect(second.resumed.envelope.outcome).toBe("success");
    expect(gate.ledger.effectsOf("op-qs-1")).toHaveLength(1);
    const report = await verifyApprovalSignatures(store, quorumSigned, (await store.getApproval(signedBoth))!);
    expect(report.ok).toBe(true);
    expect(report.decisions.map((d) => [d.approver, d.state])).toEqual([["bob", "valid"], ["carol", "valid"]]);

    const oneUnsigned = await pending(gate, "op-qs-2", 1_500);
    expect((await signedDecision(app, await jwt("bob"), oneUnsigned, keys.bob, { decision: "approve" })).status).toBe(200);
    // carol approves where no signature is checked (the CLI): the quorum completes, the call does not run.
    expect(await gate.runtime.approvals.decide(oneUnsigned, { decision: "approve" }, { tenant: "t_acme", user: "carol", roles: ["approver"] })).toMatchObject({ ok: true, quorum: { complete: true } });
    const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_500), operation_id: "op-qs-2", approval_id: oneUnsigned });
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied", message: expect.stringContaining("approval_signature_missing") });
    expect(gate.ledger.effectsOf("op-qs-2")).toHaveLength(0);
    expect((await verifyApprovalSignatures(store, quorumSigned, (await store.getApproval(oneUnsigned))!)).ok).toBe(false);
  });

  it("a signed rejection and a signed edit verify offline; the edited call runs under the editor's signature", async () => {
    const { gate, store, app, bobKey, bobJwt } = await setup();
    const rejected = await pending(gate, "op-reject");
    expect((await signedDecision(app, bobJwt, rejected, bobKey, { decision: "reject", reason: "no" })).status).toBe(200);
    expect((await verifyApprovalSignatures(store, signedManifest, (await store.getApproval(rejected))!)).decisions).toMatchObject([{ decision: "reject", state: "valid" }]);
    const original = await pending(gate, "op-edit", 2_000);
    const res = await signedDecision(app, bobJwt, original, bobKey, { decision: "edit", edited_args: reserveArgs(1_500) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { resumed: { ok: boolean; approval_id: string; operation_id: string; envelope: { outcome: string } } };
    expect(body.resumed.envelope.outcome).toBe("success");
    expect(gate.ledger.effectsOf(body.resumed.operation_id)).toHaveLength(1);
    expect([...gate.ledger.reservations.values()].map((r) => r.amount)).toEqual([1_500]);
    for (const id of [original, body.resumed.approval_id]) {
      const report = await verifyApprovalSignatures(store, signedManifest, (await store.getApproval(id))!);
      expect(report.ok).toBe(true);
      expect(report.decisions.every((d) => d.state === "valid")).toBe(true);
    }
  });
});
