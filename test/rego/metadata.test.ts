/**
 * METADATA annotations and rego.metadata.rule() / rego.metadata.chain(), with the
 * values OPA returns (shape and chain order as OPA's documentation gives them),
 * compiled and run in the opa-wasm SDK.
 */
import { describe, expect, it } from "vitest";
import { compileModules, parseModule } from "../../codegen/rego/index.js";
import { evaluate } from "../wasm-emit/sdk-harness.js";

const run = async (modules: string[], query: string, input?: unknown): Promise<unknown> =>
  ((await evaluate({ modules, query: `x = ${query}`, input, strict: true })) as { x: unknown }[])[0]?.x;

const docsExample = [
  "# METADATA",
  "# title: My Example Package",
  "# description: A set of rules illustrating how metadata annotations can be accessed.",
  "# scope: package",
  "package example",
  "",
  "# METADATA",
  "# title: My Allow Rule",
  "# authors:",
  "# - John Doe <john@example.com>",
  "allow if {",
  "\tinput.x == 1",
  "}",
  "",
  "# METADATA",
  "# title: Deny",
  "# related_resources:",
  "# - https://example.com/policy",
  "# - ref: https://example.com/other",
  "#   description: more",
  "# custom:",
  "#   severity: high",
  "#   tags: [a, b]",
  "deny contains msg if {",
  "\tnot allow",
  "\tmeta := rego.metadata.rule()",
  '\tmsg := sprintf("%s (%s)", [meta.title, meta.custom.severity])',
  "}",
  "",
  "chain := rego.metadata.chain()",
  "",
  "allow_meta := [rego.metadata.rule(), rego.metadata.chain()] if allow",
].join("\n");

describe("rego.metadata.rule() and rego.metadata.chain()", () => {
  it("rule() is the rule's own annotation; chain() starts at the rule and ends at its package", async () => {
    expect(await run([docsExample], "data.example.deny", { x: 2 })).toEqual(["Deny (high)"]);
    const allowRule = {
      scope: "rule",
      title: "My Allow Rule",
      authors: [{ name: "John Doe", email: "john@example.com" }],
    };
    const pkg = { scope: "package", title: "My Example Package", description: "A set of rules illustrating how metadata annotations can be accessed." };
    // allow_meta has no annotation of its own: rule() is {}, chain() starts with its bare path.
    expect(await run([docsExample], "data.example.allow_meta", { x: 1 })).toEqual([{}, [{ path: ["example", "allow_meta"] }, { path: ["example"], annotations: pkg }]]);
    expect(await run([docsExample], "data.example.chain")).toEqual([{ path: ["example", "chain"] }, { path: ["example"], annotations: pkg }]);
    const withAllow = docsExample.replace("allow if {\n\tinput.x == 1\n}", "allow if {\n\tinput.x == 1\n\tinput.meta == rego.metadata.rule()\n}");
    expect(await run([withAllow], "data.example.allow", { x: 1, meta: allowRule })).toBe(true);
    expect(await run([withAllow], "data.example.allow", { x: 1, meta: {} })).toBeUndefined();
  });

  it("the annotated rule sees its own annotation, its related resources and custom values", async () => {
    const m = `${docsExample}\n\n# METADATA\n# title: Own\n# organizations: [Acme]\n# related_resources:\n# - https://example.com/x\nown := [rego.metadata.rule(), rego.metadata.chain()[0]]`;
    const own = { scope: "rule", title: "Own", organizations: ["Acme"], related_resources: [{ ref: "https://example.com/x" }] };
    expect(await run([m], "data.example.own")).toEqual([own, { path: ["example", "own"], annotations: own }]);
  });

  it("chain order: the rule's blocks (closest first), document, package, subpackages from the closest package out", async () => {
    const root = "# METADATA\n# scope: subpackages\n# title: root\npackage a\n";
    const mid = "# METADATA\n# scope: subpackages\n# title: mid\n# METADATA\n# title: pkg-ab\npackage a.b\n";
    const leaf = [
      "package a.b",
      "",
      "# METADATA",
      "# scope: document",
      "# title: doc",
      "p := 1 if false",
      "",
      "# METADATA",
      "# title: far",
      "# METADATA",
      "# title: near",
      "p := rego.metadata.chain()",
    ].join("\n");
    const chain = await run([root, mid, leaf], "data.a.b.p");
    expect(chain).toEqual([
      { path: ["a", "b", "p"], annotations: { scope: "rule", title: "near" } },
      { path: ["a", "b", "p"], annotations: { scope: "rule", title: "far" } },
      { path: ["a", "b", "p"], annotations: { scope: "document", title: "doc" } },
      { path: ["a", "b"], annotations: { scope: "package", title: "pkg-ab" } },
      { path: ["a", "b"], annotations: { scope: "subpackages", title: "mid" } },
      { path: ["a"], annotations: { scope: "subpackages", title: "root" } },
    ]);
  });

  it("an entrypoint annotation defaults to document scope; ref heads use their ground prefix", async () => {
    const m = "package t\n\n# METADATA\n# entrypoint: true\n# schemas:\n# - input: schema.input\nq.r[x] := rego.metadata.chain() if some x in [1]";
    expect(await run([m], "data.t.q.r[1]")).toEqual([
      { path: ["t", "q", "r"] },
      { path: ["t", "q", "r"], annotations: { scope: "document", entrypoint: true, schemas: [{ path: ["input"], schema: ["schema", "input"] }] } },
    ]);
  });

  it("functions and else branches read their rule's metadata", async () => {
    const m = "package t\n\n# METADATA\n# title: f\nf(x) := rego.metadata.rule().title if x > 1\nelse := concat(\"-\", [rego.metadata.rule().title, \"else\"])\n\np := [f(2), f(0)]";
    expect(await run([m], "data.t.p")).toEqual(["f", "f-else"]);
  });
});

