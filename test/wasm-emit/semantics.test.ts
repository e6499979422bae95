/**
 * End to end: Rego -> wasm -> opa-wasm SDK, asserting OPA's exact results. Each row
 * names the semantic it pins down. Uses no native builtins beyond what the rows need.
 */
import { describe, expect, it } from "vitest";
import { evaluate } from "./sdk-harness.js";
import type { EvalCase } from "./sdk-harness.js";

interface Row extends EvalCase {
  readonly note: string;
  readonly want?: unknown;
  readonly error?: string;
}

const rows: Row[] = [
  { note: "complete rule true", modules: ["package t\np if input.x == 1"], query: "data.t.p = v", input: { x: 1 }, want: [{ v: true }] },
  { note: "undefined is an empty result set, not false", modules: ["package t\np if input.x == 1"], query: "data.t.p = v", input: { x: 2 }, want: [] },
  { note: "default gives false", modules: ["package t\ndefault p := false\np if input.x == 1"], entrypoint: "t/p", input: { x: 2 }, want: [{ result: false }] },
  { note: "query without variables", modules: ["package t\np := 1"], query: "data.t.p == 1", want: [{}] },
  {
    note: "complete rule conflict is eval_conflict_error",
    modules: ["package t\np := 1 if input.a\np := 2 if input.a"],
    entrypoint: "t/p",
    input: { a: true },
    error: "eval_conflict_error: complete rules must not produce multiple outputs",
  },
  { note: "same value twice is no conflict", modules: ["package t\np := 1 if input.a\np := 1"], entrypoint: "t/p", input: { a: true }, want: [{ result: 1 }] },
  {
    note: "partial set, sorted output",
    modules: ['package t\ns contains x if { some x in input.xs }\ns contains "z"'],
    entrypoint: "t/s",
    input: { xs: ["b", "a", "b"] },
    want: [{ result: ["a", "b", "z"] }],
  },
  {
    note: "partial object",
    modules: ["package t\no[k] := v if { some k, v in input.m }"],
    entrypoint: "t/o",
    input: { m: { b: 2, a: 1 } },
    want: [{ result: { a: 1, b: 2 } }],
  },
  {
    note: "partial object key conflict",
    modules: ['package t\no[k] := 1 if k := "k"\no[k] := 2 if k := "k"'],
    entrypoint: "t/o",
    error: "eval_conflict_error: object keys must be unique",
  },
  {
    note: "ref heads build nested objects",
    modules: ["package t\na.b.c := 1\na.b.d := 2\nr[x].y := x if { some x in input.xs }"],
    query: "data.t.a = a; data.t.r = r",
    input: { xs: ["p", "q"] },
    want: [{ a: { b: { c: 1, d: 2 } }, r: { p: { y: "p" }, q: { y: "q" } } }],
  },
  {
    note: "else chain takes the first matching branch",
    modules: ['package t\np := "a" if input.x == 1\nelse := "b" if input.x == 2\nelse := "c"'],
    query: "data.t.p = v",
    input: { x: 2 },
    want: [{ v: "b" }],
  },
  {
    note: "functions with several definitions and patterns",
    modules: ['package t\nf([a, b]) := a if b == 1\nf({"k": v}) := v\np := [f([7, 1]), f({"k": "w"})]'],
    query: "data.t.p = v",
    want: [{ v: [7, "w"] }],
  },
  {
    note: "function conflicting outputs",
    modules: ["package t\nf(x) := 1\nf(x) := 2\np := f(0)"],
    entrypoint: "t/p",
    error: "eval_conflict_error: functions must not produce multiple outputs for same inputs",
  },
  {
    note: "comprehensions",
    modules: ["package t\na := [x | some x in input.xs]\ns := {x | some x in input.xs}\no := {k: v | some k, v in input.xs}"],
    query: "data.t.a = a; data.t.s = s; data.t.o = o",
    input: { xs: [2, 1, 2] },
    want: [{ a: [2, 1, 2], s: [1, 2], o: { "0": 2, "1": 1, "2": 2 } }],
  },
  {
    note: "every and not",
    modules: ['package t\nall_str if every x in input.xs { x == "s" }\nnone if not input.missing'],
    query: "data.t.all_str = a; data.t.none = n",
    input: { xs: ["s", "s"] },
    want: [{ a: true, n: true }],
  },
  { note: "every over empty is true", modules: ["package t\np if every x in [] { x == 1 }"], entrypoint: "t/p", want: [{ result: true }] },
  {
    note: "unification binds through arrays and objects",
    modules: ["package t"],
    query: '[a, {"k": b}] = [1, {"k": [2]}]; [c] = b',
    want: [{ a: 1, b: [2], c: 2 }],
  },
  {
    note: "iteration binds variables, query returns each solution",
    modules: ["package t"],
    query: "input.xs[i] = v",
    input: { xs: ["a", "b"] },
    want: [{ i: 0, v: "a" }, { i: 1, v: "b" }],
  },
  {
    note: "with replaces input and data, only for that expression",
    modules: ["package t\np := input.x\nq := data.base.y"],
    query: "a := data.t.p with input.x as 5; b := data.t.q with data.base.y as 6; c := data.t.p",
    input: { x: 1 },
    data: { base: { y: 2 } },
    want: [{ a: 5, b: 6, c: 1 }],
  },
  {
    note: "with replaces a rule and a function",
    modules: ["package t\nr := 1\nf(x) := x\ng(x) := [x]\np := [r, f(2)]"],
    query: "a := data.t.p with data.t.r as 9 with data.t.f as data.t.g; b := data.t.p",
    want: [{ a: [9, [2]], b: [1, 2] }],
  },
  {
    note: "virtual documents merge with base data",
    modules: ["package a.b\np := 1", "package a.c\nq := 2"],
    query: "x := data.a",
    data: { a: { b: { base: true }, z: 0 } },
    want: [{ x: { b: { base: true, p: 1 }, c: { q: 2 }, z: 0 } }],
  },
  {
    note: "iterating data crosses rules and base data",
    modules: ["package a.b\np := 1\nq := 2"],
    query: "data.a.b[k] = v",
    data: { a: { b: { r: 3 } } },
    want: [{ k: "p", v: 1 }, { k: "q", v: 2 }, { k: "r", v: 3 }],
  },
];

