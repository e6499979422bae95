/** The public compile API: stages, errors, ids, determinism. */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { bundleBytes } from "../../codegen/compiler/bundle.js";

const mod = { file: "a.rego", source: "package a\np := 1\nq := 2" };

describe("compilePolicy", () => {
  it("assigns entrypoint ids in order, queries after entrypoints", () => {
    const r = compilePolicy({ modules: [mod], entrypoints: ["a/p", "a/q"], queries: [{ name: "x", body: "data.a.p = v" }] });
    expect(r.errors).toEqual([]);
    expect(r.entrypointIds).toEqual({ "a/p": 0, "a/q": 1, x: 2 });
    expect(r.wasm).toBeInstanceOf(Uint8Array);
  });

  it("stopAfter plan returns the plan and no module", () => {
    const r = compilePolicy({ modules: [mod], entrypoints: ["a/p"], stopAfter: "plan" });
    expect(r.wasm).toBeNull();
    expect(r.plan?.plans.map((p) => p.name)).toEqual(["a/p"]);
    expect(r.plan?.funcs.map((f) => f.name)).toEqual(["g0.data.a.p"]);
  });

  it("times every stage that ran, the front end's stages one by one", () => {
    const r = compilePolicy({ modules: [mod], entrypoints: ["a/p"], queries: [{ name: "x", body: "data.a.p = v" }], optimize: false });
    expect(r.timings.map((t) => t.stage)).toEqual(["parse", "group", "scope", "flatten", "safety", "typecheck", "recursion", "query", "plan", "emit", "optimize"]);
    for (const t of r.timings) expect(t.ms).toBeGreaterThanOrEqual(0);
    const stopped = compilePolicy({ modules: [{ file: "bad.rego", source: "package a\np := x" }], entrypoints: ["a/p"] });
    expect(stopped.timings.map((t) => t.stage)).toEqual(["parse", "group", "scope", "flatten", "safety"]);
  });

  it("plans the checked program: a body is planned in the front end's order, not its source order", () => {
    const r = compilePolicy({ modules: [{ file: "o.rego", source: "package a\np := y if { y = x + 1; x = input.n }" }], entrypoints: ["a/p"], stopAfter: "plan" });
    expect(r.errors).toEqual([]);
    const stmts = r.plan!.funcs[0]!.blocks.flatMap((b) => b.stmts).map((s) => s.type);
    // x = input.n (a dot) comes before the call of plus.
    expect(stmts.indexOf("DotStmt")).toBeLessThan(stmts.indexOf("CallStmt"));
  });

  it("reports parse errors with file, row and column", () => {
    const r = compilePolicy({ modules: [{ file: "bad.rego", source: "package a\np := " }], entrypoints: ["a/p"] });
    expect(r.wasm).toBeNull();
    expect(r.errors[0]).toMatchObject({ code: "rego_parse_error", location: { file: "bad.rego" } });
  });

  it("an unknown function is a rego_type_error naming it", () => {
    const r = compilePolicy({ modules: [{ file: "f.rego", source: "package a\np := nosuch.fn(1)" }], entrypoints: ["a/p"] });
    expect(r.wasm).toBeNull();
    expect(r.errors.some((e) => e.code === "rego_type_error" && e.message.includes("nosuch.fn"))).toBe(true);
  });

  it("is deterministic: same input, same bytes; bundle too", () => {
    const a = compilePolicy({ modules: [mod], entrypoints: ["a/p"] }).wasm!;
    const b = compilePolicy({ modules: [mod], entrypoints: ["a/p"] }).wasm!;
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    const x = bundleBytes({ wasm: a, data: { z: 1, a: 2 }, entrypoints: ["a/p"] });
    const y = bundleBytes({ wasm: b, data: { a: 2, z: 1 }, entrypoints: ["a/p"] });
    expect(Buffer.from(x).equals(Buffer.from(y))).toBe(true);
  });
});
