import { describe, expect, it } from "vitest";
import { findRegoFiles, runPolicyTests } from "../../codegen/policytest/index.js";
import { runCli } from "../helpers/cli.js";

const dir = new URL("./fixtures/basic", import.meta.url).pathname;
const files = findRegoFiles([dir]);

describe("runPolicyTests on a fixture", () => {
  it("reports PASS, FAIL with the rule's line, ERROR with the message, and todo_ as skipped", async () => {
    const report = await runPolicyTests({ files });
    expect(report.errors).toEqual([]);
    const byRule = Object.fromEntries(report.results.map((r) => [r.test.rule, r]));
    expect(byRule["test_double"]?.status).toBe("pass");
    expect(byRule["test_small_fails"]).toMatchObject({ status: "fail", message: "undefined", test: { row: 9 } });
    expect(byRule["test_value_not_true"]).toMatchObject({ status: "fail", message: "got 7", test: { row: 17 } });
    expect(byRule["test_conflict_errors"]?.status).toBe("error");
    expect(byRule["test_conflict_errors"]?.message).toMatch(/lib\.rego:8:\d+: eval_conflict_error/);
    expect(byRule["todo_later"]?.status).toBe("skip");
  }, 60_000);

  it("with explain, names the failing expression and the values bound before it", async () => {
    const report = await runPolicyTests({ files, run: /values_shown|small_fails/, explain: true });
    const [small, shown] = report.results;
    expect(small?.explanation).toMatchObject({ at: expect.stringMatching(/lib_test\.rego:10$/), expr: 'lib.small with input as {"n": 20}', bindings: {} });
    expect(shown?.explanation).toMatchObject({ at: expect.stringMatching(/lib_test\.rego:26$/), expr: "y == 8", bindings: { x: 6, y: 7 } });
  }, 60_000);

  it("--run keeps only matching tests", async () => {
    const report = await runPolicyTests({ files, run: /double|later/ });
    expect(report.results.map((r) => [r.test.rule, r.status])).toEqual([
      ["test_double", "pass"],
      ["todo_later", "skip"],
    ]);
  }, 60_000);

  it("reports compile errors instead of running", async () => {
    const bad = new URL("./fixtures/broken", import.meta.url).pathname;
    const report = await runPolicyTests({ files: findRegoFiles([bad]) });
    expect(report.results.filter((r) => r.status !== "skip")).toEqual([]);
    expect(report.errors.map((e) => [e.code, e.location.row])).toEqual([["rego_unsafe_var_error", 3]]);
  }, 60_000);
});

describe("toolgate test", () => {
  it("exits 1 on failures, 0 when the selected tests pass, and prints JSON on request", async () => {
    const failing = await runCli(["test", dir]);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain("data.lib_test.test_small_fails: FAIL");
    const selected = await runCli(["test", dir, "--run", "test_double", "--format", "json"]);
    expect(selected.code).toBe(0);
    const json = JSON.parse(selected.stdout) as { name: string; fail?: boolean; error?: unknown }[];
    expect(json).toHaveLength(1);
    expect(json[0]).toMatchObject({ name: "test_double", package: "data.lib_test" });
    expect(json[0]).not.toHaveProperty("fail");
    // With --coverage the JSON is OPA's coverage report.
    const covered = await runCli(["test", dir, "--run", "test_double", "--coverage", "--format", "json"]);
    expect(covered.code).toBe(0);
    const cov = JSON.parse(covered.stdout) as { files: Record<string, { covered?: { start: { row: number }; end: { row: number } }[] }>; coverage: number; covered_lines: number };
    expect(Object.keys(cov.files).length).toBeGreaterThan(0);
    expect(cov.covered_lines).toBeGreaterThan(0);
    expect(Object.values(cov.files).some((f) => (f.covered ?? []).every((r) => r.start.row <= r.end.row) && (f.covered ?? []).length > 0)).toBe(true);
    expect(typeof cov.coverage).toBe("number");
  }, 120_000);
});
