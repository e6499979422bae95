import { describe, expect, it } from "vitest";
import { findRegoFiles, loadDataFiles, runPolicyTests } from "../../codegen/policytest/index.js";
import { runCli } from "../helpers/cli.js";

describe("coverage on a fixture", () => {
  it("reports exactly the reached expressions and produced heads", async () => {
    const dir = new URL("./fixtures/cover", import.meta.url).pathname;
    const report = await runPolicyTests({ files: findRegoFiles([dir]), coverage: true });
    expect(report.coverageError).toBeUndefined();
    const files = report.coverage?.files.map((f) => ({ file: f.file.slice(dir.length + 1), covered: f.covered, notCovered: f.notCovered }));
    // Rule 1 is tried (row 4) but fails; rule 2 reaches rows 8 and 9; no head produces a value;
    // `limit` (row 12) is never evaluated; the todo_ test's lines do not count.
    expect(files).toEqual([
      { file: "cover.rego", covered: [4, 8, 9], notCovered: [3, 7, 12] },
      { file: "cover_test.rego", covered: [5], notCovered: [] },
    ]);
    expect(report.coverage?.percent).toBeCloseTo((4 / 7) * 100, 5);
  }, 60_000);
});

describe("the shipped policy", () => {
  it("passes every test in policies/ with 100% line coverage of authz.rego", async () => {
    const report = await runPolicyTests({ files: findRegoFiles(["policies"]), coverage: true, data: loadDataFiles(["policies"]).data });
    expect(report.errors).toEqual([]);
    expect(report.results.filter((r) => r.status !== "pass").map((r) => `${r.test.name}: ${r.status} ${r.message ?? ""}`)).toEqual([]);
    expect(report.results.length).toBeGreaterThan(20);
    const authz = report.coverage?.files.find((f) => f.file.endsWith("authz.rego"));
    expect(authz?.notCovered).toEqual([]);
    expect(authz?.percent).toBe(100);
  }, 120_000);

  it("is formatted (toolgate fmt --check policies/)", async () => {
    expect((await runCli(["fmt", "--check", "policies"])).code).toBe(0);
  });
});
