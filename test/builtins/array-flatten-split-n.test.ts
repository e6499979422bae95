/** array.flatten and strings.split_n (OPA v1.13+ builtins), compiled natively and run through the SDK. */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { isUnsupportedOpaBuiltin, lookupBuiltin } from "../../src/policy/builtins/index.js";
import { hostBuiltins } from "../../src/policy/host-builtins/index.js";

async function evalRule(body: string, strict = false): Promise<unknown> {
  const source = `package t\n\n${body}\n`;
  const out = compilePolicy({ modules: [{ file: "t.rego", source }], entrypoints: ["t/r"], optimize: false, strictBuiltinErrors: strict });
  expect(out.errors).toEqual([]);
  const policy = await loadPolicy(out.wasm!, undefined, hostBuiltins);
  const r = policy.evaluate({}, "t/r") as { result: unknown }[];
  return r.length === 0 ? undefined : r[0]!.result;
}

describe("array.flatten", () => {
  it("unpacks array items one level and keeps other items as they are", async () => {
    expect(await evalRule('r := array.flatten([[1, 2], 3, [[4]], {"a": [5]}, [], "s"])')).toEqual([1, 2, 3, [4], { a: [5] }, "s"]);
  });
  it("of an empty array is empty", async () => {
    expect(await evalRule("r := array.flatten([])")).toEqual([]);
  });
  it("is a real OPA builtin, declared and not reported as unsupported", () => {
    expect(lookupBuiltin("array.flatten")?.native).toBe("tg_array_flatten");
    expect(isUnsupportedOpaBuiltin("array.flatten")).toBe(false);
  });
  it("rejects a non-array operand as a type error", async () => {
    const out = compilePolicy({ modules: [{ file: "t.rego", source: 'package t\n\nr := array.flatten("x")\n' }], entrypoints: ["t/r"], optimize: false });
    expect(out.errors.map((e) => e.code)).toContain("rego_type_error");
  });
});

describe("strings.split_n", () => {
  it("returns the first n parts for a positive n", async () => {
    expect(await evalRule('r := strings.split_n("a,b,c,d", ",", 2)')).toEqual(["a", "b"]);
  });
  it("returns the first line for n = 1 (how Regal reads a rule's first line)", async () => {
    expect(await evalRule('r := strings.split_n("line one\\nline two", "\\n", 1)')).toEqual(["line one"]);
  });
  it("returns the last -n parts for a negative n", async () => {
    expect(await evalRule('r := strings.split_n("a,b,c,d", ",", -3)')).toEqual(["b", "c", "d"]);
  });
  it("returns nothing for n = 0 and every part when |n| exceeds their count", async () => {
    expect(await evalRule('r := strings.split_n("a,b", ",", 0)')).toEqual([]);
    expect(await evalRule('r := strings.split_n("a,b", ",", 9)')).toEqual(["a", "b"]);
    expect(await evalRule('r := strings.split_n("a,b", ",", -9)')).toEqual(["a", "b"]);
  });
  it("splits into characters on an empty delimiter, as split does", async () => {
    expect(await evalRule('r := strings.split_n("héllo", "", 2)')).toEqual(["h", "é"]);
  });
  it("refuses a non-integer count (strict errors)", async () => {
    await expect(evalRule("r := strings.split_n(\"a,b\", \",\", 1.5)", true)).rejects.toThrow(/strings\.split_n: operand 3 must be integer/);
  });
});
