/**
 * Fuel checks in the emitted module: one unit per scan iteration and per function
 * entry, refilled at the start of every plan; the module loads in the unmodified
 * opa-wasm SDK and is unlimited until a host sets a budget.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";

const SRC = `package q
import rego.v1

n := count([x | some x in input.xs])
`;

interface FuelExports {
  toolgate_fuel_budget_set(units: number): void;
  toolgate_fuel_left(): number;
}

async function load(fuel = true) {
  const r = compilePolicy({ modules: [{ file: "q.rego", source: SRC }], entrypoints: ["q/n"], fuel });
  if (r.wasm === null) throw new Error(JSON.stringify(r.errors));
  const policy = await loadPolicy(r.wasm);
  const exports = (policy.wasmInstance as WebAssembly.Instance).exports as unknown as Partial<FuelExports>;
  return { policy, exports };
}

const xs = (n: number) => ({ xs: Array.from({ length: n }, (_, i) => i) });

describe("fuel checks", () => {
  it("the unmodified SDK evaluates without a bound until a budget is set", async () => {
    const { policy, exports } = await load();
    expect(policy.evaluate(xs(50_000), "q/n")).toEqual([{ result: 50_000 }]);
    expect(exports.toolgate_fuel_left!()).toBeGreaterThan(2 ** 62);
  });

  it("a budget allows exactly that many steps; one fewer aborts at the loop with policy_budget_exceeded", async () => {
    const { policy, exports } = await load();
    exports.toolgate_fuel_budget_set!(1e9);
    policy.evaluate(xs(100), "q/n");
    const steps = 1e9 - exports.toolgate_fuel_left!();
    // 100 iterations of the scan plus the entries of the functions on the way.
    expect(steps).toBeGreaterThanOrEqual(100);
    expect(steps).toBeLessThan(110);

    exports.toolgate_fuel_budget_set!(steps);
    expect(policy.evaluate(xs(100), "q/n")).toEqual([{ result: 100 }]);
    expect(exports.toolgate_fuel_left!()).toBe(0);

    exports.toolgate_fuel_budget_set!(steps - 1);
    expect(() => policy.evaluate(xs(100), "q/n")).toThrow(/^q\.rego:4:\d+: policy_budget_exceeded: /);
    expect(exports.toolgate_fuel_left!()).toBeLessThan(0);

    // The next evaluation starts with a full tank.
    expect(policy.evaluate(xs(10), "q/n")).toEqual([{ result: 10 }]);
    expect(exports.toolgate_fuel_left!()).toBeGreaterThanOrEqual(0);
  });

  it("Infinity is unlimited; zero, negatives and NaN stop at the first step", async () => {
    const { policy, exports } = await load();
    exports.toolgate_fuel_budget_set!(Infinity);
    expect(policy.evaluate(xs(1_000), "q/n")).toEqual([{ result: 1_000 }]);
    for (const none of [0, -5, Number.NaN]) {
      exports.toolgate_fuel_budget_set!(none);
      expect(() => policy.evaluate(xs(1), "q/n")).toThrow(/policy_budget_exceeded/);
    }
  });

  it("a module built without fuel checks has no fuel exports", async () => {
    const { policy, exports } = await load(false);
    expect(exports.toolgate_fuel_budget_set).toBeUndefined();
    expect(exports.toolgate_fuel_left).toBeUndefined();
    expect(policy.evaluate(xs(3), "q/n")).toEqual([{ result: 3 }]);
  });
});
