/**
 * Rule-value memoisation (codegen/wasm/emit/memo.ts): a rule, a partial set, a
 * function of no arguments and a function called with constant arguments inside a
 * loop are computed once per evaluation; every evaluation starts with an empty memo, on every path into the
 * module; values under `with` never leak into unmocked references or back.
 * Evaluations are counted in fuel steps (one per scan iteration and function entry).
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { emitPolicy } from "../../codegen/wasm/emit/index.js";
import { loadFastEngine } from "../../src/policy/fast-engine.js";

interface FuelExports {
  toolgate_fuel_budget_set(units: number): void;
  toolgate_fuel_left(): number;
}

interface Built {
  evaluate(input: unknown, entrypoint: string): unknown;
  /** Fuel steps the last `evaluate` took. */
  steps(input: unknown, entrypoint: string): number;
}

function wasmOf(source: string, entrypoints: readonly string[], opts: { memoize?: boolean; legacyAbi?: boolean } = {}): Uint8Array {
  const r = compilePolicy({ modules: [{ file: "q.rego", source }], entrypoints, stopAfter: "plan" });
  if (r.plan === undefined || r.errors.length > 0) throw new Error(JSON.stringify(r.errors));
  return emitPolicy(r.plan, opts);
}

async function build(source: string, entrypoints: readonly string[], opts: { memoize?: boolean; legacyAbi?: boolean } = {}): Promise<Built> {
  const policy = await loadPolicy(wasmOf(source, entrypoints, opts));
  const fuel = (policy.wasmInstance as WebAssembly.Instance).exports as unknown as FuelExports;
  return {
    evaluate: (input, ep) => policy.evaluate(input, ep),
    steps(input, ep) {
      fuel.toolgate_fuel_budget_set(1e12);
      policy.evaluate(input, ep);
      return 1e12 - fuel.toolgate_fuel_left();
    },
  };
}

const LOOPS = `package q
import rego.v1

total := count({x | some x in input.xs})
small contains x if { some x in input.xs; x < 10 }
f() := count({x | some x in input.xs})

by_rule := count([x | some x in input.xs; x < total])
by_set := count([x | some x in input.xs; small[x]])
by_func := count([x | some x in input.xs; x < f()])

above(t) := count({x | some x in input.xs; x > t})
by_constant_call := count([x | some x in input.xs; x < above(0); x != above(1)])
`;

const xs = (n: number): { xs: number[] } => ({ xs: Array.from({ length: n }, (_, i) => i) });

describe("rule-value memoisation", () => {
  for (const [kind, ep, expected] of [
    ["a complete rule", "q/by_rule", 400],
    ["a partial set rule", "q/by_set", 10],
    ["a function of no arguments", "q/by_func", 400],
  ] as const) {
    it(`${kind} referenced in a loop is evaluated once per evaluation`, async () => {
      const n = 400;
      const memo = await build(LOOPS, [ep]);
      expect(memo.evaluate(xs(n), ep)).toEqual([{ result: expected }]);
      const steps = memo.steps(xs(n), ep);
      // The loop (n), the rule's own scan once (n; fuel is spent on that first evaluation), one entry per reference (n).
      expect(steps).toBeGreaterThanOrEqual(2 * n);
      expect(steps).toBeLessThan(3 * n + 20);
      // Without memoisation the rule's scan runs on every iteration: n^2 steps.
      const plain = await build(LOOPS, [ep], { memoize: false });
      expect(plain.evaluate(xs(n), ep)).toEqual([{ result: expected }]);
      expect(plain.steps(xs(n), ep)).toBeGreaterThan(n * n);
    });
  }

  it("a function called with constant arguments in a loop is evaluated once per evaluation and per arguments", async () => {
    const n = 400;
    const ep = "q/by_constant_call";
    const memo = await build(LOOPS, [ep]);
    // above(0) = n - 1 and above(1) = n - 2: x < n - 1 and x != n - 2
    expect(memo.evaluate(xs(n), ep)).toEqual([{ result: n - 2 }]);
    // The loop (n), two calls per iteration (2n), the two scans of `above` once each (2n).
    expect(memo.steps(xs(n), ep)).toBeLessThan(5 * n + 20);
    const plain = await build(LOOPS, [ep], { memoize: false });
    expect(plain.evaluate(xs(n), ep)).toEqual([{ result: n - 2 }]);
    expect(plain.steps(xs(n), ep)).toBeGreaterThan(2 * n * n);
  });

  it("the memo is reset at every evaluation start: the next input gets its own values (opa_eval and the legacy eval ABI)", async () => {
    for (const legacyAbi of [false, true]) {
      const p = await build(LOOPS, ["q/by_rule"], { legacyAbi });
      // The SDK resets the heap between evaluations: the next input sits where the last one did.
      expect(p.evaluate(xs(5), "q/by_rule")).toEqual([{ result: 5 }]);
      expect(p.evaluate({ xs: [0, 1, 2, 2, 2] }, "q/by_rule")).toEqual([{ result: 5 }]);
      expect(p.evaluate({ xs: [7, 8, 9] }, "q/by_rule")).toEqual([{ result: 0 }]);
      expect(p.evaluate(xs(3), "q/by_rule")).toEqual([{ result: 3 }]);
    }
  });

  it("the memo is reset at every evaluation start: the decision export (fast engine) decides each call on its own input", async () => {
    const source = `package toolgate.authz
import rego.v1

limit := count(input.args.allowed)
default decision := {"allow": false, "reason": "over", "requires_approval": false}
decision := {"allow": true, "reason": "ok", "requires_approval": false} if {
  every x in input.args.asked { x < limit }
}
`;
    const engine = await loadFastEngine({ wasm: wasmOf(source, ["toolgate/authz/decision"]), entrypoint: "toolgate/authz/decision", data: {} });
    expect(engine.policy.hasDecisionExport).toBe(true);
    const call = (allowed: number[], asked: number[]): boolean => engine.policy.decide({ args: { allowed, asked } }, engine.entrypointId).allow;
    expect([call([1, 2, 3], [0, 2]), call([1], [0, 2]), call([1, 2, 3, 4], [3]), call([], [0])]).toEqual([true, false, true, false]);
  });
});

