/** `toolgate build` and `toolgate eval`: the library functions, plus one real CLI run each. */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildPolicy } from "../../codegen/compiler/build.js";
import { captureQuery, formatEvalResult } from "../../codegen/compiler/eval-query.js";
import { runCli } from "../helpers/cli.js";

function policiesDir(rego: string): { policies: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), "tg-build-"));
  const policies = join(dir, "policies");
  mkdirSync(policies);
  writeFileSync(join(policies, "a.rego"), rego);
  writeFileSync(join(policies, "a_test.rego"), "package a\ntest_x if true\n");
  writeFileSync(join(policies, "data.json"), '{"z": 1, "a": 2}');
  return { policies, out: join(dir, "gen") };
}

describe("toolgate build", () => {
  it("writes policy.wasm and a deterministic bundle; check mode names stale files", () => {
    const { policies, out } = policiesDir("package a\nallow := input.ok\n");
    const opts = { policies, out, entrypoints: ["a/allow"], check: false };
    expect(buildPolicy(opts).kind).toBe("written");
    const bundle = readFileSync(join(out, "bundle.tar.gz"));
    expect(buildPolicy({ ...opts, check: true }).kind).toBe("up_to_date");
    writeFileSync(join(policies, "a.rego"), "package a\nallow := true\n");
    expect(buildPolicy({ ...opts, check: true })).toMatchObject({ kind: "stale", files: [join(out, "policy.wasm"), join(out, "bundle.tar.gz")] });
    writeFileSync(join(policies, "a.rego"), "package a\nallow := input.ok\n");
    expect(buildPolicy(opts).kind).toBe("written");
    expect(readFileSync(join(out, "bundle.tar.gz")).equals(bundle)).toBe(true);
  });

  it("reports compile errors with their location", () => {
    const { policies, out } = policiesDir("package a\nallow := nosuch(1)\n");
    const r = buildPolicy({ policies, out, entrypoints: ["a/allow"], check: false });
    expect(r.kind).toBe("errors");
    if (r.kind === "errors") expect(r.errors[0]).toMatchObject({ code: "rego_type_error", location: { row: 2 } });
  });

  it("build --timings prints every step, the compiler's stages and emit's phases, to stderr", async () => {
    const { policies, out } = policiesDir("package a\nallow := input.ok\n");
    const r = await runCli(["build", "--policies", policies, "--out", out, "-e", "a/allow", "--timings"]);
    expect(r.code, r.stderr).toBe(0);
    const steps = r.stderr.split("\n").filter((l) => / ms$/.test(l)).map((l) => l.trim().split(/\s+/)[0]);
    for (const s of ["load", "read", "parse", "plan", "emit", "runtime", "generate", "validate", "binary", "optimize", "bundle", "write", "total"]) expect(steps).toContain(s);
  });

    it("the CLI builds the bundle with the three OPA bundle files", async () => {
    const { policies, out } = policiesDir("package a\nallow := input.ok\n");
    const r = await runCli(["build", "--policies", policies, "--out", out, "-e", "a/allow"]);
    expect(r.code, r.stderr).toBe(0);
    const listing = execFileSync("tar", ["tzf", join(out, "bundle.tar.gz")], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    expect(listing.split("\n").filter(Boolean)).toEqual(["/.manifest", "/data.json", "/policy.wasm"]);
  });
});

describe("toolgate eval", () => {
  it("captures term values (false included) and keeps calls among several expressions as filters", () => {
    const q = captureQuery("x := [1, 2][_]; x > 1").query!;
    expect(q.exprs.map((e) => e.capture)).toEqual([null, null]);
    const single = captureQuery("data.a.allow").query!;
    expect(single.body).toBe("__expr0__ = (data.a.allow)");
    expect(formatEvalResult(single, [{ __expr0__: false }])).toEqual({
      result: [{ expressions: [{ value: false, text: "data.a.allow", location: { row: 1, col: 1 } }] }],
    });
    expect(formatEvalResult(single, [])).toEqual({});
  });

  it("the CLI prints opa eval --format json", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tg-eval-"));
    writeFileSync(join(dir, "p.rego"), 'package p\nallow if input.user == "alice"\n');
    writeFileSync(join(dir, "in.json"), '{"user": "alice"}');
    const r = await runCli(["eval", "-d", dir, "--input", join(dir, "in.json"), "data.p.allow"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      result: [{ expressions: [{ value: true, text: "data.p.allow", location: { row: 1, col: 1 } }] }],
    });
  });
});
