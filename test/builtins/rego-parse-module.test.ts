/**
 * rego.parse_module: OPA's AST JSON of a module (shapes as OPA's ast marshal tests pin
 * them), served by the build tools' parser (without them: rego-parse-module-missing.test.ts).
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { beforeAll, describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { parseModule } from "../../codegen/rego/parser.js";
import { moduleToOpaJson } from "../../codegen/rego-json/module-json.js";
import { registerParseModule } from "../../codegen/rego-json/parse-module.js";
import { createHostBuiltins } from "../../src/policy/host-builtins/index.js";

const ast = (source: string): Record<string, unknown> => {
  const { module, errors } = parseModule(source, "example.rego");
  expect(errors).toEqual([]);
  return JSON.parse(moduleToOpaJson(module!)) as Record<string, unknown>;
};
const rules = (source: string): unknown[] => ast(source)["rules"] as unknown[];

async function evalRule(body: string, strict = false): Promise<unknown> {
  const source = `package t\n\n${body}\n`;
  const out = compilePolicy({ modules: [{ file: "t.rego", source }], entrypoints: ["t/r"], optimize: false, strictBuiltinErrors: strict });
  expect(out.errors).toEqual([]);
  const host = createHostBuiltins();
  const policy = await loadPolicy(out.wasm!, undefined, host.builtins);
  const r = policy.evaluate({}, "t/r") as { result: unknown }[];
  return r.length === 0 ? undefined : r[0]!.result;
}

const T = (type: string, value: unknown) => ({ type, value });
const ref = (...parts: unknown[]) => T("ref", parts);

describe("rego.parse_module's AST JSON (OPA's ast marshal shapes)", () => {
  it("a rule with an if body: head name, value and ref; body expressions with their index", () => {
    expect(rules("package foo\n\n# comment\n\nallow if { true }")[0]).toEqual({
      body: [{ index: 0, terms: T("boolean", true) }],
      head: { name: "allow", value: T("boolean", true), ref: [T("var", "allow")] },
    });
  });

  it("every: key null without one, the domain, the body's calls as operator ref and operands", () => {
    const r = rules("package foo\n\nallow if {\n\tevery e in [1,2,3] {\n\t\te == 1\n    }\n}\n")[0] as { body: { terms: unknown }[] };
    expect(r.body[0]!.terms).toEqual({
      body: [{ index: 0, terms: [ref(T("var", "equal")), T("var", "e"), T("number", 1)] }],
      domain: T("array", [T("number", 1), T("number", 2), T("number", 3)]),
      key: null,
      value: T("var", "e"),
    });
  });

  it("with: target and value", () => {
    const r = rules("package foo\n\na if {input}\n\nb if {\n\ta with input as 1\n}\n")[1] as { body: { with: unknown }[] };
    expect(r.body[0]!.with).toEqual([{ target: ref(T("var", "input")), value: T("number", 1) }]);
  });

  it("package path from data, imports as refs with their alias, comments as base64 text with a location", () => {
    const m = ast("package a.b\n\nimport data.x.y as z\nimport input\n\n# hi\np := 1\n");
    expect(m["package"]).toEqual({ path: [T("var", "data"), T("string", "a"), T("string", "b")] });
    expect(m["imports"]).toEqual([{ path: ref(T("var", "data"), T("string", "x"), T("string", "y")), alias: "z" }, { path: T("var", "input") }]);
    expect(m["comments"]).toEqual([{ Text: Buffer.from(" hi").toString("base64"), Location: { file: "example.rego", row: 6, col: 1 } }]);
  });

  it("p := 1 has OPA's generated body and assign; default rules carry default", () => {
    expect(rules("package x\n\np := 1\n\ndefault q := false\n")).toEqual([
      { head: { name: "p", value: T("number", 1), ref: [T("var", "p")], assign: true }, body: [{ index: 0, terms: T("boolean", true) }] },
      { head: { name: "q", value: T("boolean", false), ref: [T("var", "q")], assign: true }, body: [{ index: 0, terms: T("boolean", true) }], default: true },
    ]);
  });

  it("contains heads have a key and no value; p[x] if is keyed with the ref kept", () => {
    const [set, obj] = rules("package x\n\ns contains x if some x in [1]\n\no[k] := 1 if some k in [\"a\"]\n") as { head: unknown; body: { terms: unknown }[] }[];
    expect(set!.head).toEqual({ name: "s", key: T("var", "x"), ref: [T("var", "s")] });
    expect(set!.body[0]!.terms).toEqual({ symbols: [T("call", [ref(T("var", "internal"), T("string", "member_2")), T("var", "x"), T("array", [T("number", 1)])])] });
    expect(obj!.head).toEqual({ name: "o", key: T("var", "k"), value: T("number", 1), ref: [T("var", "o"), T("var", "k")], assign: true });
  });

  it("functions have args; wildcards become $0, $1 in parse order; negation and nested calls", () => {
    const [f] = rules("package x\n\nf(_, y) := y + 1 if not startswith(y, _)\n") as { head: unknown; body: unknown[] }[];
    expect(f!.head).toEqual({ name: "f", value: T("call", [ref(T("var", "plus")), T("var", "y"), T("number", 1)]), ref: [T("var", "f")], args: [T("var", "$0"), T("var", "y")], assign: true });
    expect(f!.body).toEqual([{ index: 0, negated: true, terms: [ref(T("var", "startswith")), T("var", "y"), T("var", "$1")] }]);
  });

  it("objects as key/value pairs, sets, comprehensions", () => {
    const [r] = rules('package x\n\np := [{"a": 1}, {2}, [y | some y in [3]]]\n') as { head: { value: unknown } }[];
    expect(r!.head.value).toEqual(T("array", [
      T("object", [[T("string", "a"), T("number", 1)]]),
      T("set", [T("number", 2)]),
      T("arraycomprehension", { term: T("var", "y"), body: [{ index: 0, terms: { symbols: [T("call", [ref(T("var", "internal"), T("string", "member_2")), T("var", "y"), T("array", [T("number", 3)])])] } }] }),
    ]));
  });
});

describe("rego.parse_module in a compiled policy", () => {
  beforeAll(() => registerParseModule());

  it("returns the module's AST as a Rego object", async () => {
    const r = (await evalRule('r := rego.parse_module("x.rego", "package x\\n\\np := 1")')) as { package: unknown; rules: unknown[] };
    expect(r.package).toEqual({ path: [T("var", "data"), T("string", "x")] });
    expect(r.rules).toHaveLength(1);
  });

  it("keeps a number's every digit (the JSON goes back as text)", async () => {
    expect(await evalRule('r := json.marshal(rego.parse_module("x.rego", "package x\\n\\np := 123456789012345678901234567890").rules[0].head.value.value)')).toBe("123456789012345678901234567890");
  });

  it("a module that does not parse: undefined, and with strict errors OPA's parse error text", async () => {
    expect(await evalRule('r := rego.parse_module("bad.rego", "package")')).toBeUndefined();
    await expect(evalRule('r := rego.parse_module("bad.rego", "package")', true)).rejects.toThrow(/eval_builtin_error: rego\.parse_module: 1 error occurred: bad\.rego:1: rego_parse_error/);
  });

  it("refuses a non-string operand as a type error", async () => {
    const out = compilePolicy({ modules: [{ file: "t.rego", source: 'package t\n\nr := rego.parse_module(1, "package x")\n' }], entrypoints: ["t/r"], optimize: false });
    expect(out.errors.map((e) => e.code)).toContain("rego_type_error");
  });
});
