/**
 * OPA's newest syntax: template strings (OPA 1.12), `not { ... }` bodies with
 * `import future.keywords.not` (OPA 1.17), `and` / `or` with their imports
 * (OPA 1.20). Each semantic case compiles and runs in the opa-wasm SDK.
 */
import { describe, expect, it } from "vitest";
import { compileModules, parseModule } from "../../codegen/rego/index.js";
import { formatSource } from "../../codegen/rego/format/index.js";
import { roundTrip } from "../fmt/roundtrip.js";
import { evaluate } from "../wasm-emit/sdk-harness.js";

const NOT = "import future.keywords.not\n";
const AND_OR = "import future.keywords.and\nimport future.keywords.or\n";
const value = async (module: string, input?: unknown, rule = "p"): Promise<unknown> => {
  const out = (await evaluate({ modules: [module], query: `x = data.t.${rule}`, input, strict: true })) as { x: unknown }[];
  return out.length === 0 ? "<rule undefined>" : out[0]!.x;
};

describe("template strings", () => {
  it.each([
    ['name := "bob"\np := $"hi {name}!"', "hi bob!"],
    ['p := $"a{input.missing}b"', "a<undefined>b"],
    ['p := $"a{never}b"\nnever if false', "a<undefined>b"],
    ['p := $"{n}" if { some n in [5] }', "5"],
    ['p := $"{1} {2.5} {true} {null} {"s"}"', "1 2.5 true null s"],
    ['p := $"{[1, "a"]} {{"k": "v"}}"', '[1, "a"] {"k": "v"}'],
    ['p := $"{concat(".", ["a", "b"])}:{count([1, 2]) + 1}"', "a.b:3"],
    ['p := $"{input.x == 1}/{input.x > 1}"', "false/true"],
    ['p := $"\\{x} \\"q\\" \\u0041\\t|"', '{x} "q" A\t|'],
    ['p := $""', ""],
    ['p := $`raw {input.x} \\{x} "q" \\n`', 'raw 2 {x} "q" \\n'],
    ['p := $`two\nlines {input.x}`', "two\nlines 2"],
    ['p := $"{[x | some x in [1, 2]]}"', "[1, 2]"],
    ['p := $"outer {$"inner {input.x}"}"', "outer inner 2"],
  ])("%s", async (rule, want) => {
    expect(await value(`package t\n${rule}`, { x: 2 })).toBe(want);
  });

  it("interpolates function arguments and body variables", async () => {
    const m = 'package t\ngreet(n) := $"hello {n}"\np := msg if { who := input.who; msg := $"{greet(who)} ({count(who)})" }';
    expect(await value(m, { who: "ann" })).toBe("hello ann (3)");
  });

  it("a template used as a set key or in a comparison", async () => {
    const m = 'package t\nq contains $"item-{x}" if some x in [1, 2]\np if $"{input.x}" == "2"';
    expect(await value(m, { x: 2 }, "q")).toEqual(["item-1", "item-2"]);
    expect(await value(m, { x: 2 })).toBe(true);
    expect(await value(m, { x: 3 })).toBe("<rule undefined>");
  });

  it("an interpolation with more than one value is an error", async () => {
    await expect(value('package t\np := $"{input.xs[_]}"', { xs: [1, 2] })).rejects.toThrow(/template-strings must not produce multiple outputs/);
    expect(await value('package t\np := $"{input.xs[_]}"', { xs: [7] })).toBe("7");
  });

  it("an unsafe variable inside an interpolation is reported where it is", () => {
    const r = compileModules([{ file: "t.rego", source: 'package t\np := $"{y}"' }]);
    expect(r.errors).toMatchObject([{ code: "rego_unsafe_var_error", message: "var y is unsafe", location: { row: 2, col: 9 } }]);
  });

  it.each([
    ['p := $"x{}"', "empty template expression", 2, 10],
    ['p := $"x{1}', "non-terminated template string", 2, 11],
    ['p := $"x\ny"', "non-terminated template string", 2, 6],
    ["p := $`x{1 + }`", "unexpected } token", 2, 14],
    ['p := $"x{1 2}"', "unexpected number token: expected } to close the template expression", 2, 12],
  ])("%s is a located parse error", (rule, message, row, col) => {
    const r = parseModule(`package t\n${rule}`, "t.rego");
    expect(r.errors[0]).toMatchObject({ code: "rego_parse_error", message, location: { file: "t.rego", row, col } });
  });
});

