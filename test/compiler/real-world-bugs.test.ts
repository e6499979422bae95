/**
 * Compiler bugs found on real policies (public corpora), each pinned by the result
 * OPA gives. Every row compiles with the public API and runs in the opa-wasm SDK.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { compileModules } from "../../codegen/rego/index.js";
import { createHostBuiltins } from "../../src/policy/host-builtins/index.js";
import { evaluate } from "../wasm-emit/sdk-harness.js";

describe("compiler bugs found on real policies", () => {
  it("a with target written through an import alias replaces the imported document", async () => {
    const modules = ["package a\nimport data.cfg\np := cfg.level\nq := x if { x := p with cfg.level as \"warn\" }"];
    expect(await evaluate({ modules, query: "x = data.a.q", data: { cfg: { level: "info" } } })).toEqual([{ x: "warn" }]);
  });

  it("a with target naming a rule of the package replaces that rule", async () => {
    const modules = ["package a\nlevel := \"info\"\nq := x if { x := level with level as \"warn\" }"];
    expect(await evaluate({ modules, query: "x = data.a.q" })).toEqual([{ x: "warn" }]);
  });

  it("a dynamic data reference whose last segments rule out the rule itself is not recursion", async () => {
    const modules = ["package a.main\np := x if { h := input.h; x := data.a[h].r }", "package a.other\nr := 1"];
    expect(compileModules(modules.map((source, i) => ({ file: `m${i}.rego`, source }))).errors).toEqual([]);
    expect(await evaluate({ modules, query: "x = data.a.main.p", input: { h: "other" } })).toEqual([{ x: 1 }]);
    expect(await evaluate({ modules, query: "x = data.a.main.p", input: { h: "main" } })).toEqual([]);
  });

  it("a dynamic data reference still iterates rules and base data under the prefix", async () => {
    const modules = ["package a.other\nr := 1", "package a.third\nr := 3"];
    const out = await evaluate({ modules, query: "x = data.a[k].r", data: { a: { base: { r: 2 } } } });
    expect(out).toEqual([{ k: "base", x: 2 }, { k: "other", x: 1 }, { k: "third", x: 3 }]);
  });

  it("a dynamic data reference that does reach the rule itself is still recursion", () => {
    const r = compileModules([{ file: "m.rego", source: "package a.main\np := x if { h := input.h; x := data.a[h].p }" }]);
    expect(r.errors.map((e) => e.code)).toEqual(["rego_recursion_error"]);
  });

  it("a function parameter named like a package rule is the parameter", async () => {
    expect(await evaluate({ modules: ["package a\nf(a) := a + 1\na := f(1)"], query: "x = data.a" })).toEqual([{ x: { a: 2 } }]);
    const modules = ["package b\nreview(c) := c\nkind_of(review) := review.kind\nk := kind_of({\"kind\": \"Pod\"})"];
    expect(await evaluate({ modules, query: "x = data.b.k" })).toEqual([{ x: "Pod" }]);
  });

  it("a comprehension reading a variable bound later in the body is reordered after it", async () => {
    const modules = ["package a\nr = a if { a = [x | x := t[1]]; t = [8, 4] }"];
    expect(await evaluate({ modules, query: "x = data.a.r" })).toEqual([{ x: [4] }]);
  });

  it("an empty package is an empty object in data", async () => {
    const modules = ["package x.y\np := 1", "package x.empty"];
    expect(await evaluate({ modules, query: "v = data.x" })).toEqual([{ v: { empty: {}, y: { p: 1 } } }]);
    expect(await evaluate({ modules, query: "v = data.x.empty" })).toEqual([{ v: {} }]);
    expect(await evaluate({ modules: ["package only.here"], query: "v = data.only" })).toEqual([{ v: { here: {} } }]);
  });

  it("a builtin failing inside JavaScript is a located eval_builtin_error, never a JavaScript exception", async () => {
    const modules = ["package a\np := time.add_date(0, 100000000000000000, 1, 1)"];
    await expect(evaluate({ modules, query: "x = data.a.p", strict: true })).rejects.toThrow(/eval_builtin_error: time.add_date: time outside of valid range/);
    expect(await evaluate({ modules, query: "x = data.a.p" })).toEqual([]);
  });

  it("any exception a host builtin raises becomes that builtin's eval_builtin_error", () => {
    const host = createHostBuiltins();
    const strictCall = host.builtins["toolgate/strict/time.add_date"]!;
    // An int64 year count far beyond the time range: the arithmetic fails inside, the error is the builtin's.
    expect(() => strictCall(0, 2 ** 62, 0, 0)).toThrow(/^eval_builtin_error: time.add_date: time outside of valid range/);
    // Beyond int64 the operand itself is refused, as OPA refuses it.
    expect(() => strictCall(0, 1e300, 0, 0)).toThrow(/^eval_type_error: time.add_date: operand 2 must be integer number/);
  });

  it("a rule chain thousands deep compiles and evaluates, as OPA compiles it", async () => {
    const lines = ["package d"];
    for (let i = 0; i < 3000; i++) lines.push(`p${i} := p${i + 1}`);
    lines.push("p3000 := 1");
    const r = compilePolicy({ modules: [{ file: "deep.rego", source: lines.join("\n") }], entrypoints: ["d/p0"], optimize: false });
    expect(r.errors).toEqual([]);
    expect(await evaluate({ modules: [lines.join("\n")], query: "x = data.d.p0" })).toEqual([{ x: 1 }]);
  });
});
