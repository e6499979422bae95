/**
 * tools.yaml `policy.rego_version` sets the Rego version of every policy file for
 * `toolgate check`, `build` and `test`: v0, v1 (the default) or v2 (each file read as
 * if it imported rego.v2: `and`, `or`, grouped `not`). Any other value is a located
 * error naming the accepted ones, and those commands stop on it.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadToolsSource } from "../../codegen/toolsyaml/index.js";
import { loadPolicySection } from "../../codegen/toolsyaml/policy-section.js";
import { runCli } from "../helpers/cli.js";

const TOOLS = (version: string) =>
  `version: 1\npolicy:\n  entrypoint: lib/main/allow\n  rego_version: ${version}\ntools:\n  t:\n    description: d\n    effect: read\n    input: { type: object, properties: {}, additionalProperties: false }\n    output: { type: object }\n`;

// Rego v2 only: `or` and a grouped `not` without `import rego.v2`.
const POLICY = `package lib.main
allow if input.admin or not (input.suspended or input.locked)
`;

const TESTS = `package lib.main_test
import data.lib.main
test_admin if main.allow with input as {"admin": true, "suspended": true, "locked": false}
test_suspended if not main.allow with input as {"admin": false, "suspended": true, "locked": false}
`;

let cwd: string;
let dir: string;

beforeEach(() => {
  cwd = process.cwd();
  dir = mkdtempSync(join(tmpdir(), "tg-rego-version-"));
  mkdirSync(join(dir, "policies"));
  writeFileSync(join(dir, "policies", "main.rego"), POLICY);
  writeFileSync(join(dir, "policies", "main_test.rego"), TESTS);
  process.chdir(dir);
});
afterEach(() => {
  process.chdir(cwd);
  rmSync(dir, { recursive: true, force: true });
});

describe("tools.yaml policy.rego_version", () => {
  it("accepts v0, v1 and v2 in the loader and in the policy section", () => {
    for (const v of ["v0", "v1", "v2"]) {
      const r = loadToolsSource(TOOLS(v), "tools.yaml");
      expect(r.errors).toEqual([]);
      expect(r.loaded?.raw.policy?.rego_version).toBe(v);
      writeFileSync("tools.yaml", TOOLS(v));
      expect(loadPolicySection(join(dir, "tools.yaml"))).toMatchObject({ regoVersion: v, errors: [] });
    }
  });

  it("rejects an unknown version at its line, naming the accepted ones", () => {
    writeFileSync("tools.yaml", TOOLS("v3"));
    const s = loadPolicySection(join(dir, "tools.yaml"));
    expect(s.regoVersion).toBeUndefined();
    expect(s.errors.map((e) => [e.code, e.location.row, e.location.col, e.message])).toEqual([
      ["policy_rego_version_invalid", 4, 17, 'policy.rego_version must be one of v0, v1, v2, not "v3"'],
    ]);
    const full = loadToolsSource(TOOLS("v3"), "tools.yaml");
    expect(full.loaded).toBeNull();
    expect(full.errors[0]?.location.row).toBe(4);
  });

  it("v2 is honoured by check, build and test: a v2-only policy passes", async () => {
    writeFileSync("tools.yaml", TOOLS("v2"));
    const check = await runCli(["check"]);
    expect(check.stderr).toBe("");
    expect(check.code).toBe(0);
    const test = await runCli(["test"]);
    expect(test.code).toBe(0);
    expect(test.stdout).toMatch(/PASS: 2\/2/);
    const build = await runCli(["build", "--out", "out"]);
    expect(build.stderr).toBe("");
    expect(build.code).toBe(0);
    expect(existsSync(join("out", "policy.wasm"))).toBe(true);
  });

  it("the same policy under v1 (the default) does not parse", async () => {
    writeFileSync("tools.yaml", TOOLS("v1"));
    const check = await runCli(["check"]);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain("rego_parse_error");
  });

  it("an unknown version stops check, build and test with the located error", async () => {
    writeFileSync("tools.yaml", TOOLS("2"));
    for (const argv of [["check"], ["build", "--out", "out"], ["test"]]) {
      const r = await runCli(argv);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("tools.yaml:4:17 policy_rego_version_invalid: policy.rego_version must be one of v0, v1, v2, not 2");
    }
  });
});