describe("not { ... } bodies (import future.keywords.not)", () => {
  const m = `package t\n${NOT}a if f([1, 2, 3])\nb if f([1, 0, 3])\nc if not {\n\ttrue\n\tfalse\n}\nf(lst) if not {\n\tsome x in lst\n\tx == 0\n}`;

  it("holds when the body has no solution (OPA's own example)", async () => {
    expect(await value(m, undefined, "a")).toBe(true);
    expect(await value(m, undefined, "b")).toBe("<rule undefined>");
    expect(await value(m, undefined, "c")).toBe(true);
  });

  it("reads variables of the enclosing body; its own stay inside", async () => {
    const src = `package t\n${NOT}p if {\n\tlimit := input.limit\n\tnot {\n\t\tsome x in input.xs\n\t\tx > limit\n\t}\n}\nq := [x | some x in [1, 2]; not { x == 2 }]`;
    expect(await value(src, { limit: 3, xs: [1, 2] })).toBe(true);
    expect(await value(src, { limit: 1, xs: [1, 2] })).toBe("<rule undefined>");
    expect(await value(src, {}, "q")).toEqual([1]);
  });

  it("a with modifier applies to the whole body", async () => {
    const src = `package t\n${NOT}p if not { input.x == 1; true } with input as {"x": 2}`;
    expect(await value(src, { x: 1 })).toBe(true);
  });

  it("negation of an expression keeps its nested calls inside the negation", async () => {
    expect(await value(`package t\n${NOT}p if not count(input.missing) > 0`, {})).toBe(true);
    expect(await value(`package t\n${NOT}p if not startswith(input.s, lower("A"))`, { s: "abc" })).toBe("<rule undefined>");
  });

  it("`not {` is a set term without the import", () => {
    const r = parseModule("package t\np if not { true; false }", "t.rego");
    expect(r.errors[0]).toMatchObject({ code: "rego_parse_error", message: "unexpected ; token: non-terminated set", location: { row: 2, col: 16 } });
    expect(parseModule(`package t\nimport future.keywords\np if not { true; false }`, "t.rego").errors).toEqual([]);
  });
});

