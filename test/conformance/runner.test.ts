import { describe, expect, it } from "vitest";
import { parseCaseFile } from "./cases.js";
import { compareValues, resultSetsEqual } from "./values.js";
import { errorCodes, judge, messageContains } from "./run-case.js";
import { topicClass } from "./topics.js";
import { termToJson } from "./input-term.js";
import { formatReport, summarize, summaryLine } from "./report.js";
import { pickFastSubset } from "./fast-subset.js";
import { loadSkips } from "./skips.js";
import type { CaseOutcome } from "./run-case.js";
import { raiseFloor, readFloor } from "./floor.js";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const newLayout = `cases:
    - note: t/one
      query: data.test.p = x
      modules:
        - |
          package test

          p := 1
      want_result:
        - x: 1
`;
const oldLayout = `---

cases:
  - note: "t/two"
    query: data.test.p = x
    modules:
      - |
        package test
        p := 1
    input_term: '{"a": 1}'
    want_error_code: eval_type_error
    strict_error: true
`;

describe("case loading", () => {
  it("reads both layouts into one shape", () => {
    const [a] = parseCaseFile(newLayout, "t/a.yaml");
    const [b] = parseCaseFile(oldLayout, "t/b.yaml");
    expect(a).toMatchObject({ id: "t/a.yaml#0", topic: "t", wantResult: [{ x: 1 }], strictError: false });
    expect(a!.modules[0]).toContain("package test");
    expect(b).toMatchObject({ id: "t/b.yaml#0", inputTerm: '{"a": 1}', wantErrorCode: "eval_type_error", strictError: true });
  });
  it("rejects a case without an expectation", () => {
    expect(() => parseCaseFile("cases:\n  - note: x\n    query: data.p = x\n", "t/c.yaml")).toThrow(/want_result/);
  });
});

describe("value comparison", () => {
  it.each([
    [null, false, -1],
    [1, 1.0, 0],
    [2, "a", -1],
    [[1, 2], [1, 2, 0], -1],
    [{ b: 1, a: 2 }, { a: 2, b: 1 }, 0],
    [{ a: 1 }, { a: 2 }, -1],
  ])("compare(%j, %j) has sign %i", (a, b, sign) => {
    expect(Math.sign(compareValues(a, b))).toBe(sign);
  });
  it("treats result sets as sets and sorts bindings when asked", () => {
    expect(resultSetsEqual([{ x: 1 }, { x: 2 }], [{ x: 2 }, { x: 1 }], false)).toBe(true);
    expect(resultSetsEqual([{ x: [1, 2] }], [{ x: [2, 1] }], false)).toBe(false);
    expect(resultSetsEqual([{ x: [1, 2] }], [{ x: [2, 1] }], true)).toBe(true);
    expect(resultSetsEqual([], [{ x: 1 }], false)).toBe(false);
  });
});

describe("judging", () => {
  const base = parseCaseFile(newLayout, "t/a.yaml")[0]!;
  it("passes equal results and fails different ones or errors", () => {
    expect(judge(base, { kind: "result", bindings: [{ x: 1 }] })).toBeNull();
    expect(judge(base, { kind: "result", bindings: [{ x: 2 }] })).toBe("result differs");
    expect(judge(base, { kind: "error", message: "boom" })).toMatch(/unexpected error/);
  });
  it("reads the error code from the message and matches want_error as text", () => {
    const c = { ...base, wantErrorCode: "eval_conflict_error", wantError: "test-0.rego:4: eval_conflict_error: complete" };
    expect(judge(c, { kind: "error", message: "test-0.rego:4:3: eval_conflict_error: complete rules must not produce multiple outputs" })).toBeNull();
    expect(judge(c, { kind: "error", message: "test-0.rego:4:3: eval_type_error: complete" })).toMatch(/want error code/);
    expect(judge(c, { kind: "result", bindings: [] })).toMatch(/want an error/);
  });
  it("finds codes and drops columns only from locations", () => {
    expect(errorCodes("a.rego:1:2: rego_type_error: x\nb: eval_builtin_error: y")).toEqual(["rego_type_error", "eval_builtin_error"]);
    expect(messageContains("test-0.rego:4:9: eval_type_error: m", "test-0.rego:4: eval_type_error")).toBe(true);
    expect(messageContains("test-0.rego:5:9: eval_type_error: m", "test-0.rego:4: eval_type_error")).toBe(false);
  });
});

describe("topic classes", () => {
  it.each([
    ["withkeyword", "language"],
    ["containskeyword", "language"],
    ["objectget", "builtin"],
    ["typenamebuiltin", "builtin"],
    ["strings", "builtin"],
    ["netcidrcontains", "builtin"],
    ["every", "language"],
  ])("%s is a %s topic", (topic, cls) => expect(topicClass(topic)).toBe(cls));
});

describe("input_term conversion", () => {
  const loc = { file: "t", row: 1, col: 1 };
  it("writes constants as JSON and refuses sets", () => {
    const obj = {
      type: "object" as const,
      items: [[{ type: "string" as const, value: "a", location: loc }, { type: "number" as const, text: "12345678901234567890", location: loc }]] as const,
      location: loc,
    };
    expect(termToJson(obj)).toEqual({ ok: true, json: '{"a":12345678901234567890}' });
    expect(termToJson({ type: "set", items: [], location: loc }).ok).toBe(false);
  });
});

describe("report", () => {
  const o = (topic: string, status: CaseOutcome["status"]): CaseOutcome => ({ id: `${topic}/${status}`, note: "", topic, status, ms: 0 });
  it("tallies per topic and class and ends with the summary line", () => {
    const s = summarize([o("every", "passed"), o("every", "failed"), o("strings", "skipped"), o("strings", "passed")]);
    expect(s.byClass.language).toEqual({ passed: 1, failed: 1, skipped: 0 });
    expect(s.byClass.builtin).toEqual({ passed: 1, failed: 0, skipped: 1 });
    expect(formatReport(s)).toContain("language topics: 1/2 passed (50.0%)");
    expect(summaryLine(s.total)).toBe("conformance: 2 passed, 1 failed, 1 skipped");
    expect(pickFastSubset([o("every", "passed"), o("every", "failed")], 3)).toEqual(["every/passed"]);
  });
  it("every checked-in skip has a reason", () => {
    for (const reason of loadSkips().values()) expect(reason.length).toBeGreaterThan(20);
  });
});

describe("floor ratchet", () => {
  it("raises to the rate rounded down, and never lowers", () => {
    const file = join(mkdtempSync(join(tmpdir(), "floor-")), "floor.json");
    writeFileSync(file, JSON.stringify({ passRate: 50 }));
    expect(raiseFloor(73.68, file)).toBe(73.6);
    expect(readFloor(file)).toBe(73.6);
    expect(raiseFloor(60, file)).toBe(73.6);
    expect(readFloor(file)).toBe(73.6);
  });
});
