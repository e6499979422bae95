import { describe, expect, it } from "vitest";
import { compileModules, compileQuery, parseQuery, prettyGroup, prettyQuery } from "../../codegen/rego/index.js";
import type { Program, RuleGroup } from "../../codegen/rego/index.js";

function compile(src: string, extra: { file: string; source: string }[] = []): Program {
  const r = compileModules([{ file: "t.rego", source: `package t\n${src}` }, ...extra]);
  expect(r.errors).toEqual([]);
  return r.program!;
}

function group(p: Program, name: string): RuleGroup {
  const g = p.groups.find((x) => x.path.join(".") === name);
  expect(g, name).toBeDefined();
  return g!;
}

/** Pretty dump with generated names replaced by their order of appearance (stable across changes). */
function dump(g: RuleGroup): string {
  const names = new Map<string, string>();
  return prettyGroup(g).replace(/__local\d+__/g, (m) => {
    if (!names.has(m)) names.set(m, `$${names.size}`);
    return names.get(m)!;
  });
}

describe("compile: errors (code, message, row:col)", () => {
  const table: { note: string; src: string; want: [string, string, number, number][] }[] = [
    { note: "unsafe head var", src: "p := x if { y := 1 }", want: [["rego_unsafe_var_error", "var x is unsafe", 2, 6]] },
    { note: "unsafe var in negation", src: "q contains 1\np if { not q[x] }", want: [["rego_unsafe_var_error", "var x is unsafe", 3, 14]] },
    { note: "unsafe call input", src: "p if { count(xs) > 1 }", want: [["rego_unsafe_var_error", "var xs is unsafe", 2, 14]] },
    { note: "unsafe comprehension term", src: "p := [x | y := 1]", want: [["rego_unsafe_var_error", "var x is unsafe", 2, 7]] },
    { note: "assigned twice", src: "p if {\n  x := 1\n  x := 2\n}", want: [["rego_compile_error", "var x assigned above", 4, 3]] },
    { note: "declared twice", src: "p if {\n  some x\n  some x\n  x = 1\n}", want: [["rego_compile_error", "var x declared above", 4, 8]] },
    { note: "referenced then assigned", src: "p if {\n  x > 0\n  x := 1\n}", want: [["rego_compile_error", "var x referenced above", 4, 3]] },
    { note: "assign to input", src: "p if { input := 1 }", want: [["rego_compile_error", "cannot assign to input", 2, 8]] },
    { note: "undefined function", src: "p if { nope(1) }", want: [["rego_type_error", "undefined function nope", 2, 8]] },
    { note: "nested builtin arity", src: "p if { x := object.get({}, 1); x }", want: [["rego_type_error", "object.get: arity mismatch: have 2 arguments, want 3", 2, 13]] },
    { note: "top-level builtin arity", src: "p if { count([1], 2, 3) }", want: [["rego_type_error", "count: arity mismatch: have 3 arguments, want 1", 2, 8]] },
    { note: "literal argument type", src: 'p := 1 + "a"', want: [["rego_type_error", "plus: invalid argument(s): have (number, string), want (number, number)", 2, 6]] },
    { note: "function arity", src: "f(x) := x\np := f(1, 2, 3)", want: [["rego_type_error", "data.t.f: arity mismatch: have 3 arguments, want 1", 3, 6]] },
    { note: "type settled through a local", src: 'p if { x := "a"; y := x + 1; y }', want: [["rego_type_error", "plus: invalid argument(s): have (string, number), want (number, number)", 2, 23]] },
    { note: "type settled by a builtin result", src: 'p if { n := count([1]); startswith(n, "a") }', want: [["rego_type_error", "startswith: invalid argument(s): have (number, string), want (string, string)", 2, 25]] },
    { note: "deprecated builtin", src: "p if { any([true]) }", want: [["rego_type_error", "deprecated built-in function calls in expression: any", 2, 8]] },
    { note: "input as a parameter", src: "f(input) := 1", want: [["rego_compile_error", "variables must not shadow input (reserved name)", 2, 3]] },
    { note: "data as a some var", src: "q if { some data; data = 1 }", want: [["rego_compile_error", "variables must not shadow data (reserved name)", 2, 13]] },
    { note: "conflicting kinds", src: "p := 1\np contains 2", want: [["rego_type_error", "conflicting rules data.t.p found (single-value and multi-value rules)", 3, 1]] },
    { note: "rule below a complete rule", src: "p := 1\np.q := 2\nr.s := 1\nr.t := 2", want: [["rego_type_error", "rule data.t.p conflicts with [data.t.p.q]", 2, 1]] },
    { note: "multiple defaults", src: "default p := 1\ndefault p := 2", want: [["rego_type_error", "multiple default rules data.t.p found", 3, 1]] },
    { note: "self recursion", src: "p if p", want: [["rego_recursion_error", "rule data.t.p is recursive: data.t.p -> data.t.p", 2, 1]] },
    {
      note: "mutual recursion through a function",
      src: "p := f(1)\nf(x) := p",
      want: [
        ["rego_recursion_error", "rule data.t.p is recursive: data.t.p -> data.t.f -> data.t.p", 2, 1],
        ["rego_recursion_error", "function data.t.f is recursive: data.t.f -> data.t.p -> data.t.f", 3, 1],
      ],
    },
    { note: "duplicate import alias", src: "import data.a.x\nimport data.b.x\np := x", want: [["rego_compile_error", "import must not shadow import data.a.x", 3, 1]] },
    { note: "bad with target", src: "p if { true with foo as 1 }", want: [["rego_compile_error", "with keyword target must reference existing input, data, or a function", 2, 13]] },
  ];
  for (const c of table) {
    it(c.note, () => {
      const r = compileModules([{ file: "t.rego", source: `package t\n${c.src}` }]);
      expect(r.program).toBeNull();
      expect(r.errors.map((e) => [e.code, e.message, e.location.row, e.location.col])).toEqual(c.want);
    });
  }

  it("caps errors at 10 per file and sorts them", () => {
    const src = Array.from({ length: 12 }, (_, i) => `p${i} := x${i}`).join("\n");
    const r = compileModules([{ file: "a.rego", source: `package t\n${src}` }, { file: "b.rego", source: "package u\nq := y" }]);
    expect(r.errors.filter((e) => e.location.file === "a.rego")).toHaveLength(10);
    expect(r.errors.filter((e) => e.location.file === "b.rego")).toHaveLength(1);
    const rows = r.errors.filter((e) => e.location.file === "a.rego").map((e) => e.location.row);
    expect(rows).toEqual([...rows].sort((a, b) => a - b));
  });

  it("accepts what OPA accepts", () => {
    const ok = [
      "p if { not q[_] }\nq contains 1",
      "p := y if { [x, y] := [1, 2]; x > 0 }",
      "p if { some x in [1]; x == 1 }",
      "f(x, x) := x",
      "f([a, b]) := a + b",
      "p if { count([1]) == 1 with count as sum }",
      "p := x if { x := time.now_ns() with time.now_ns as opa.runtime }",
      "p if { every x in input.xs { x > y } ; y = 0 }",
      "p := [x | x := input.xs[_]; x > y] if y := 1",
      "p if { data.s[[x, y]]; x > y }",
    ];
    for (const src of ok) {
      const r = compileModules([{ file: "t.rego", source: `package t\n${src}` }]);
      expect(r.errors, src).toEqual([]);
    }
  });
});