describe("and / or (import future.keywords.and / .or)", () => {
  it.each([
    [{ a: true }, true, "<rule undefined>"],
    [{ b: true }, true, "<rule undefined>"],
    [{ a: true, b: true }, true, true],
    [{ a: false, b: true }, true, "<rule undefined>"],
    [{}, "<rule undefined>", "<rule undefined>"],
  ])("input %j: or %j, and %j", async (input, or, and) => {
    const src = `package t\n${AND_OR}p if input.a or input.b\nq if input.a and input.b`;
    expect(await value(src, input)).toBe(or);
    expect(await value(src, input, "q")).toBe(and);
  });

  it("and binds tighter than or; braced operands are bodies of their own", async () => {
    const src = `package t\n${AND_OR}p if {\n\tinput.x == 1 or {\n\t\ty := input.y\n\t\ty == 2\n\t} and input.z\n}`;
    expect(await value(src, { x: 1 })).toBe(true);
    expect(await value(src, { y: 2, z: true })).toBe(true);
    expect(await value(src, { y: 2 })).toBe("<rule undefined>");
    expect(await value(src, { y: 3, z: true })).toBe("<rule undefined>");
  });

  it("operands read the enclosing body's variables; an operand may continue on the next line", async () => {
    const src = `package t\n${AND_OR}p contains n if {\n\tsome n in input.ns\n\tn > 10 or\n\t\tn < 0\n}`;
    expect(await value(src, { ns: [-1, 5, 11] })).toEqual([-1, 11]);
  });

  it("a with after the last operand applies to the whole expression; on an inner operand it is an error", async () => {
    const src = `package t\n${AND_OR}p if input.a or input.b with input as {"b": true}`;
    expect(await value(src, {})).toBe(true);
    const bad = parseModule(`package t\n${AND_OR}p if input.a with input as {} or input.b`, "t.rego");
    expect(bad.errors[0]).toMatchObject({ message: "`with` modifier is not allowed on operand of `or`", location: { row: 4, col: 14 } });
  });

  it("parentheses group and / or; not (...) negates a group", async () => {
    const src = `package t\n${NOT}${AND_OR}p if (input.a or input.b) and input.c\nq if not (input.a or input.b)`;
    expect(await value(src, { b: true, c: true })).toBe(true);
    expect(await value(src, { a: true })).toBe("<rule undefined>");
    expect(await value(src, {}, "q")).toBe(true);
    expect(await value(src, { a: true }, "q")).toBe("<rule undefined>");
    expect(await value(`package t\n${AND_OR}p := (1 + 2) * 3`)).toBe(9);
  });

  it("or(...) and and(...) in a term position are still the set builtins", async () => {
    expect(await value(`package t\n${AND_OR}p := or({1}, {2})\nq := and({1, 2}, {2})`)).toEqual([1, 2]);
  });

  it("`and` and `or` stay names without their imports", async () => {
    expect(await value("package t\nor := 1\nand := 2\np := or + and")).toBe(3);
    expect(parseModule(`package t\n${AND_OR}or := 1`, "t.rego").errors[0]).toMatchObject({ message: "unexpected or keyword: expected rule name" });
  });

  it("an unknown future keyword is still rejected", () => {
    expect(parseModule("package t\nimport future.keywords.maybe\np := 1", "t.rego").errors[0]?.message).toBe(
      "invalid import future.keywords.maybe: must be one of [and contains every if in not or]",
    );
  });
});

describe("fmt prints the new syntax back", () => {
  const src = [
    "package t",
    "",
    "import future.keywords.and",
    "import future.keywords.not",
    "import future.keywords.or",
    "",
    'p := $"hi {input.name}, {concat(",", ["a", "b"])} \\{lit} \\"q\\""',
    "",
    "q := $`raw {input.x} \\{x}`",
    "",
    "r if {",
    "\tnot {",
    "\t\tsome x in input.xs",
    "\t\tx == 0",
    "\t}",
    "\tinput.a or {",
    "\t\ty := input.y",
    "\t\ty == 2",
    "\t} and input.c",
    "\t[x | x := 1; not {x == 2}]",
    "\tinput.a or input.b with input as {}",
    "\t(input.a or input.b) and not (input.c or input.d)",
    "}",
    "",
    "s if input.a or input.b",
    "",
  ].join("\n");

  it("a set union first in a collection keeps its parentheses (else it reads as a comprehension)", () => {
    const src = "package t\n\np := [(a | b), a | b]\n\nq := {(a | b), 1}\n\nr := {\"k\": (a | b), \"l\": a | b}\n\ns := {(a | b): 1}\n";
    const r = formatSource(src, "t.rego");
    expect(r.ok && r.text).toBe(src);
    expect(roundTrip(src, "t.rego")).toMatchObject({ kind: "checked", sameAst: true });
  });

  it("canonical text stays as it is", () => {
    const r = formatSource(src, "t.rego");
    expect(r.ok && r.text).toBe(src);
  });

  it("parsing the output gives the same AST, and formatting is idempotent", () => {
    const r = roundTrip(src.replaceAll("\t", "  "), "t.rego");
    expect(r).toMatchObject({ kind: "checked", sameAst: true });
    if (r.kind === "checked") expect(r.second).toBe(r.first);
  });
});
