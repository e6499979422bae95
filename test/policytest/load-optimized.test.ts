/** `loadPolicyForTest(dir, { optimize: true })` loads binaryen itself (the compiler links without it by default). */
import { describe, expect, it } from "vitest";
import { loadPolicyForTest } from "../../src/testing/index.js";
import "../../src/testing/vitest.js";

const read = {
  tool: "get_account", effect: "read", args: { account_id: "acc_1" }, fingerprint: "fp", args_hash: "ah", operation_id: null,
  principal: { tenant: "t1", user: "alice", roles: ["agent"] }, approval: null, now_ms: 1000,
  policy_version: "pv1", policy_code_version: "pc1", policy_data_version: "pd1",
};

describe("loadPolicyForTest with optimize: true", () => {
  it("compiles through binaryen's optimiser and decides as the default build", async () => {
    const optimized = await loadPolicyForTest("policies", { optimize: true });
    const plain = await loadPolicyForTest("policies");
    expect(optimized.decide(read)).toAllow();
    const write = { ...read, tool: "reserve_funds", effect: "reversible_write", args: { account_id: "acc_1", amount: 10, currency: "EUR", recipient: "acc_2" }, operation_id: "op1" };
    expect(optimized.decide(write)).toEqual(plain.decide(write));
  }, 60_000);
});
