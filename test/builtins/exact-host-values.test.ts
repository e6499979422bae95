/**
 * Exact host builtins (json.patch, json.filter, json.remove): operands reach JavaScript
 * with sets as sets, object keys of any type and numbers digit for digit, and results come
 * back the same way; OPA's documented behaviour, which plain JSON operands could not give.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { createHostBuiltins } from "../../src/policy/host-builtins/index.js";
import { parseExact, RegoNumber, RegoObject, RegoSet, writeExact } from "../../src/policy/host-builtins/exact-value.js";

async function evalRule(body: string): Promise<unknown> {
  const out = compilePolicy({ modules: [{ file: "t.rego", source: `package t\n\n${body}\n` }], entrypoints: ["t/r"], optimize: false });
  expect(out.errors).toEqual([]);
  const host = createHostBuiltins();
  const policy = await loadPolicy(out.wasm!, undefined, host.builtins);
  const r = policy.evaluate({}, "t/r") as { result: unknown }[];
  return r.length === 0 ? undefined : r[0]!.result;
}

describe("sets reach json.filter / json.remove / json.patch as sets", () => {
  it("json.filter keeps a set a set, its members addressed by value", async () => {
    expect(await evalRule('r := json.filter({"a": {1, 2, 3}, "b": 0}, [["a", 1], ["a", 3]]) == {"a": {1, 3}}')).toBe(true);
  });
  it("json.remove drops a set member by value and leaves a set", async () => {
    expect(await evalRule('r := json.remove({"a": {1, 2}}, [["a", 2]]) == {"a": {1}}')).toBe(true);
  });
  it("json.patch adds to a set, and removes a member addressed by value", async () => {
    expect(await evalRule('r := json.patch({"a": {1}}, [{"op": "add", "path": ["a", 2], "value": 2}]) == {"a": {1, 2}}')).toBe(true);
    expect(await evalRule('r := json.patch({"a": {"x", "y"}}, [{"op": "remove", "path": "/a/x"}]) == {"a": {"y"}}')).toBe(true);
  });
  it("paths given as a set work", async () => {
    expect(await evalRule('r := json.remove({"a": 1, "b": 2}, {"a"})')).toEqual({ b: 2 });
  });
});

describe("object keys of any type", () => {
  it("json.remove addresses a number key by value", async () => {
    expect(await evalRule('r := json.remove({1: "a", 2: "b"}, [[1]]) == {2: "b"}')).toBe(true);
  });
});

describe("numbers keep their spelling", () => {
  it("json.patch takes an integral number as an array index and refuses a fractional one (undefined)", async () => {
    expect(await evalRule('r := json.patch([1, 2], [{"op": "remove", "path": [1.5]}])')).toBeUndefined();
    expect(await evalRule('r := json.patch([1, 2], [{"op": "remove", "path": [1]}])')).toEqual([1]);
  });
  it("an integer beyond 2^53 comes back with every digit", async () => {
    expect(await evalRule('r := json.marshal(json.patch({}, [{"op": "add", "path": "/a", "value": 123456789012345678901}]))')).toBe('{"a":123456789012345678901}');
    expect(await evalRule('r := json.marshal(json.filter({"a": 9007199254740993, "b": 1}, ["a"]))')).toBe('{"a":9007199254740993}');
  });
});

describe("the protocol's text", () => {
  it("round-trips sets, tagged objects and number spellings", () => {
    const text = '{"o":[[1.0,{"s":["x",2]}],["k",[123456789012345678901]]]}';
    const v = parseExact(text);
    expect(v).toBeInstanceOf(RegoObject);
    const [[k, set]] = (v as RegoObject).entries;
    expect((k as RegoNumber).text).toBe("1.0");
    expect(set).toBeInstanceOf(RegoSet);
    expect(writeExact(v)).toBe(text);
  });
  it("rejects malformed text", () => {
    expect(() => parseExact('{"x":[]}')).toThrow(/malformed exact operand/);
  });
});