describe("semantics through the opa-wasm SDK", () => {
  for (const r of rows) {
    it(r.note, async () => {
      if (r.error !== undefined) {
        await expect(evaluate(r)).rejects.toThrow(r.error);
        return;
      }
      const got = await evaluate(r);
      expect(got).toEqual(r.want);
    });
  }
});

describe("builtin errors and ABI paths", () => {
  it("strict builtin errors abort with eval_builtin_error; lenient ones are undefined", async () => {
    const modules = ["package t\np := x if x := 1 / input.d"];
    await expect(evaluate({ modules, entrypoint: "t/p", input: { d: 0 }, strict: true })).rejects.toThrow("eval_builtin_error");
    expect(await evaluate({ modules, entrypoint: "t/p", input: { d: 0 } })).toEqual([]);
    expect(await evaluate({ modules, entrypoint: "t/p", input: { d: 2 } })).toEqual([{ result: 0.5 }]);
  });

  it("the legacy (ABI 1.1) evaluation path gives the same results", async () => {
    const { compilePolicy } = await import("../../codegen/compiler/index.js");
    const { emitPolicy } = await import("../../codegen/wasm/emit/index.js");
    const { loadPolicy } = await import("@open-policy-agent/opa-wasm");
    const out = compilePolicy({ modules: [{ file: "a.rego", source: "package t\ns contains x if { some x in input.xs }" }], entrypoints: ["t/s"], stopAfter: "plan" });
    const wasm = emitPolicy(out.plan!, { legacyAbi: true });
    const policy = await loadPolicy(wasm);
    expect(policy.evaluate({ xs: [3, 1, 3] }, "t/s")).toEqual([{ result: [1, 3] }]);
  });
});

describe("safety ordering", () => {
  it("plans an expression after the one that binds what it reads, as OPA reorders", async () => {
    const modules = ["package t\nallow if {\n  input.amount < limit\n  limit = data.limits[input.tool]\n}\np := y if { y = x + 1; x = 2 }\nq contains v if { v > 1; v = [1, 2, 3][_] }"];
    expect(await evaluate({ modules, entrypoint: "t", input: { amount: 5, tool: "a" }, data: { limits: { a: 10 } } })).toEqual([
      { result: { allow: true, p: 3, q: [2, 3] } },
    ]);
  });
});

describe("walk and print", () => {
  it("walk is a relation over [path, value] pairs", async () => {
    const modules = ["package t\npaths contains p if { walk(input, [p, v]); v == 1 }"];
    expect(await evaluate({ modules, entrypoint: "t/paths", input: { x: 1, y: { z: 1 }, w: 2 } })).toEqual([{ result: [["x"], ["y", "z"]] }]);
  });

  it("print is always true, even with undefined operands", async () => {
    const modules = ["package t\nok if { print(\"debug\", input.nope) }"];
    expect(await evaluate({ modules, entrypoint: "t/ok", input: {} })).toEqual([{ result: true }]);
  });
});
