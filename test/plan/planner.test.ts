/**
 * Planner table tests: Rego in, pretty-printed IR out. Each row asserts the lines
 * (in order, not necessarily adjacent) that pin down how a construct is planned.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { printPolicy } from "../../codegen/plan/print.js";

interface Row {
  readonly note: string;
  readonly rego: string;
  readonly entrypoint?: string;
  readonly query?: string;
  /** Lines expected in this order (each trimmed); other lines may sit between them. */
  readonly lines: readonly string[];
}

const rows: Row[] = [
  {
    note: "complete rule: assign-once into the return local, then return",
    rego: "package t\np := 1 if input.x",
    entrypoint: "t/p",
    lines: ["func g0.data.t.p(%0, %1) -> %2", '%3 = %0["x"]', "%3 != false", "%4 = number 1", "%2 = once %4", "return %2"],
  },
  {
    note: "default runs only when the return local is undefined",
    rego: "package t\ndefault p := false\np if input.x",
    entrypoint: "t/p",
    lines: ["%2 = once true", "is_undefined %2", "%2 = false", "return %2"],
  },
  {
    note: "partial set: make set, add per solution",
    rego: "package t\ns contains x if { some x in input.xs }",
    entrypoint: "t/s",
    lines: ["%2 = set", "scan %", "add %2 %"],
  },
  {
    note: "partial object: insert once",
    rego: "package t\no[k] := 1 if { some k in input.ks }",
    entrypoint: "t/o",
    lines: ["%2 = object", "scan %", "insert once %2[%"],
  },
  {
    note: "entrypoint plan wraps the value in {result}",
    rego: "package t\np := 1",
    entrypoint: "t/p",
    lines: ["plan t/p", "call g0.data.t.p(%0, %1)", "%3 = object", 'insert %3["result"] = %2', "result %3"],
  },
  {
    note: "not is a not-block",
    rego: "package t\np if not input.x",
    entrypoint: "t/p",
    lines: ["not", "block", '= %0["x"]'],
  },
  {
    note: "else chain breaks out of the alternatives",
    rego: "package t\np := 1 if input.a\nelse := 2",
    entrypoint: "t/p",
    lines: ["blocks", "break 1", "break 1", "is_defined %", "%2 = once %"],
  },
  {
    note: "functions take input, data and their arguments",
    rego: "package t\nf(x) := [x]\np := f(input.y)",
    entrypoint: "t/p",
    lines: ["call g0.data.t.f(%0, %1, %", "func g0.data.t.f(%0, %1, %2) -> %3"],
  },
  {
    note: "a package is a virtual document merged with base data",
    rego: "package t\np := 1",
    entrypoint: "t",
    lines: ["plan t", "%2 = object", 'insert %2["p"]', '= %1["t"]', "is_object", "merge"],
  },
  {
    note: "with input builds a replaced input local",
    rego: "package t\np := input.x",
    query: "data.t.p = v with input.x as 1",
    lines: ['= with %0."x" as %', "call g0.data.t.p(%"],
  },
  {
    note: "query results bind user variables",
    rego: "package t",
    query: "x := 1",
    lines: ["plan q", '["x"] = %', "result %"],
  },
];

function plan(r: Row): string {
  const out = compilePolicy({
    modules: [{ file: "t.rego", source: r.rego }],
    entrypoints: r.entrypoint === undefined ? [] : [r.entrypoint],
    queries: r.query === undefined ? [] : [{ name: "q", body: r.query }],
    stopAfter: "plan",
  });
  expect(out.errors).toEqual([]);
  expect(out.wasm).toBeNull();
  return printPolicy(out.plan!);
}

describe("planner", () => {
  for (const r of rows) {
    it(r.note, () => {
      const lines = plan(r).split("\n").map((l) => l.trim());
      let at = 0;
      for (const want of r.lines) {
        const i = lines.findIndex((l, j) => j >= at && l.includes(want));
        expect(i, `line containing ${JSON.stringify(want)} after line ${at}:\n${lines.join("\n")}`).toBeGreaterThanOrEqual(0);
        at = i + 1;
      }
    });
  }
});
