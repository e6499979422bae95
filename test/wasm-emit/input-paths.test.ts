/**
 * The compiler's record of what input an entrypoint can read (codegen/wasm/emit/input-paths.ts):
 * static member reads become paths, anything that may look at a whole value marks it whole,
 * and a comparison with a scalar constant or a type test does not.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { inputPaths } from "../../codegen/wasm/emit/input-paths.js";
import { SECTIONS } from "../../src/policy/abi.js";
import type { InputPaths } from "../../src/policy/abi.js";

function paths(body: string, entry = "p/r"): InputPaths {
  const r = compilePolicy({ modules: [{ file: "p.rego", source: `package p\n\n${body}\n` }], entrypoints: [entry], stopAfter: "plan" });
  expect(r.errors).toEqual([]);
  return inputPaths(r.plan!)[entry]!;
}

describe("input paths of a plan", () => {
  it("static member reads are paths; a type test or a comparison with a constant reads no members", () => {
    expect(paths(`r if {\n\tinput.a.b == "x"\n\tis_object(input.c)\n\tinput.d == null\n}`)).toEqual({ a: { b: {} }, c: {}, d: {} });
  });

  it("a dynamic key, a scan, a builtin, a comparison with a non-constant, a result read whole", () => {
    expect(paths(`r if input.a[input.k] == 1`)).toEqual({ a: true, k: {} });
    expect(paths(`r if { some x in input.xs; x == 1 }`)).toEqual({ xs: true });
    expect(paths(`r := count(input.o)`)).toEqual({ o: true });
    expect(paths(`r if input.a == input.b`)).toEqual({ a: true, b: true });
    expect(paths(`r if input.a == data.x`)).toEqual({ a: true });
    expect(paths(`r := input.o`)).toEqual({ o: true });
  });

  it("the whole input when the plan uses it whole (a root scan, with, the document itself)", () => {
    expect(paths(`r if { some k, _ in input; k == "a" }`)).toBe(true);
    expect(paths(`r := input`)).toBe(true);
    expect(paths(`q if input.a == 1\n\nr if q with input as {"a": 1}`)).toBe(true);
  });

  it("follows values through function arguments and results", () => {
    // A function's value is assigned once per call and compared with earlier ones: read whole.
    expect(paths(`f(x) := x.m\n\nr if f(input.a) == "v"`)).toEqual({ a: { m: true } });
    expect(paths(`f(x) if x.m == "v"\n\nr if f(input.a)`)).toEqual({ a: { m: {} } });
    expect(paths(`g := input.o\n\nr if g.k == 1`)).toEqual({ o: true });
  });

  it("members named like Object.prototype properties are members like any other", () => {
    const t = paths(`r if {\n\tinput.__proto__.x == 1\n\tinput.toString == "s"\n}`) as Record<string, unknown>;
    expect(Object.keys(t).sort()).toEqual(["__proto__", "toString"]);
    expect(JSON.parse(JSON.stringify(t))).toEqual(JSON.parse('{"__proto__": {"x": {}}, "toString": {}}'));
  });

  it("policies/authz.rego reads approval, principal and version members, not context or the approver", async () => {
    const { readFileSync } = await import("node:fs");
    const r = compilePolicy({ modules: [{ file: "policies/authz.rego", source: readFileSync("policies/authz.rego", "utf8") }], entrypoints: ["toolgate/authz/decision"] });
    expect(r.errors).toEqual([]);
    const section = WebAssembly.Module.customSections(new WebAssembly.Module(r.wasm! as Uint8Array<ArrayBuffer>), SECTIONS.inputPaths);
    expect(section).toHaveLength(1);
    const parsed = JSON.parse(new TextDecoder().decode(section[0])) as { version: number; entrypoints: Record<string, Record<string, unknown>>; keys: Record<string, number> };
    expect(parsed.version).toBe(1);
    const tree = parsed.entrypoints["toolgate/authz/decision"]!;
    expect(tree.args).toBe(true); // `input.args[field]` with a field from data
    expect(tree.context).toBeUndefined();
    expect(Object.keys(tree.approval as object)).not.toContain("approver");
    expect(tree.principal).toEqual({ tenant: true, user: {}, roles: true });
    expect(Object.keys(parsed.keys)).toContain("principal");
  });
});
