/**
 * Calls the planner evaluates at compile time (codegen/plan/ground-call.ts): a
 * function of one unconditional definition called with scalar literals, whose value
 * with the arguments substituted is ground, becomes a constant. Everything else stays
 * a call, and either way the module computes the same value.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { printPolicy } from "../../codegen/plan/print.js";
import { FastPolicy } from "../../src/policy/fast-engine.js";

function planned(rego: string, opts: { coverage?: boolean } = {}): string {
  const out = compilePolicy({ modules: [{ file: "t.rego", source: `package t\n\n${rego}\n` }], entrypoints: ["t/p"], stopAfter: "plan", ...opts });
  expect(out.errors).toEqual([]);
  return printPolicy(out.plan!);
}

async function value(rego: string, input: unknown = {}): Promise<unknown> {
  const out = compilePolicy({ modules: [{ file: "t.rego", source: `package t\n\n${rego}\n` }], entrypoints: ["t/p"] });
  expect(out.errors).toEqual([]);
  const p = await FastPolicy.load(out.wasm!);
  const rs = p.evaluate(input, p.entrypoints["t/p"]!) as { result: unknown }[];
  return rs.length === 1 ? rs[0]!.result : undefined;
}

const callsF = (plan: string): boolean => plan.includes("call g0.data.t.f(");

describe("compile-time calls", () => {
  it("a literal call of a one-line function is a constant", async () => {
    const rego = `f(r) := {"allow": false, "reason": r, "n": [r, 1, null]}\np := f("why")`;
    const plan = planned(rego);
    expect(callsF(plan)).toBe(false);
    expect(plan).toMatch(/= const #\d+/);
    expect(await value(rego)).toEqual({ allow: false, reason: "why", n: ["why", 1, null] });
  });

  it("several parameters, numbers and keys from parameters", async () => {
    const rego = `f(k, v, b) := {k: v, "b": b}\np := [f("a", 7, true), f("c", 4294967297, null)]`;
    expect(callsF(planned(rego))).toBe(false);
    expect(await value(rego)).toEqual([{ a: 7, b: true }, { c: 4294967297, b: null }]);
  });

  it.each([
    ["an argument that is not a literal", `f(x) := [x]\np := f(input.x)`, { x: 1 }, [1]],
    ["a condition in the body", `f(x) := [x] if input.ok\np := f(1)`, { ok: true }, [1]],
    ["two definitions", `f(x) := 1 if x == 1\nf(x) := 2 if x == 2\np := f(2)`, {}, 2],
    ["an else", `f(x) := 1 if false else := 2\np := f(1)`, {}, 2],
    ["a value reading input", `f(x) := [x, input.y]\np := f(1)`, { y: 2 }, [1, 2]],
    ["a set value", `f(x) := {x, "a"}\np := f("a")`, {}, ["a"]],
    ["a float", `f(x) := [x]\np := f(1.5)`, {}, [1.5]],
    ["a repeated key after substitution", `f(k) := {k: 1, "a": 1}\np := f("a")`, {}, { a: 1 }],
  ])("stays a call: %s", async (_note, rego, input, want) => {
    expect(callsF(planned(rego))).toBe(true);
    expect(await value(rego, input)).toEqual(want);
  });

  it("a mocked function is not folded: the mock applies", async () => {
    expect(await value(`f(x) := [x]\ng(x) := [x, x]\np := y if {\n\ty := f(1) with data.t.f as data.t.g\n}`)).toEqual([1, 1]);
  });

  it("stays a call when coverage is recorded (the function's lines are reached)", () => {
    expect(callsF(planned(`f(x) := [x]\np := f(1)`, { coverage: true }))).toBe(true);
  });
});
