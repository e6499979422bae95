/** Pre-1.0 Rego (`--v0-compatible`, tools.yaml `policy.rego_version: v0`). */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { compileModules, parseModule, V0_SYNTAX_MESSAGE } from "../../codegen/rego/index.js";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { hostBuiltins } from "../../src/policy/host-builtins/index.js";
import { formatSource } from "../../codegen/rego/format/index.js";
import { loadToolsSource } from "../../codegen/toolsyaml/index.js";

async function run(sources: string[], query: string, input?: unknown, regoVersion: "v0" | "v1" = "v0"): Promise<unknown> {
  const out = compilePolicy({
    modules: sources.map((source, i) => ({ file: `m${i}.rego`, source, regoVersion })),
    entrypoints: [],
    queries: [{ name: "q", body: query }],
  });
  if (out.wasm === null) throw new Error(out.errors.map((e) => `${e.location.file}:${e.location.row}:${e.location.col} ${e.message}`).join("; "));
  const policy = await loadPolicy(out.wasm, undefined, hostBuiltins);
  return policy.evaluate(input, "q");
}

const v0Policy = `package k8s
import data.lib.helpers.is_update

violation[{"msg": msg}] {
  not is_update(input.review)
  c := input.review.containers[_]
  not allowed(c)
  msg := sprintf("container %v is not allowed", [c.name])
}

allowed(c) {
  c.image == "nginx"
}

kind = "pod" {
  input.review.kind == "Pod"
} else = "other" {
  true
}

default level = "info"
`;
const v0Lib = `package lib.helpers
is_update(review) {
  review.operation == "UPDATE"
}
`;

describe("pre-1.0 Rego (v0)", () => {
  it("compiles bodies without if, partial sets p[x] { }, else = v { } and default p = v", async () => {
    const input = { review: { kind: "Pod", operation: "CREATE", containers: [{ name: "a", image: "nginx" }, { name: "b", image: "evil" }] } };
    expect(await run([v0Policy, v0Lib], "v = data.k8s.violation; k = data.k8s.kind; l = data.k8s.level", input)).toEqual([
      { v: [{ msg: "container b is not allowed" }], k: "pod", l: "info" },
    ]);
  });

  it("a rule with several bodies p { a } { b } is one rule per body", async () => {
    const src = "package t\nf(x) = y {\n  x == 1\n  y := \"one\"\n} {\n  x == 2\n  y := \"two\"\n}\na := f(1)\nb := f(2)";
    expect(await run([src], "a = data.t.a; b = data.t.b")).toEqual([{ a: "one", b: "two" }]);
  });

  it("import rego.v1 makes a file Rego v1 even when the compiler reads v0", () => {
    const r = compileModules([{ file: "m.rego", source: "package t\nimport rego.v1\np { true }", regoVersion: "v0" }]);
    expect(r.errors.map((e) => e.code)).toEqual(["rego_parse_error"]);
  });

  it("a v1 parse of a pre-1.0 file is one located error naming --v0-compatible, without follow-on errors", () => {
    const r = parseModule(v0Policy, "k8s.rego");
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ code: "rego_parse_error", message: V0_SYNTAX_MESSAGE, location: { file: "k8s.rego", row: 4, col: 25 } });
    expect(r.errors[0]!.hint).toContain("--v0-compatible");
    expect(r.errors[0]!.hint).toContain("rego_version: v0");
  });

  it("zero-argument functions are rules: f() and f give the same document", async () => {
    const src = 'package z\nf() = {"a": 1}\ng := f()\nh := f\nk := x if { x := f().a }';
    expect(await run([src], "x = data.z", undefined, "v1")).toEqual([{ x: { f: { a: 1 }, g: { a: 1 }, h: { a: 1 }, k: 1 } }]);
  });

  it("fmt with v0 input rewrites a pre-1.0 module to Rego v1 that compiles to the same results", async () => {
    const f = formatSource(v0Policy, "k8s.rego", { regoVersion: "v0" });
    expect(f.ok).toBe(true);
    const text = f.ok ? f.text : "";
    expect(text).toContain("violation contains {\"msg\": msg} if {");
    expect(parseModule(text, "k8s.rego").errors).toEqual([]);
    const input = { review: { kind: "Pod", operation: "CREATE", containers: [{ name: "b", image: "evil" }] } };
    const lib = formatSource(v0Lib, "lib.rego", { regoVersion: "v0" });
    const libText = lib.ok ? lib.text : "";
    expect(await run([text, libText], "v = data.k8s.violation", input, "v1")).toEqual(await run([v0Policy, v0Lib], "v = data.k8s.violation", input, "v0"));
    expect(await run([text, libText], "v = data.k8s.violation", input, "v1")).toEqual([{ v: [{ msg: "container b is not allowed" }] }]);
  });

  it("tools.yaml policy.rego_version accepts v0 and rejects an unknown version with a location", () => {
    const base = "version: 1\npolicy:\n  entrypoint: a/b\n  rego_version: VERSION\ntools:\n  t:\n    description: d\n    effect: read\n    input: { type: object, properties: {}, additionalProperties: false }\n    output: { type: object }\n";
    const ok = loadToolsSource(base.replace("VERSION", "v0"), "tools.yaml");
    expect(ok.errors).toEqual([]);
    expect(ok.loaded?.raw.policy?.rego_version).toBe("v0");
    const bad = loadToolsSource(base.replace("VERSION", "v9"), "tools.yaml");
    expect(bad.loaded).toBeNull();
    expect(bad.errors[0]?.location.row).toBe(4);
  });
});
