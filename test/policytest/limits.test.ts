/** `toolgate test` cases set input.limits and input.run with `with`, like any other input field. */
import { describe, expect, it } from "vitest";
import { findRegoFiles, runPolicyTests } from "../../codegen/policytest/index.js";

const dir = new URL("./fixtures/limits", import.meta.url).pathname;

describe("policy tests with input.limits and input.run", () => {
  it("cases that replace input.limits and input.run decide on the figures and the run they set", async () => {
    const report = await runPolicyTests({ files: findRegoFiles([dir]) });
    expect(report.errors).toEqual([]);
    const status = Object.fromEntries(report.results.map((r) => [r.test.rule, r.status]));
    expect(status).toEqual({
      test_below_the_daily_threshold_allows: "pass",
      test_above_the_daily_threshold_needs_approval: "pass",
      test_a_sensitive_read_earlier_in_the_run_needs_approval: "pass",
      test_a_plain_read_earlier_in_the_run_allows: "pass",
      // The figures set by `with` reach the policy: above the threshold it does not allow.
      test_expects_allow_above_the_threshold: "fail",
    });
  }, 60_000);
});
