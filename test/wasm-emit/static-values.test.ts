/**
 * Ground values laid out once in static data: they decide as the values built at run
 * time did, sets and object keys are in the runtime's order (lookups and membership
 * find every member), and they stay intact across evaluations whose operations would
 * mutate a fresh value in place (object.union, set union, template objects).
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { printPolicy } from "../../codegen/plan/print.js";
import { hostBuiltins } from "../../src/policy/host-builtins/index.js";

async function load(source: string, entrypoint: string) {
  const out = compilePolicy({ modules: [{ file: "t.rego", source }], entrypoints: [entrypoint] });
  if (out.wasm === null) throw new Error(JSON.stringify(out.errors));
  return loadPolicy(out.wasm, undefined, hostBuiltins);
}

const MUTATING = `package t
base := {"a": 1, "b": {"c": 2}}
letters := {"x", "y"}
tmpl(r) := {"k": 1, "r": r, "z": [1, 2]}
out := {
  "base": base,
  "union": object.union(base, input.o),
  "letters": letters | {s | some s in input.s},
  "pair": [tmpl(input.v), tmpl("w")],
  "again": letters,
}
`;

describe("static values", () => {
  it("static values stay intact after evaluations that would mutate a fresh copy", async () => {
    const p = await load(MUTATING, "t/out");
    const first = p.evaluate({ o: { a: 9, b: { d: 4 }, e: 5 }, s: ["z", "a"], v: "one" }, "t/out");
    expect(first).toEqual([{ result: {
      base: { a: 1, b: { c: 2 } },
      union: { a: 9, b: { c: 2, d: 4 }, e: 5 },
      letters: ["a", "x", "y", "z"],
      pair: [{ k: 1, r: "one", z: [1, 2] }, { k: 1, r: "w", z: [1, 2] }],
      again: ["x", "y"],
    } }]);
    for (let i = 0; i < 3; i++) {
      const later = p.evaluate({ o: {}, s: [], v: i }, "t/out");
      expect(later).toEqual([{ result: {
        base: { a: 1, b: { c: 2 } },
        union: { a: 1, b: { c: 2 } },
        letters: ["x", "y"],
        pair: [{ k: 1, r: i, z: [1, 2] }, { k: 1, r: "w", z: [1, 2] }],
        again: ["x", "y"],
      } }]);
    }
  });

  it("static sets and objects are laid out in the runtime's order: every member is found", async () => {
    // U+FF01 sorts before U+1F600 in UTF-8 bytes but after it in UTF-16 code units.
    const src = `package t
s := {3, "b", 1, null, true, false, [1], {"k": 1}, "a", -2, "\uFF01", "\u{1F600}"}
o := {"b": 1, "a": 2, "ab": 3, "\uFF01": 4, "\u{1F600}": 5, "A": 6}
r := {"in": [x | some x in input.xs; x in s], "get": [o[k] | some k in input.ks], "n": count(s), "s": s}
`;
    const p = await load(src, "t/r");
    const xs = [3, "b", 1, null, true, false, [1], { k: 1 }, "a", -2, "\uFF01", "\u{1F600}", 2, "c"];
    const ks = ["b", "a", "ab", "\uFF01", "\u{1F600}", "A", "zz"];
    const [{ result }] = p.evaluate({ xs, ks }, "t/r") as [{ result: { in: unknown[]; get: unknown[]; n: number; s: unknown[] } }];
    expect(result.in).toEqual(xs.slice(0, 12));
    expect(result.get).toEqual([1, 2, 3, 4, 5, 6]);
    expect(result.n).toBe(12);
    expect(result.s).toEqual([null, false, true, -2, 1, 3, "a", "b", "\uFF01", "\u{1F600}", [1], { k: 1 }]);
  });

  it("a ground set in a rule body is one static value, not built per evaluation", () => {
    const out = compilePolicy({
      modules: [{ file: "t.rego", source: 'package t\neffects := {"read", "write"}\np if input.e in effects\nq := {"allow": false, "reason": input.r}' }],
      entrypoints: ["t/p", "t/q"],
      stopAfter: "plan",
    });
    const text = printPolicy(out.plan!);
    expect(text).toMatch(/= const #\d+/);
    expect(text).not.toMatch(/= set$/m);
    // The object with one non-ground member: a copy of a static template, one insert.
    expect(text).toMatch(/= copy of const #\d+/);
    expect(text).not.toMatch(/insert %\d+\["allow"\]/);
    expect(text).toMatch(/insert %\d+\["reason"\]/);
  });
});
