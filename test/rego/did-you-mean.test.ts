/** "did you mean" hints on undefined functions: OPA builtins, custom builtins, package functions. */
import { describe, expect, it } from "vitest";
import { compileModules } from "../../codegen/rego/index.js";
import { editDistance } from "../../codegen/suggest.js";
import { defineBuiltins } from "../../src/policy/builtins/index.js";

const custom = defineBuiltins({ "regal.last": { args: ["array"], result: "any", impl: (xs: unknown[]) => xs[xs.length - 1] } });
const hintOf = (source: string, withCustom = false): string | undefined => {
  const r = compileModules([{ file: "t.rego", source }], withCustom ? { builtins: custom } : {});
  expect(r.errors).toHaveLength(1);
  expect(r.errors[0]).toMatchObject({ code: "rego_type_error", location: { file: "t.rego", row: 2, col: 6 } });
  return r.errors[0]!.hint;
};

describe("undefined function hints", () => {
  it("a misspelled custom builtin names the custom builtin", () => {
    expect(hintOf("package t\np := regal.lsat([1])", true)).toMatch(/^did you mean `regal\.last`\?/);
  });
  it("without the custom builtins declared there is nothing close", () => {
    expect(hintOf("package t\np := regal.lsat([1])")).toBe("not a builtin, nor a function of this package or an import");
  });
  it("a misspelled OPA builtin names it (a swap of two letters is one edit)", () => {
    expect(hintOf('package t\np := startwith("a", "b")')).toMatch(/^did you mean `startswith`\?/);
    expect(hintOf("package t\np := cuont([1])")).toMatch(/^did you mean `count`\?/);
  });
  it("a misspelled function of the package names it", () => {
    const r = compileModules([{ file: "t.rego", source: "package t\ndouble(x) := x * 2\np := doubel(1)" }]);
    expect(r.errors[0]?.hint).toMatch(/^did you mean `double`\?/);
  });
  it("edit distance counts an adjacent swap once", () => {
    expect(editDistance("cuont", "count")).toBe(1);
    expect(editDistance("abc", "abc")).toBe(0);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });
});

describe("OPA builtins toolgate lacks are named as such, not as unknown functions", () => {
  it.each(["graphql.parse_query", "graphql.schema_is_valid"])("%s", (name) => {
    const r = compileModules([{ file: "t.rego", source: `package t\np := ${name}("x")` }]);
    expect(r.errors[0]).toMatchObject({ code: "rego_type_error", message: `OPA builtin ${name} is not supported yet` });
  });
});
