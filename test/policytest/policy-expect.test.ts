import { beforeAll, describe, expect, it } from "vitest";
import { loadPolicyForTest, type PolicyUnderTest } from "../../src/testing/index.js";
import "../../src/testing/vitest.js";

const call = {
  tool: "reserve_funds",
  effect: "reversible_write",
  args: { account_id: "acc_1", amount: 10, currency: "EUR", recipient: "acc_2" },
  fingerprint: "fp10",
  args_hash: "ah10",
  operation_id: "op1",
  principal: { tenant: "t1", user: "alice", roles: ["agent"] },
  approval: null,
  now_ms: 1000,
  policy_version: "pv1",
  policy_code_version: "pc1",
  policy_data_version: "pd1",
};
const approval = {
  id: "apr_1", tenant: "t1", tool: "reserve_funds", fingerprint: "fp10", args_hash: "ah10", operation_id: "op1",
  decision: "approve", requested_by: "alice", approver: "bob", approver_roles: ["approver"], expires_at_ms: 2000,
  policy_version: "pv1", policy_code_version: "pc1", policy_data_version: "pd1", consumed: false,
};

describe("toolgate/testing decision matchers on the shipped policy", () => {
  let policy: PolicyUnderTest;
  beforeAll(async () => {
    policy = await loadPolicyForTest("policies");
  }, 120_000);

  it("allows reads and approved writes", () => {
    expect(policy.decide({ ...call, tool: "get_account", effect: "read", args: { account_id: "acc_1" }, operation_id: null })).toAllow();
    expect(policy.decide({ ...call, approval })).toAllow();
  });
  it("asks for approval for an unapproved write", () => {
    expect(policy.decide(call)).toRequireApproval();
    expect(policy.decide(call)).not.toAllow();
  });
  it("denies 10 -> 1000 and destructive calls, with the reason", () => {
    expect(policy.decide({ ...call, fingerprint: "fp1000", approval })).toDeny("approval_fingerprint_mismatch");
    expect(policy.decide({ ...call, effect: "destructive", approval })).toDeny("destructive_denied");
    expect(policy.decide({ ...call, effect: "destructive", approval })).not.toDeny("approved");
  });
  it("fails closed on malformed input", () => {
    expect(policy.decide({ tool: 1 })).toDeny();
  });
  it("matchers reject what they do not describe", () => {
    expect(() => expect(policy.decide(call)).toAllow()).toThrow(/to allow/);
    expect(() => expect({ nonsense: true }).toDeny()).toThrow(/to deny/);
  });
});
