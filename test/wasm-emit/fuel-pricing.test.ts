/**
 * What fuel pays for: scans by their length, functions that loop or call by one unit
 * at entry (leaf functions by nothing), builtins by the size of their operands and
 * `numbers.range` by the size of its result, each charged before the work, so a
 * runaway policy is stopped within its budget whichever of them it runs away in.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { SECTIONS } from "../../src/policy/abi.js";
import type { FuelSection } from "../../src/policy/abi.js";

interface FuelExports {
  toolgate_fuel_budget_set(units: number): void;
  toolgate_fuel_left(): number;
}

function compile(source: string, entrypoint: string): Uint8Array {
  const r = compilePolicy({ modules: [{ file: "p.rego", source }], entrypoints: [entrypoint] });
  if (r.wasm === null) throw new Error(JSON.stringify(r.errors));
  return r.wasm;
}

async function load(source: string, entrypoint: string) {
  const wasm = compile(source, entrypoint);
  const policy = await loadPolicy(wasm);
  const fuel = (policy.wasmInstance as WebAssembly.Instance).exports as unknown as FuelExports;
  /** Fuel one evaluation of `input` spends (under a budget large enough for it). */
  const steps = (input: unknown): number => {
    fuel.toolgate_fuel_budget_set(1e12);
    policy.evaluate(input, entrypoint);
    return 1e12 - fuel.toolgate_fuel_left();
  };
  const underBudget = (budget: number, input: unknown) => {
    fuel.toolgate_fuel_budget_set(budget);
    return policy.evaluate(input, entrypoint);
  };
  return { wasm, steps, underBudget };
}

function fuelSection(wasm: Uint8Array): FuelSection {
  const sections = WebAssembly.Module.customSections(new WebAssembly.Module(new Uint8Array(wasm)), SECTIONS.fuel);
  expect(sections).toHaveLength(1);
  return JSON.parse(new TextDecoder().decode(sections[0]!)) as FuelSection;
}

const xs = (n: number) => ({ xs: Array.from({ length: n }, (_, i) => i) });
const words = (n: number) => ({ xs: Array.from({ length: n }, (_, i) => `w${i}`) });

