import { describe, expect, it } from "vitest";
import { parseModule } from "../../codegen/rego/index.js";
import type { Module } from "../../codegen/rego/ast.js";
import { buildCoverage, discoverTests, findRegoFiles, formatCoverageJson, formatJson, formatPretty, formatRanges, loadDataFiles } from "../../codegen/policytest/index.js";
import type { RunReport } from "../../codegen/policytest/index.js";
import { readFileSync } from "node:fs";

const fixtureDir = new URL("./fixtures/basic", import.meta.url).pathname;
const parsed = (file: string): Module => {
  const r = parseModule(readFileSync(file, "utf8"), file);
  if (r.module === null) throw new Error(r.errors.map((e) => e.message).join("\n"));
  return r.module;
};

describe("test discovery", () => {
  const files = findRegoFiles([fixtureDir]);
  const tests = discoverTests(files.map(parsed));
  it("finds test_ and todo_ rules in *_test.rego files only, with their lines", () => {
    expect(tests.map((t) => [t.name, t.row, t.todo])).toEqual([
      ["data.lib_test.test_double", 5, false],
      ["data.lib_test.test_small_fails", 9, false],
      ["data.lib_test.test_conflict_errors", 13, false],
      ["data.lib_test.test_value_not_true", 17, false],
      ["data.lib_test.todo_later", 19, true],
      ["data.lib_test.test_values_shown", 23, false],
    ]);
    expect(tests[0]!.entrypoint).toBe("lib_test/test_double");
    expect(tests.every((t) => t.file.endsWith("lib_test.rego"))).toBe(true);
  });
});

describe("coverage", () => {
  it("counts a line covered when any point on it was hit", () => {
    const points = [
      { file: "a.rego", row: 3, kind: "head" as const },
      { file: "a.rego", row: 4, kind: "expr" as const },
      { file: "a.rego", row: 4, kind: "expr" as const },
      { file: "a.rego", row: 5, kind: "expr" as const },
      { file: "b.rego", row: 1, kind: "expr" as const },
      { file: "b.rego", row: 9, kind: "expr" as const },
    ];
    const r = buildCoverage(points, Uint8Array.from([1, 0, 1, 0, 1, 0]), (f, row) => f === "b.rego" && row === 9);
    expect(r.files.map((f) => ({ ...f, percent: Number(f.percent.toFixed(2)) }))).toEqual([
      { file: "a.rego", covered: [3, 4], notCovered: [5], percent: 66.67 },
      { file: "b.rego", covered: [1], notCovered: [], percent: 100 },
    ]);
    expect([r.covered, r.notCovered, r.percent]).toEqual([3, 1, 75]);
  });
  it("prints line ranges", () => expect(formatRanges([1, 2, 3, 7, 9, 10])).toBe("1-3, 7, 9-10"));
});

describe("reports", () => {
  const test = { name: "data.p.test_a", pkg: "data.p", rule: "test_a", entrypoint: "p/test_a", file: "p_test.rego", row: 4, col: 1, todo: false };
  const report: RunReport = {
    errors: [],
    results: [
      { test, status: "fail", ms: 1.5, message: "undefined" },
      { test: { ...test, name: "data.p.test_b", rule: "test_b", row: 8 }, status: "pass", ms: 0.2 },
      { test: { ...test, name: "data.p.test_c", rule: "test_c", row: 12 }, status: "error", ms: 0.1, message: "p.rego:3:1: eval_conflict_error: x" },
    ],
  };
  it("pretty: failures with file:line, the summary always", () => {
    const text = formatPretty(report, false);
    expect(text).toContain("data.p.test_a: FAIL (1.5ms)  p_test.rego:4");
    expect(text).toContain("data.p.test_c: ERROR (100µs)  p_test.rego:12\n  p.rego:3:1: eval_conflict_error: x");
    expect(text).not.toContain("test_b");
    expect(text).toMatch(/PASS: 1\/3\nFAIL: 1\/3\nERROR: 1\/3$/);
    expect(formatPretty(report, true)).toContain("data.p.test_b: PASS");
  });
  it("json has the shape of opa test --format json: an array of {location, package, name, fail?, error?, skip?, duration in ns}", () => {
    const j = JSON.parse(formatJson({ ...report, results: [...report.results, { test: { ...test, name: "data.p.todo_d", rule: "todo_d", row: 20, todo: true }, status: "skip", ms: 0 }] })) as unknown;
    expect(j).toEqual([
      { location: { file: "p_test.rego", row: 4, col: 1 }, package: "data.p", name: "test_a", fail: true, duration: 1_500_000 },
      { location: { file: "p_test.rego", row: 8, col: 1 }, package: "data.p", name: "test_b", duration: 200_000 },
      { location: { file: "p_test.rego", row: 12, col: 1 }, package: "data.p", name: "test_c", error: { code: "eval_conflict_error", message: "p.rego:3:1: eval_conflict_error: x" }, duration: 100_000 },
      { location: { file: "p_test.rego", row: 20, col: 1 }, package: "data.p", name: "todo_d", skip: true, duration: 0 },
    ]);
  });
  it("coverage json has the shape of opa test --coverage --format json: row ranges per file, line counts and percentages", () => {
    const coverage = buildCoverage(
      [3, 4, 5, 9, 10].map((row) => ({ file: "a.rego", row, kind: "expr" as const })).concat([{ file: "b.rego", row: 2, kind: "expr" as const }]),
      Uint8Array.from([1, 1, 0, 1, 0, 0]),
    );
    expect(JSON.parse(formatCoverageJson(coverage))).toEqual({
      files: {
        "a.rego": { covered: [{ start: { row: 3 }, end: { row: 4 } }, { start: { row: 9 }, end: { row: 9 } }], not_covered: [{ start: { row: 5 }, end: { row: 5 } }, { start: { row: 10 }, end: { row: 10 } }], covered_lines: 3, not_covered_lines: 2, coverage: 60 },
        "b.rego": { not_covered: [{ start: { row: 2 }, end: { row: 2 } }], not_covered_lines: 1 },
      },
      covered_lines: 3,
      not_covered_lines: 3,
      coverage: 50,
    });
  });
});

describe("data files", () => {
  it("merges json files at their folder path", () => {
    const r = loadDataFiles([new URL("./fixtures/data", import.meta.url).pathname]);
    expect(r).toEqual({ data: { a: { b: 1 }, sub: { c: 2 } }, errors: [] });
  });
});
