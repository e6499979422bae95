/** The vitest matchers take `limits` and `run` like any other input field: a Rego policy deciding on them, under test. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPolicyForTest, policyMatchers } from "../../src/testing/index.js";
import type { PolicyUnderTest } from "../../src/testing/index.js";
import "../../src/testing/vitest.js";

expect.extend(policyMatchers);

const rego = `package toolgate.authz

default decision := {"allow": true, "reason": "allowed", "requires_approval": false}

decision := {"allow": false, "reason": "daily_threshold", "requires_approval": true} if {
	input.limits.payouts_per_currency.sum + input.args.amount > 30000
} else := {"allow": false, "reason": "external_write_after_sensitive_read", "requires_approval": true} if {
	input.effect == "external_write"
	some e in input.run
	e.effect == "read"
	e.sensitive
}
`;

describe("policy tests set input.limits and input.run", () => {
  let dir: string;
  let policy: PolicyUnderTest;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolgate-limits-policy-"));
    writeFileSync(join(dir, "authz.rego"), rego);
    policy = await loadPolicyForTest(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const input = (limits: number, run: unknown[]) => ({ tool: "confirm_transfer", effect: "external_write", args: { amount: 5000 }, limits: { payouts_per_currency: { count: 3, sum: limits } }, run });

  it("a threshold on input.limits asks for approval above it and allows below it", () => {
    expect(policy.decide(input(26_000, []))).toRequireApproval();
    expect(policy.decide(input(25_000, []))).toAllow();
  });

  it("a sensitive read in input.run asks for approval of an external_write", () => {
    expect(policy.decide(input(0, [{ tool: "get_account", effect: "read", sensitive: true, outcome: "success", at_ms: 1 }]))).toRequireApproval();
    expect(policy.decide(input(0, [{ tool: "get_account", effect: "read", sensitive: false, outcome: "success", at_ms: 1 }]))).toAllow();
  });
});