describe("fuel pricing", () => {
  it("a builtin over a huge range is stopped by the budget", async () => {
    const src = "package p\nimport rego.v1\n\nn := count(numbers.range(0, input.n))\n";
    const p = await load(src, "p/n");
    expect(p.underBudget(1e6, { n: 1_000 })).toEqual([{ result: 1_001 }]);
    // Without a price on numbers.range this makes two million numbers well inside the budget.
    expect(() => p.underBudget(1e6, { n: 2_000_000 })).toThrow(/^p\.rego:4:\d+: policy_budget_exceeded: /);
    expect(() => p.underBudget(1e6, { n: 100_000_000 })).toThrow(/policy_budget_exceeded/);
    // The range's size is what it costs, whichever way it counts.
    expect(p.steps({ n: 5_000 }) - p.steps({ n: 0 })).toBe(5_000);
    expect(p.steps({ n: -5_000 }) - p.steps({ n: 0 })).toBe(5_000);
  });

  it("a builtin whose work grows with its operand is charged by the operand's size inside a loop", async () => {
    const src = 'package p\nimport rego.v1\n\nn := count([s | some x in input.xs; s := concat(",", input.xs)])\n';
    const p = await load(src, "p/n");
    expect(p.underBudget(1e6, words(100))).toEqual([{ result: 100 }]);
    // 3,000 iterations joining 3,000 strings each: a quadratic amount of work for a linear number of steps.
    expect(() => p.underBudget(1e6, words(3_000))).toThrow(/^p\.rego:4:\d+: policy_budget_exceeded: /);
    expect(p.steps(words(200)) - p.steps(words(100))).toBeGreaterThanOrEqual(200 * 200 - 100 * 100);
  });

  it("long strings cost one unit per 64 bytes; literal strings are priced at build time", async () => {
    const src = 'package p\nimport rego.v1\n\nn := count(split(input.s, ","))\n';
    const p = await load(src, "p/n");
    const long = "a,".repeat(32 * 100); // 6,400 bytes
    expect(p.steps({ s: long }) - p.steps({ s: "a" })).toBe(100);
  });

  it("constant-work builtins are free: arithmetic, comparisons, type tests, membership", async () => {
    const src = "package p\nimport rego.v1\n\nn := count([x | some x in input.xs; is_number(x); x + 1 > 0; x in input.xs])\n";
    const p = await load(src, "p/n");
    // One unit per element of the scan; the entries of the functions on the way are a constant.
    expect(p.steps(xs(2_000)) - p.steps(xs(1_000))).toBe(1_000);
  });

  it("a scan is paid by its length, with one check per scan, not per iteration", async () => {
    const src = "package p\nimport rego.v1\n\nn := count([x | some x in input.xs])\n";
    const p = await load(src, "p/n");
    expect(p.steps(xs(1_000)) - p.steps(xs(0))).toBe(1_000);
    expect(fuelSection(p.wasm).checks.scan).toBe(1);
    // A budget one short of the scan stops it (before its first iteration).
    const need = p.steps(xs(1_000));
    expect(p.underBudget(need, xs(1_000))).toEqual([{ result: 1_000 }]);
    expect(() => p.underBudget(need - 1, xs(1_000))).toThrow(/^p\.rego:4:\d+: policy_budget_exceeded: /);
  });

  it("a leaf function called in a loop costs nothing of its own", async () => {
    const src = "package p\nimport rego.v1\n\ninc(x) := x + 1\n\nn := count([y | some x in input.xs; y := inc(x)])\n";
    const p = await load(src, "p/n");
    // 100 calls of `inc` add nothing to the 100 units of the scan.
    expect(p.steps(xs(200)) - p.steps(xs(100))).toBe(100);
    const section = fuelSection(p.wasm);
    expect(section.functions.unchecked).toBeGreaterThanOrEqual(1);
    expect(section.checks.entry).toBe(section.functions.checked);
  });

  it("a function without loops that calls only leaves has no entry check; one that calls it keeps its own", async () => {
    const src = [
      "package p", "import rego.v1", "",
      "inc(x) := x + 1",
      "twice(x) := inc(inc(x))",
      "quad(x) := twice(twice(x))",
      "",
      "a := [y | some x in input.xs; y := twice(x)]",
      "b := [y | some x in input.xs; y := quad(x)]",
    ].join("\n") + "\n";
    const a = await load(src, "p/a");
    const b = await load(src, "p/b");
    // `twice` calls only the leaf `inc`: nothing per call. `quad` calls `twice`: one unit per call.
    expect(a.steps(xs(200)) - a.steps(xs(100))).toBe(100);
    expect(b.steps(xs(200)) - b.steps(xs(100))).toBe(200);
  });

  it("a memo hit costs no fuel of its own", async () => {
    const src = "package p\nimport rego.v1\n\nbig := [x | some x in input.xs]\n\nn := count([1 | some x in input.ys; count(big) > x])\n";
    const p = await load(src, "p/n");
    const run = (ys: number) => p.steps({ xs: Array.from({ length: 50 }, (_, i) => i), ys: Array.from({ length: ys }, (_, i) => i) });
    // `big` runs once (its 50 units and its entry); every further reference is a hit.
    expect(run(200) - run(100)).toBe(100);
  });

  it("an exponential chain of calls without loops is stopped by the entry checks of functions that call", async () => {
    // f0(x) makes 2^depth calls of the leaf; no scan anywhere.
    const chain = async (depth: number) => {
      const lines = ["package p", "import rego.v1", "", "leaf(x) := x + 1", `f${depth}(x) := leaf(x)`];
      for (let i = depth - 1; i >= 0; i--) lines.push(`f${i}(x) := f${i + 1}(x) + f${i + 1}(x + 1)`);
      lines.push("", "n := f0(input.x)");
      return load(lines.join("\n") + "\n", "p/n");
    };
    const shallow = await chain(4);
    expect(shallow.underBudget(1e6, { x: 0 })).toEqual([{ result: 16 * 1 + 32 }]);
    const deep = await chain(24);
    expect(() => deep.underBudget(1e6, { x: 0 })).toThrow(/^p\.rego:\d+:\d+: policy_budget_exceeded: /);
  });
});
