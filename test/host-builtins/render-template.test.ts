/** strings.render_template: Go text/template with OPA's missingkey=error, values printed as Go prints them. */
import { describe, expect, it } from "vitest";
import { evaluate } from "../wasm-emit/sdk-harness.js";
import { call } from "./helpers.js";

const render = (template: string, vars: unknown): unknown => call("strings.render_template", template, vars);

describe("strings.render_template", () => {
  it.each([
    ["fields and nested fields", "hi {{.user.name}}!", { user: { name: "ann" } }, "hi ann!"],
    ["numbers print as written (json.Number)", "{{.a}} {{.b}}", { a: 1, b: 2.5 }, "1 2.5"],
    ["maps and arrays print as Go's %v", "{{.m}} {{.xs}}", { m: { b: 2, a: [1, "x"] }, xs: [true, null] }, "map[a:[1 x] b:2] [true <nil>]"],
    ["null prints <no value>", "{{.z}}", { z: null }, "<no value>"],
    ["range over an array with index and value", "{{range $i, $v := .xs}}{{$i}}={{$v}} {{end}}", { xs: ["a", "b"] }, "0=a 1=b "],
    ["range over a map in key order", "{{range $k, $v := .m}}{{$k}}:{{$v}},{{end}}", { m: { b: 2, a: 1 } }, "a:1,b:2,"],
    ["range else for an empty collection", "{{range .xs}}x{{else}}none{{end}}", { xs: [] }, "none"],
    ["if / else if / else", '{{if eq .s "x"}}X{{else if eq .s "y"}}Y{{else}}Z{{end}}', { s: "y" }, "Y"],
    ["with sets dot", "{{with .a}}{{.b}}{{end}}", { a: { b: "B" } }, "B"],
    ["trim markers and comments", "a  {{- /* note */ -}}  b {{- 1 }}", {}, "ab1"],
    ["functions and pipelines", '{{printf "%s-%d" .s 3}} {{.s | len}} {{index .xs 1}} {{index .m "k"}} {{len .m | print}}', { s: "abc", xs: [1, 2], m: { k: "v" } }, "abc-3 3 2 v 1"],
    ["and/or/not return Go's truth values", "{{and .a .b}} {{or .z .b}} {{not .a}}", { a: "x", b: "y", z: "" }, "y y false"],
    ["variables and break", '{{$n := 0}}{{range .xs}}{{if eq . "b"}}{{break}}{{end}}{{.}}{{end}}', { xs: ["a", "b", "c"] }, "a"],
    ["an action may span lines", "{{\n  .a\n}}", { a: "A" }, "A"],
    ["html escapes", "{{html .s}}", { s: `<a href="x">&'` }, "&lt;a href=&#34;x&#34;&gt;&amp;&#39;"],
  ])("%s", (_note, template, vars, want) => {
    expect(render(template, vars)).toEqual({ ok: want });
  });

  it("a missing key is an error with Go's location and text", () => {
    expect(render("ab\n {{.missing}}", { a: 1 })).toEqual({
      error: 'eval_builtin_error: template: template:2:3: executing "template" at <.missing>: map has no entry for key "missing"',
    });
  });

  it("a Rego number is a json.Number: comparing it with a template int is Go's type error", () => {
    expect(render("{{if eq .n 1}}one{{end}}", { n: 1 })).toEqual({
      error: 'eval_builtin_error: template: template:1:5: executing "template" at <eq .n 1>: error calling eq: incompatible types for comparison',
    });
    expect(render('{{if eq .n "1"}}one{{end}}', { n: 1 })).toEqual({ ok: "one" });
  });

  it.each([
    ["{{.a", "template: template:1: unclosed action"],
    ["{{foo}}", 'template: template:1: function "foo" not defined'],
    ["{{end}}", "template: template:1: unexpected {{end}}"],
    ["{{if .a}}x", "template: template:1: unexpected EOF"],
  ])("parse error: %s", (template, message) => {
    expect(render(template, {})).toEqual({ error: `eval_builtin_error: ${message}` });
  });

  it("a field of a string is an error", () => {
    expect(render("{{.a.b}}", { a: "s" })).toEqual({
      error: 'eval_builtin_error: template: template:1:2: executing "template" at <.a.b>: can\'t evaluate field b in type string',
    });
  });

  it("runs end to end through the SDK; operand 2 must be an object", async () => {
    const rs = (await evaluate({ modules: ["package t"], query: 'x := strings.render_template("{{.a}}-{{range .b}}{{.}}{{end}}", {"a": 1, "b": ["p", "q"]})' })) as { x: unknown }[];
    expect(rs[0]!.x).toBe("1-pq");
    expect(call("strings.render_template", "x", [])).toEqual({ error: "eval_type_error: operand 2 must be object but got array" });
  });
});
