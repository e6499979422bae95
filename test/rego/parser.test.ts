import { describe, expect, it } from "vitest";
import type { Expr, Rule } from "../../codegen/rego/ast.js";
import { parseModule, parseQuery, parseTerm } from "../../codegen/rego/parser.js";
import { prettyExpr, prettyTerm } from "../../codegen/rego/pretty.js";

function term(src: string): string {
  const r = parseTerm(src);
  expect(r.errors).toEqual([]);
  return prettyTerm(r.term!);
}

function query(src: string): string[] {
  const r = parseQuery(src);
  expect(r.errors).toEqual([]);
  return r.body!.map((e: Expr) => prettyExpr(e, ""));
}

function rules(src: string): Rule[] {
  const r = parseModule(`package t\n${src}`, "t.rego");
  expect(r.errors).toEqual([]);
  return [...r.module!.rules];
}

describe("parser: terms and precedence (OPA: in < comparison < | < & < + - < * / %)", () => {
  const table: [string, string][] = [
    ["1 + 2 * 3", "plus(1, mul(2, 3))"],
    ["1 - 2 - 3", "minus(minus(1, 2), 3)"],
    ["a | b & c", "or(a, and(b, c))"],
    ["a + b == c | d", "equal(plus(a, b), or(c, d))"],
    ["x in xs == true", "internal.member_2(x, equal(xs, true))"],
    ["-1.5e3", "-1.5e3"],
    ["- x", "minus(0, x)"],
    ["(1 + 2) * 3", "mul(plus(1, 2), 3)"],
    ["data.a[i].b", "data.a[i].b"],
    ['x["y z"]', 'x["y z"]'],
    ["object.get(o, k, null)", "object.get(o, k, null)"],
    ["f(x)[0].y", "f(x)[0].y"],
    ["set()", "set()"],
    ["{}", "{}"],
    ['{"a": 1, "b": [2, 3]}', '{"a": 1, "b": [2, 3]}'],
    ["{1, 2,}", "{1, 2}"],
    ["[x | x := xs[_]]", "[x | assign(x, xs[_])]"],
    ["{x | some x in xs}", "{x | some x in xs}"],
    ["{k: v | some k, v in o}", "{k: v | some k, v in o}"],
    ["{a | b}", "{a | b}"],
    ["`raw\\n`", '"raw\\\\n"'],
    ["12345678901234567890123", "12345678901234567890123"],
    ['{"foo": {{1}}}', '{"foo": {{1}}}'],
  ];
  for (const [src, want] of table) it(src, () => expect(term(src)).toBe(want));
});

describe("parser: expressions", () => {
  const table: [string, string[]][] = [
    ["x := 1; y = 2", ["assign(x, 1)", "eq(y, 2)"]],
    ["x == 1\ny != 2", ["equal(x, 1)", "neq(y, 2)"]],
    ["not p[x]", ["not p[x]"]],
    ["some x, y", ["some x, y"]],
    ["some x in xs", ["some x in xs"]],
    ["some k, v in {1: 2}", ["some k, v in {1: 2}"]],
    ["k, v in o", ["internal.member_3(k, v, o)"]],
    ["count(xs, n)", ["count(xs, n)"]],
    ["p with input.a as 1 with data.b as {}", ["p with input.a as 1 with data.b as {}"]],
    ["every x in xs { x > 0 }", ["every x in xs {\n  gt(x, 0)\n}"]],
  ];
  for (const [src, want] of table) it(src, () => expect(query(src)).toEqual(want));
});

describe("parser: rules", () => {
  it("reads every head kind", () => {
    const rs = rules(
      [
        "default allow := false",
        "allow if input.ok",
        "p := 1",
        "q contains x if { some x in input.xs }",
        "o[k] := v if { some k, v in input.m }",
        "a.b[c].d := 1 if { c := 1 }",
        "f(x, y) := x + y",
        'g(x) if x == "a"',
        "h(x) := 1 if { x > 0 } else := 2 if { x < 0 } else := 3",
      ].join("\n"),
    );
    expect(rs.map((r) => `${r.default ? "default " : ""}${r.head.kind}:${r.head.ref.map(prettyTerm).join("/")}`)).toEqual([
      "default value:allow",
      "value:allow",
      "value:p",
      "contains:q",
      "value:o/k",
      'value:a/"b"/c/"d"',
      "function:f",
      "function:g",
      "function:h",
    ]);
    const h = rs[8]!;
    expect(h.else?.value).toMatchObject({ type: "number", text: "2" });
    expect(h.else?.else?.value).toMatchObject({ type: "number", text: "3" });
    expect(h.else?.else?.body).toHaveLength(1);
  });

  it("reads package paths and imports", () => {
    const r = parseModule('package a.b["c-d"]\nimport rego.v1\nimport data.x.y as z\nimport input.u\n', "t.rego");
    expect(r.errors).toEqual([]);
    expect(r.module!.package.path).toEqual(["data", "a", "b", "c-d"]);
    expect(r.module!.imports.map((i) => [i.path.join("."), i.alias])).toEqual([
      ["rego.v1", null],
      ["data.x.y", "z"],
      ["input.u", null],
    ]);
  });

  it("treats `if {` followed by a term as a single-literal body", () => {
    const rs = rules('f(x) := 1 if {x: 1 | x := ["a"][_]}');
    expect(rs[0]!.body).toHaveLength(1);
  });
});

describe("parser: errors", () => {
  const table: [string, string, number, number][] = [
    ["package t\np { true }", "`if` keyword is required before rule body: this file is written in pre-1.0 Rego (v0)", 2, 3],
    ["package t\np := [1,", "unexpected eof token", 2, 9],
    ["package t\np := $\"x{}\"", "empty template expression", 2, 10],
    ["package t\np := $\"x{1}", "non-terminated template string", 2, 11],
    ["package t\np if {}", "found empty body", 2, 6],
    ["package t\ndefault p := x", "illegal default rule (value cannot contain var)", 2, 1],
    ["p := 1", "unexpected ident token: expected package", 1, 1],
    ["package t\np := 1 q := 2", "unexpected ident token: expected end of statement", 2, 8],
  ];
  for (const [src, msg, row, col] of table) {
    it(msg, () => {
      const r = parseModule(src, "t.rego");
      expect(r.errors[0]).toMatchObject({ code: "rego_parse_error", message: msg, location: { file: "t.rego", row, col } });
    });
  }

  it("reports an error per broken rule and keeps going", () => {
    const r = parseModule("package t\np := [1,\nq := 2\nr := ]\ns := 3", "t.rego");
    expect(r.errors.map((e) => e.location.row)).toEqual([3, 4]);
    expect(r.module!.rules.map((x) => prettyTerm(x.head.ref[0]!))).toEqual(["s"]);
  });

  it("caps errors at 10, sorted by position", () => {
    const src = "package t\n" + Array.from({ length: 15 }, (_, i) => `p${i} := ]`).join("\n");
    const r = parseModule(src, "t.rego");
    expect(r.errors).toHaveLength(10);
    expect(r.errors.map((e) => e.location.row)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it("rejects deep nesting without overflowing the stack", () => {
    const r = parseTerm("[".repeat(5000) + "]".repeat(5000));
    expect(r.term).toBeNull();
    expect(r.errors[0]?.code).toBe("rego_parse_error");
  });
});
