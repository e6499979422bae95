/** object.subset as OPA documents it: objects recursively, sets by membership, arrays as a contiguous run, array ⊇ set. */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { hostBuiltins } from "../../src/policy/host-builtins/index.js";

async function evalRule(body: string, strict = false): Promise<unknown> {
  const out = compilePolicy({ modules: [{ file: "t.rego", source: `package t\n\n${body}\n` }], entrypoints: ["t/r"], optimize: false, strictBuiltinErrors: strict });
  expect(out.errors).toEqual([]);
  const policy = await loadPolicy(out.wasm!, undefined, hostBuiltins);
  const r = policy.evaluate(JSON.parse('{"n": [1, 2]}'), "t/r") as { result: unknown }[];
  return r.length === 0 ? undefined : r[0]!.result;
}

describe("object.subset", () => {
  it("objects: every key of sub in super with the same value, recursing into objects and sets (OPA's example)", async () => {
    expect(await evalRule('r := object.subset({"a": "b", "c": {"x": {10, 15, 20, 25}, "y": "z"}}, {"c": {"x": {10, 15, 20}}})')).toBe(true);
    expect(await evalRule('r := object.subset({"a": 1}, {"a": 2})')).toBe(false);
    expect(await evalRule('r := object.subset({"a": 1}, {"b": 1})')).toBe(false);
    expect(await evalRule('r := object.subset({"a": [1, 2, 3]}, {"a": [2, 3]})')).toBe(true);
  });
  it("sets by membership; arrays only as a contiguous run in order", async () => {
    expect(await evalRule("r := object.subset({1, 2, 3}, {3, 1})")).toBe(true);
    expect(await evalRule("r := object.subset({1, 2}, {4})")).toBe(false);
    expect(await evalRule("r := object.subset([1, 2, 3, 4], [2, 3])")).toBe(true);
    expect(await evalRule("r := object.subset([1, 2, 3, 4], [2, 4])")).toBe(false);
    expect(await evalRule("r := object.subset([1, 2], [])")).toBe(true);
  });
  it("an array super and a set sub: every element, in any order", async () => {
    expect(await evalRule("r := object.subset([3, 1, 2], {1, 3})")).toBe(true);
    expect(await evalRule("r := object.subset(input.n, {5})")).toBe(false);
  });
  it("other type pairs are a type error", async () => {
    await expect(evalRule('r := object.subset({"a": 1}, input.n)', true)).rejects.toThrow(/object\.subset: both arguments to object\.subset must be of the same type or array and set/);
  });
});