const WITH = `package q
import rego.v1

total := count(input.xs)
f() := count(input.xs)
cfg_size := count(data.cfg)

mocked_input := y if { y := total with input.xs as [1] }
mocked_rule := y if { y := total with data.q.total as 100 }
mocked_builtin := y if { y := total with count as 7 }
mocked_func := y if { y := f() with input.xs as [1, 2] }
mocked_data := y if { y := cfg_size with data.cfg as [1, 2, 3, 4] }

plain_then_mocked := [total, mocked_input, mocked_rule, mocked_builtin, total, f(), mocked_func, f(), cfg_size, mocked_data, cfg_size]
mocked_then_plain := [mocked_input, mocked_rule, mocked_builtin, total, mocked_input, mocked_func, f(), mocked_func, mocked_data, cfg_size, mocked_data]

# a different mocked document on every iteration, interleaved with the plain value
per_iteration := [[a, b] | some s in input.sets; a := total with input.xs as s; b := total]
per_iteration_rule := [[a, b] | some s in input.sets; a := total with data.q.total as count(s); b := total]
size_of(k) := count(input[k])
per_iteration_call := [[a, b] | some s in input.sets; a := size_of("xs") with input.xs as s; b := size_of("xs")]
`;

describe("rule-value memoisation under with", () => {
  const input = { xs: [1, 2, 3], sets: [[1], [1, 2], []] };
  const data = { cfg: ["a"] };
  const evaluate = async (ep: string, memoize: boolean): Promise<unknown> => {
    const r = compilePolicy({ modules: [{ file: "q.rego", source: WITH }], entrypoints: [ep], stopAfter: "plan" });
    if (r.plan === undefined || r.errors.length > 0) throw new Error(JSON.stringify(r.errors));
    const p = await loadPolicy(emitPolicy(r.plan, { memoize }));
    p.setData(data);
    return p.evaluate(input, ep);
  };

  it("a mocked value never reaches an unmocked reference, in either order", async () => {
    expect(await evaluate("q/plain_then_mocked", true)).toEqual([{ result: [3, 1, 100, 7, 3, 3, 2, 3, 1, 4, 1] }]);
    expect(await evaluate("q/mocked_then_plain", true)).toEqual([{ result: [1, 100, 7, 3, 1, 2, 3, 2, 4, 1, 4] }]);
  });

  it("a with inside a loop gives each iteration its own value and leaves the plain one alone", async () => {
    expect(await evaluate("q/per_iteration", true)).toEqual([{ result: [[1, 3], [2, 3], [0, 3]] }]);
    expect(await evaluate("q/per_iteration_rule", true)).toEqual([{ result: [[1, 3], [2, 3], [0, 3]] }]);
    expect(await evaluate("q/per_iteration_call", true)).toEqual([{ result: [[1, 3], [2, 3], [0, 3]] }]);
  });

  it("gives the same results as a module built without memoisation", async () => {
    for (const ep of ["q/plain_then_mocked", "q/mocked_then_plain", "q/per_iteration", "q/per_iteration_rule", "q/per_iteration_call"]) {
      expect(await evaluate(ep, true)).toEqual(await evaluate(ep, false));
    }
  });
});
