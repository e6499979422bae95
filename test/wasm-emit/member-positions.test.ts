/**
 * Member lookups with a guessed index (codegen/wasm/emit/member-positions.ts): the
 * emitter reads the key at the index a projected input would have it at and takes
 * the value only when that key is the name's very static cell. Every way the guess
 * can be wrong must still find the right member: members left out (later ones move
 * up), extra members (the fast engine's whole-input route, the SDK's parsed input,
 * whose keys are other cells), other types at the path, and policy-built objects
 * holding the same names at other indices.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { memberPositions } from "../../codegen/wasm/emit/member-positions.js";
import type { PolicyInput } from "../../src/policy/engine.js";
import { FastPolicy, loadFastEngine } from "../../src/policy/fast-engine.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";

describe("memberPositions", () => {
  it("is the index among the projected object's names in the runtime's order, input's own members first", () => {
    const at = memberPositions({ "p/d": { b: true, a: { z: true, y: true }, é: true, c: { y: true, x: true, w: true } } });
    expect([at("a", true), at("b", true), at("c", true), at("é", true)]).toEqual([0, 1, 2, 3]);
    // y is 0 under a, 1 under c: a tie goes to the lower index.
    expect([at("z", false), at("y", false), at("w", false), at("x", false)]).toEqual([1, 0, 0, 1]);
    expect(at("nope", true)).toBeUndefined();
    expect(at("a", false)).toBe(0);
  });
});

const POLICY = `package p

local_obj := {"w": "lw", "x": "lx", "y": "ly", "z": "lz"}

echo := [input.a, input.m.w, input.m.x, input.m.y, input.m.z, input.n.y, local_obj.y, local_obj.z]

decision := {"allow": true, "reason": json.marshal(echo), "requires_approval": false} if echo
decision := {"allow": false, "reason": "partial", "requires_approval": false} if not echo
`;

async function engines() {
  const r = compilePolicy({ modules: [{ file: "p.rego", source: POLICY }], entrypoints: ["p/decision"] });
  expect(r.errors).toEqual([]);
  const fast = await loadFastEngine({ wasm: r.wasm!, entrypoint: "p/decision" });
  const sdk = await loadOpaWasmEngine({ wasm: r.wasm!, entrypoint: "p/decision" });
  const plain = await FastPolicy.load(r.wasm!, { templates: false });
  return { fast, sdk, plain };
}

describe("guessed member lookups", () => {
  it("find the right member wherever the host put it", async () => {
    const { fast, sdk, plain } = await engines();
    expect(fast.policy.usesTemplate(fast.entrypointId)).toBe(true);
    const full = { a: "A", m: { w: "W", x: "X", y: "Y", z: "Z" }, n: { y: "NY" } };
    const want = JSON.stringify(["A", "W", "X", "Y", "Z", "NY", "ly", "lz"]);
    const cases: [unknown, string][] = [
      [full, want],
      // w absent: x, y, z sit one index earlier than guessed.
      [{ ...full, m: { x: "X", y: "Y", z: "Z" } }, "partial"],
      [{ ...full, m: { a: "a", b: "b", c: "c", w: "W", x: "X", y: "Y", z: "Z" } }, want],
      [{ ...full, m: { y: "Y", w: "W", z: "Z", x: "X", extra: 1 } }, want],
      [{ ...full, m: ["W", "X", "Y", "Z"] }, "partial"],
      [{ ...full, m: "WXYZ" }, "partial"],
      [{ ...full, n: { x: "y", y: "NY" } }, want],
      [{ b: 1, ...full }, want],
    ];
    for (const [input, reason] of cases) {
      const i = input as PolicyInput;
      expect([input, fast.decide(i).reason]).toEqual([input, reason]);
      expect([input, (await sdk.evaluate(i)).reason]).toEqual([input, reason]);
      expect([input, plain.decide(input, fast.entrypointId).reason]).toEqual([input, reason]);
    }
  });
});
