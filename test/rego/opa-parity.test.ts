/**
 * Front-end behaviours matched to OPA's compiler and parser (v1/ast/parser.go,
 * v1/ast/compile.go, topdown's error texts), each compiled and run in the opa-wasm SDK
 * or checked for OPA's error code, text and location.
 */
import { describe, expect, it } from "vitest";
import { compileModules } from "../../codegen/rego/index.js";
import { evaluate } from "../wasm-emit/sdk-harness.js";

const value = async (module: string, input?: unknown, rule = "p"): Promise<unknown> => {
  const out = (await evaluate({ modules: [module], query: `x = data.t.${rule}`, input, strict: true })) as { x: unknown }[];
  return out.length === 0 ? "<rule undefined>" : out[0]!.x;
};

describe("plain not lifts the nested calls of its operands (OPA's expression-term rewrite)", () => {
  it("an undefined nested call fails the body instead of making the negation hold", async () => {
    expect(await value("package t\np if not count(input.missing) > 0", {})).toBe("<rule undefined>");
    expect(await value("package t\np if not startswith(input.s, lower(input.missing))", { s: "abc" })).toBe("<rule undefined>");
    expect(await value("package t\np if not f(g(input.x))\nf(x) if x == 2\ng(x) := x + 1", { x: 5 })).toBe(true);
    expect(await value("package t\np if not f(g(input.x))\nf(x) if x == 2\ng(x) := x + 1 if x > 3", { x: 1 })).toBe("<rule undefined>");
  });

  it("a defined nested call still negates the outer expression", async () => {
    expect(await value("package t\np if not startswith(input.s, lower(\"X\"))", { s: "abc" })).toBe(true);
    expect(await value("package t\np if not startswith(input.s, lower(\"A\"))", { s: "abc" })).toBe("<rule undefined>");
  });

  it("a ref operand's nested call is lifted as well", async () => {
    expect(await value("package t\np if not input.xs[count(input.missing)]", { xs: [1] })).toBe("<rule undefined>");
    expect(await value("package t\np if not input.xs[count(input.ys)]", { xs: [1], ys: [1] })).toBe(true);
  });

  it("under import future.keywords.not the whole expression stays inside the negation", async () => {
    expect(await value("package t\nimport future.keywords.not\np if not count(input.missing) > 0", {})).toBe(true);
  });
});

describe("a template string with several values is OPA's conflict error", () => {
  const src = 'package t\np := $"{input.xs[_]}"';
  it("eval_conflict_error with OPA's text, strict or not", async () => {
    for (const strict of [true, false]) {
      const run = evaluate({ modules: [src], query: "x = data.t.p", input: { xs: [1, 2] }, strict });
      await expect(run).rejects.toThrow(/^eval_conflict_error: template-strings must not produce multiple outputs$/);
    }
  });
  it("one value renders", async () => {
    expect(await value(src, { xs: [1] })).toBe("1");
  });
});

describe("a comprehension body that fails at a comma is re-read as a list (OPA's parser fallback)", () => {
  it("[x | y, 5] is an array whose first item is the union x | y", async () => {
    expect(await value("package t\nx := {1}\ny := {2}\np := [x | y, 5]")).toEqual([[1, 2], 5]);
  });
  it("{x | y, 5} is a set whose first item is the union x | y", async () => {
    expect(await value("package t\nx := {1}\ny := {2}\np := {x | y, 5}")).toEqual([5, [1, 2]]);
  });
  it("a comprehension still wins when its body parses", async () => {
    expect(await value("package t\np := [x | some x in [3, 4]]")).toEqual([3, 4]);
  });
});

describe("Rego v1 rule statements need a body or a value (OPA's ParseRuleFromExpr)", () => {
  const errorOf = (src: string, regoVersion?: "v0") => compileModules([{ file: "t.rego", source: src, ...(regoVersion === undefined ? {} : { regoVersion }) }]).errors.map((e) => [e.code, e.message, e.location.row, e.location.col]);
  it.each([
    ["p", "rule must have a body"],
    ["p.a.b", "rule must have a body"],
    ["p.a", "`contains` keyword is required for partial set rules"],
    ["p[x]", "`contains` keyword is required for partial set rules"],
  ])("%s", (rule, message) => {
    expect(errorOf(`package t\n\n${rule}\n`)).toEqual([["rego_parse_error", message, 3, 1]]);
  });
  it("pre-1.0 Rego still reads them as rules", async () => {
    expect(errorOf("package t\n\np\n\nq.a\n", "v0")).toEqual([]);
  });
});

