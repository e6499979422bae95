/**
 * A variable declared by `some` in a body that mentions it only inside a
 * comprehension (or `every`) body: OPA drops the declaration from the outer body,
 * so the closure binds the variable itself rather than capturing it, and the rule
 * is safe. When the outer body also uses the variable, the closure captures it.
 */
import { describe, expect, it } from "vitest";
import { compileModules } from "../../codegen/rego/index.js";
import { evaluate } from "../wasm-emit/sdk-harness.js";

const value = async (module: string, input?: unknown, rule = "r"): Promise<unknown> => {
  const out = (await evaluate({ modules: [module], query: `x = data.t.${rule}`, input, strict: true })) as { x: unknown }[];
  return out.length === 0 ? "<rule undefined>" : out[0]!.x;
};

const errors = (src: string): string[] => {
  const res = compileModules([{ file: "t.rego", source: src }]);
  return res.errors.map((e) => `${e.code}: ${e.message}`);
};

const input = { s: [{ p: ["a", "c"] }, { p: ["d"] }] };

describe("a `some` var bound only inside a comprehension", () => {
  it("is safe, and the comprehension binds it over every value (the minimal case)", async () => {
    const src = `package t
r contains n if { some i; names = {x | some j; x := input.s[i].p[j]}; some n in {"a", "b", "d"}; not n in names }`;
    expect(errors(src)).toEqual([]);
    expect(await value(src, input)).toEqual(["b"]);
  });

  it("each of two comprehensions binds it independently", async () => {
    const src = `package t
r := [a, b] if { some i; a := {x | x := input.s[i].p[0]}; b := count([y | y := input.s[i]]) }`;
    expect(errors(src)).toEqual([]);
    expect(await value(src, input)).toEqual([["a", "d"], 2]);
  });

  it("in nested comprehensions, the outermost body that mentions it owns it", async () => {
    const middle = `package t
r := out if { some k; out := {c | input.s[k]; c := count([x | x := input.s[k].p[_]])} }`;
    expect(errors(middle)).toEqual([]);
    expect(await value(middle, input)).toEqual([1, 2]);
    const innermost = `package t
r := out if { some k; out := {c | c := count([x | x := input.s[k].p[_]])} }`;
    expect(errors(innermost)).toEqual([]);
    expect(await value(innermost, input)).toEqual([3]);
    const keyOnly = `package t
r := out if { some k; out := {k: c | c := count([x | x := input.s[k].p[_]])} }`;
    expect(errors(keyOnly)).toContain("rego_unsafe_var_error: var k is unsafe");
  });

  it("in an every body", async () => {
    const src = `package t
r if { some i; every x in ["a", "d"] { x == input.s[i].p[_] } }`;
    expect(errors(src)).toEqual([]);
    expect(await value(src, input)).toBe(true);
  });

  it("is captured when the outer body uses it too", async () => {
    const src = `package t
r contains [i, c] if { some i; input.s[i]; c := count([x | x := input.s[i].p[_]]) }`;
    expect(errors(src)).toEqual([]);
    expect(await value(src, input)).toEqual([[0, 2], [1, 1]]);
  });

  it("stays unsafe when the head reads it", () => {
    const src = `package t
r contains i if { some i; names := {x | x := input.s[i]}; count(names) > 0 }`;
    expect(errors(src)).toContain("rego_unsafe_var_error: var i is unsafe");
  });
});
