/** strings.render_template: a literal template with an action the implementation lacks is a located compile error. */
import { describe, expect, it } from "vitest";
import { compileModules } from "../../codegen/rego/index.js";

const errorsOf = (call: string) => compileModules([{ file: "t.rego", source: `package t\n\np := ${call}` }]).errors;

describe("strings.render_template actions checked at compile time", () => {
  it.each(["define", "template", "block"])("{{%s}} is reported at the call", (action) => {
    const tpl = action === "template" ? '{{template "x"}}' : `{{${action} "x" .}}a{{end}}`;
    expect(errorsOf(`strings.render_template(${JSON.stringify(tpl)}, {})`)).toEqual([
      expect.objectContaining({ code: "rego_type_error", message: `strings.render_template: template action {{${action}}} is not supported yet`, location: { file: "t.rego", row: 3, col: 6 } }),
    ]);
  });
  it("supported actions and templates known only at evaluation compile", () => {
    expect(errorsOf('strings.render_template("{{range .xs}}{{.}}{{end}}{{if .a}}y{{end}}", {"xs": [1], "a": true})')).toEqual([]);
    expect(errorsOf('strings.render_template(input.t, {"a": 1})')).toEqual([]);
  });
  it("other template errors stay the builtin's, at evaluation (as in OPA)", () => {
    expect(errorsOf('strings.render_template("{{.a}", {})')).toEqual([]);
  });
});
