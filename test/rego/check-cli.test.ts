import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const run = runCli;

describe("toolgate check", () => {
  it("passes the project's policies (default folder)", async () => {
    const r = await run(["check"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[0]).toMatch(/^\d+ files? checked, no problems$/);
  });

  it("prints file:line:col code: message for every problem and exits 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tg-check-"));
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "a.rego"), "package a\n\np := x if { true }\n");
    writeFileSync(join(dir, "sub", "b.rego"), "package b\nq if { r }\nr if { q }\n");
    writeFileSync(join(dir, "notes.txt"), "not rego");
    const r = await run(["check", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      `${join(dir, "a.rego")}:3:6 rego_unsafe_var_error: var x is unsafe`,
      "  hint: bind x in the body before this use (x := ..., some x in ..., or as a ref key like xs[x])",
      "1 problem in 2 files",
    ]);
    writeFileSync(join(dir, "a.rego"), "package a\n\np := 1\n");
    const r2 = await run(["check", dir]);
    expect(r2.stderr.trimEnd().split("\n")).toEqual([
      `${join(dir, "sub", "b.rego")}:2:1 rego_recursion_error: rule data.b.q is recursive: data.b.q -> data.b.r -> data.b.q`,
      `${join(dir, "sub", "b.rego")}:3:1 rego_recursion_error: rule data.b.r is recursive: data.b.r -> data.b.q -> data.b.r`,
      "2 problems in 2 files",
    ]);
  });

  it("reports parse errors before anything else, as OPA", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tg-check-"));
    writeFileSync(join(dir, "a.rego"), "package a\np := x\n");
    writeFileSync(join(dir, "b.rego"), "package b\nq { true }\n");
    const r = await run(["check", dir]);
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      `${join(dir, "b.rego")}:2:3 rego_parse_error: \`if\` keyword is required before rule body: this file is written in pre-1.0 Rego (v0)`,
      "  hint: compile it with --v0-compatible (tools.yaml: `policy.rego_version: v0`), or rewrite it to Rego v1 with `toolgate fmt --v0-compatible --write`",
      "1 problem in 2 files",
    ]);
  });

  it("checks files together, so one may use another's rules", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tg-check-"));
    writeFileSync(join(dir, "lib.rego"), "package lib\nlimit := 10\n");
    writeFileSync(join(dir, "main.rego"), "package main\nimport data.lib\nok if input.n < lib.limit\n");
    const r = await run(["check", join(dir, "main.rego"), join(dir, "lib.rego")]);
    expect(r).toMatchObject({ code: 0 });
    expect(r.stdout.split("\n")[0]).toBe("2 files checked, no problems");
  });

  it("reports a missing path", async () => {
    const r = await run(["check", "/nonexistent/policies"]);
    expect(r).toMatchObject({ code: 1, stderr: "/nonexistent/policies: no such file or folder\n" });
  });
});