describe("compile: program shape", () => {
  it("groups rules by absolute path with their kinds", () => {
    const p = compile(
      [
        "default allow := false",
        "allow if input.ok",
        "s contains 1",
        "o[k] := 1 if some k in input.ks",
        "a.b[c].d := 1 if c := input.c",
        "f(x) := x",
      ].join("\n"),
    );
    expect(p.groups.map((g) => `${g.path.join(".")}:${g.kind}:${g.rules.length}:${g.default === null ? 0 : 1}`)).toEqual([
      "data.t.a.b:ref_value:1:0",
      "data.t.allow:complete:1:1",
      "data.t.f:function:1:0",
      "data.t.o:partial_object:1:0",
      "data.t.s:partial_set:1:0",
    ]);
    expect(p.packages).toEqual([["data", "t"]]);
  });

  it("resolves imports and package names to absolute refs, lifts calls, orders for safety", () => {
    const p = compile(
      ["import data.lib.limits as lim", "q := 2", "p := n if {", "  n > lim.max", "  n = count(input.xs) + q", "}"].join("\n"),
    );
    expect(dump(group(p, "data.t.p"))).toBe(
      [
        "# data.t.p (complete)",
        "data.t.p := $0 if {",
        "  count(input.xs, $1)  # binds $1",
        "  plus($1, data.t.q, $2)  # binds $2",
        "  eq($0, $2)  # binds $0",
        "  gt($0, data.lib.limits.max)",
        "}",
      ].join("\n"),
    );
    expect(p.builtinsUsed).toEqual(["count", "eq", "gt", "plus"]);
  });

  it("desugars some-in, not, every, comprehensions and with", () => {
    const p = compile(
      [
        "p if {",
        "  some k, v in input.m",
        "  not startswith(k, lower(v))",
        "  every x in input.xs { x != k }",
        "  ys := {y | some y in input.ys; y > v}",
        "  count(ys) > 0 with input.ys as [upper(k)]",
        "}",
      ].join("\n"),
    );
    expect(dump(group(p, "data.t.p"))).toBe(
      [
        "# data.t.p (complete)",
        "data.t.p := true if {",
        "  eq($0, input.m[$1])  # binds $1, $0",
        "  lower($0, $2)  # binds $2",
        "  not { /*captures $1,$2*/",
        "    startswith($1, $2)",
        "  }",
        "  every $3, $4 in input.xs { /*captures $1*/",
        "    neq($4, $1)",
        "  }",
        "  eq($5, {$6 | eq($6, input.ys[$7])  # binds $7, $6; gt($6, $0)} /*captures $0*/)  # binds $5",
        "  upper($1, $8)  # binds $8",
        "  count($5, $9) with input.ys as [$8]  # binds $9",
        "  gt($9, 0) with input.ys as [$8]",
        "}",
      ].join("\n"),
    );
  });

  it("gives function parameters one var per position across else links", () => {
    const p = compile("f(x, [a, b]) := a if { x > 0 } else := b");
    const f = group(p, "data.t.f");
    expect(f.arity).toBe(2);
    const rule = f.rules[0]!;
    expect(rule.args.every((a) => a.type === "var")).toBe(true);
    expect(dump(f)).toBe(
      [
        "# data.t.f (function/2)",
        "data.t.f($0, $1) := $2 if {",
        "  eq($1, [$2, $3])  # binds $2, $3",
        "  gt($0, 0)",
        "} else := $4 if {",
        "  eq($1, [$5, $4])  # binds $5, $4",
        "}",
      ].join("\n"),
    );
  });

  it("lifts refs out of rule heads", () => {
    const p = compile("q := xs[_] if xs := [1]");
    expect(dump(group(p, "data.t.q"))).toBe(["# data.t.q (complete)", "data.t.q := $0 if {", "  eq($1, [1])  # binds $1", "  eq($0, $1[$2])  # binds $2, $0", "}"].join("\n"));
  });

  it("renames source locals, even ones spelled like generated names", () => {
    const p = compile("p contains x if { __local0__ = [1]; count(__local0__, x) }");
    const r = group(p, "data.t.p").rules[0]!;
    expect(Object.values(r.varNames).sort()).toEqual(["__local0__", "x"]);
    expect(Object.keys(r.varNames)).not.toContain("__local0__");
  });
});

describe("compileQuery", () => {
  it("keeps user variable names, in order of appearance", () => {
    const p = compile("f(x) := x + 1\ns contains 1");
    const q = compileQuery(p, parseQuery("y := data.t.f(1); data.t.s[z]; not z == y").body!);
    expect(q.errors).toEqual([]);
    expect(q.query!.vars).toEqual(["y", "z"]);
    expect(prettyQuery(q.query!)).toContain("data.t.f(1, __localq0__)");
  });

  it("never hands out a generated name the query already uses", () => {
    const p = compile("p := 1");
    const q = compileQuery(p, parseQuery("__localq0__ := 1; y := count([__localq0__])").body!);
    expect(q.errors).toEqual([]);
    expect(q.query!.vars).toEqual(["__localq0__", "y"]);
    expect(prettyQuery(q.query!)).toContain("count([__localq0__], __localq1__)");
  });

  it("reports unsafe query variables", () => {
    const p = compile("p := 1");
    const q = compileQuery(p, parseQuery("x > 1").body!);
    expect(q.errors.map((e) => e.message)).toEqual(["var x is unsafe"]);
  });
});
