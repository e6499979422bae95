/**
 * The store's passkey, decision-signature and quorum-vote tables on both stores: a credential
 * id is registered once, its counter only rises, signatures are append-only per approval, and
 * an approver votes once per approval (also when racing).
 */
import { expect, it } from "vitest";
import type { ApprovalVote, Store } from "../../src/store/store.js";
import { softAuthenticator } from "../approvals/soft-authenticator.js";
import { describeEachStore } from "../helpers/stores.js";

describeEachStore("passkeys and votes", (stores) => {
  it("a passkey's credential id is registered once and its counter only rises", async () => {
    const store: Store = await stores.fresh();
    const key = softAuthenticator();
    expect(await store.saveApproverCredential(key.credential("t_acme", "bob", 1_000))).toBe(true);
    expect(await store.saveApproverCredential(key.credential("t_evil", "eve", 2_000))).toBe(false);
    expect(await store.getApproverCredential(key.credential_id)).toMatchObject({ tenant: "t_acme", approver: "bob", counter: 0, transports: ["internal"], created_at_ms: 1_000 });
    expect(await store.listApproverCredentials("t_acme", "bob")).toHaveLength(1);
    expect(await store.listApproverCredentials("t_evil", "eve")).toHaveLength(0);
    expect(await store.raiseCredentialCounter(key.credential_id, 5)).toBe(true);
    expect(await store.raiseCredentialCounter(key.credential_id, 3)).toBe(false);
    expect(await store.raiseCredentialCounter(key.credential_id, 5)).toBe(false);
    expect((await store.getApproverCredential(key.credential_id))?.counter).toBe(5);
  });

  it("decision signatures are kept per approval, oldest first, exactly as stored", async () => {
    const store: Store = await stores.fresh();
    const key = softAuthenticator();
    const assertion = key.assert("Y2hhbGxlbmdl");
    const sig = (decision: "approve" | "reject", at: number) => ({
      approval_id: "apr_1",
      tenant: "t_acme",
      decision,
      approver: "bob",
      credential_id: key.credential_id,
      record: { approval_id: "apr_1", decision, expires_at_ms: 123 },
      assertion,
      signed_at_ms: at,
    });
    await store.saveDecisionSignature(sig("reject", 1));
    await store.saveDecisionSignature(sig("approve", 2));
    const got = await store.listDecisionSignatures("apr_1");
    expect(got.map((s) => s.decision)).toEqual(["reject", "approve"]);
    expect(got[1]).toEqual(sig("approve", 2));
    expect(await store.listDecisionSignatures("apr_2")).toEqual([]);
  });

  it("an approver's vote on an approval counts once, also when racing", async () => {
    const store: Store = await stores.fresh();
    const vote = (approver: string, at: number): ApprovalVote => ({ approval_id: "apr_q", tenant: "t_acme", approver, approver_roles: ["approver"], args_hash: "a".repeat(64), policy_version: "v1", decided_at_ms: at });
    const raced = await Promise.all([1, 2, 3, 4].map((i) => store.addApprovalVote(vote("bob", i))));
    expect(raced.filter(Boolean)).toHaveLength(1);
    expect(await store.addApprovalVote(vote("carol", 10))).toBe(true);
    const votes = await store.listApprovalVotes("apr_q");
    expect(votes.map((v) => v.approver)).toEqual(["bob", "carol"]);
    expect(votes[1]).toEqual(vote("carol", 10));
  });
});
