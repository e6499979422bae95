/**
 * A set or object built out of key order is marked unsorted in the module until
 * something reads it by position; the fast path's reader must not read such a
 * cell in storage order (it hands it to the module's dump, which sorts).
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { FastPolicy } from "../../src/policy/fast-engine.js";

const source = `package big
import rego.v1
names := {x | some x in input.xs}
by_name := {x: i | some i, x in input.xs}
`;

describe("results built out of key order", () => {
  it("read by the fast path exactly as the SDK returns them (sorted)", async () => {
    const r = compilePolicy({ modules: [{ file: "big.rego", source }], entrypoints: ["big/names", "big/by_name"] });
    expect(r.errors).toEqual([]);
    const sdk = await loadPolicy(r.wasm!);
    const fast = await FastPolicy.load(r.wasm!);
    const xs = Array.from({ length: 40 }, (_, i) => `k${String(1000 - i * 7)}`);
    for (const ep of ["big/names", "big/by_name"]) {
      const want = sdk.evaluate({ xs }, ep) as { result: unknown }[];
      const got = fast.evaluate({ xs }, fast.entrypoints[ep]!) as { result: unknown }[];
      expect(JSON.stringify(got)).toBe(JSON.stringify(want));
    }
    expect((sdk.evaluate({ xs }, "big/names") as { result: string[] }[])[0]!.result).toEqual([...xs].sort());
  });
});