describe("`:=` assigns variables only", () => {
  const errorOf = (body: string) => compileModules([{ file: "t.rego", source: `package t\n\np if {\n\t${body}\n}\n` }]).errors.map((e) => [e.code, e.message, e.location.row, e.location.col]);
  it("a constant on the left is OPA's `cannot assign to <type>`", () => {
    expect(errorOf("1 := x")).toEqual([["rego_compile_error", "cannot assign to number", 4, 2]]);
    expect(errorOf('[y, "a"] := [1, "a"]')).toEqual([["rego_compile_error", "cannot assign to string", 4, 6]]);
  });
  it("variables, wildcards and object values are assignable", () => {
    expect(errorOf("[_, y] := [1, 2]\n\ty == 2")).toEqual([]);
    expect(errorOf('{"a": y} := {"a": 1}\n\ty == 1')).toEqual([]);
  });
});

describe("a comprehension's head refs are evaluated in its body (OPA's rewriteComprehensionTerms)", () => {
  it("a wildcard in a head ref iterates instead of being unsafe", async () => {
    expect(await value('package t\np := {["a", "b"][_]: 1 | true}')).toEqual({ a: 1, b: 1 });
    expect(await value("package t\np := {input.xs[_] | true}", { xs: [2, 1] })).toEqual([1, 2]);
  });
  it("an undefined head ref skips that element", async () => {
    expect(await value("package t\np := [input.xs[i] | some i in [0, 5]]", { xs: [7] })).toEqual([7]);
  });
});

describe("`or` without its import is a name, so `x = 1 or y` is a parse error", () => {
  it.each(["p if { x = 1 or y }", "p if x = 1 or y", "p := 1 if { input.a or input.b }"])("%s", (rule) => {
    const r = compileModules([{ file: "t.rego", source: `package t\n${rule}` }]);
    expect(r.errors[0]).toMatchObject({ code: "rego_parse_error", location: { file: "t.rego", row: 2 } });
    expect(r.errors[0]!.message).toMatch(/^unexpected ident token: expected/);
  });
});

describe("a number, boolean or null in a data ref names no rule", () => {
  it("data[1] inside package data.test is no recursion (OPA's rule tree has string keys only)", () => {
    const r = compileModules([{ file: "t.rego", source: "package test\na := [data[1], data.test[2], data.test[true]]" }]);
    expect(r.errors).toEqual([]);
    expect(r.program).not.toBeNull();
  });
  it("a variable key may still reach the rule itself", () => {
    const r = compileModules([{ file: "t.rego", source: 'package test\na := [data.test[x] | x := "a"]' }]);
    expect(r.errors[0]).toMatchObject({ code: "rego_recursion_error" });
  });
});

describe("comprehensions as with values", () => {
  it.each([
    "p if count(input.x) == 2 with input.x as [y | some y in [1, 2]]",
    "p if {\n\tcount(input.x) == 2 with input.x as {k: v |\n\t\tsome k, v in {\"a\": 1, \"b\": 2}\n\t}\n}",
    "p if {\n\tx := count(input.x) with input.x as {y | y := [3, 4][_]}\n\tx == 2\n}",
  ])("%s", async (rule) => {
    expect(await value(`package t\n${rule}`, {})).toBe(true);
  });
});

describe("pre-1.0 Rego: import rego.v1 and import future.keywords exclude each other", () => {
  const errorsOf = (imports: string, regoVersion?: "v0") =>
    compileModules([{ file: "t.rego", source: `package t\n\n${imports}\n`, ...(regoVersion === undefined ? {} : { regoVersion }) }]).errors.map((e) => [e.code, e.message, e.location.row, e.location.col]);
  const MSG = "the `rego.v1` import implies `future.keywords`, these are therefore mutually exclusive";
  it("either order is OPA's parse error at the second import's path", () => {
    expect(errorsOf("import rego.v1\nimport future.keywords.in", "v0")).toEqual([["rego_parse_error", MSG, 4, 8]]);
    expect(errorsOf("import future.keywords.in\nimport rego.v1", "v0")).toEqual([["rego_parse_error", MSG, 4, 8]]);
  });
  it("in Rego v1 both are no-ops; rego.v1 twice is fine", () => {
    expect(errorsOf("import rego.v1\nimport future.keywords.in")).toEqual([]);
    expect(errorsOf("import rego.v1\nimport rego.v1", "v0")).toEqual([]);
  });
});