describe("METADATA blocks", () => {
  it("are parsed with their locations and attached to the next statement", () => {
    const r = parseModule("# METADATA\n# title: pkg\npackage t\n\n# just a comment\n\n# METADATA\n# description: d\np := 1", "t.rego");
    expect(r.errors).toEqual([]);
    expect(r.module?.annotations).toEqual([
      { type: "annotation", scope: "package", value: { scope: "package", title: "pkg" }, target: { kind: "package" }, location: { file: "t.rego", row: 1, col: 1 } },
      { type: "annotation", scope: "rule", value: { scope: "rule", description: "d" }, target: { kind: "rule", rule: 0 }, location: { file: "t.rego", row: 7, col: 1 } },
    ]);
  });

  it.each([
    ["# METADATA\n# title: [unclosed\np := 1", /^invalid METADATA block: /, 4],
    ["# METADATA\n# scope: everywhere\np := 1", /^invalid annotation scope 'everywhere': must be one of rule, document, package, subpackages$/, 3],
    ["# METADATA\n# scope: package\np := 1", /^annotation scope 'package' must be applied to package \(have rule\)$/, 3],
    ["# METADATA\n# related_resources:\n# - not a url\np := 1", /^invalid METADATA block: related_resources: invalid URL "not a url"$/, 3],
    ["# METADATA\n# authors:\n# - ''\np := 1", /^invalid METADATA block: authors: author information is missing$/, 3],
    ["# METADATA\np := 1", /^expected METADATA block, found whitespace$/, 3],
  ])("%j is a located parse error", (body, message, row) => {
    const r = parseModule(`package t\n\n${body}`, "t.rego");
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ code: "rego_parse_error", location: { file: "t.rego", row, col: 1 } });
    expect(r.errors[0]!.message).toMatch(message);
  });

  it("compileModules reports METADATA errors too", () => {
    const r = compileModules([{ file: "t.rego", source: "package t\n\n# METADATA\n# scope: nope\np := 1" }]);
    expect(r.errors.map((e) => e.code)).toEqual(["rego_parse_error"]);
  });
});
