/**
 * tools.yaml `policy.builtins`: the loader locates the key, and check, build, test and
 * eval use the module's custom builtins (Regal-like `regal.last`); every problem with
 * the module is a located error.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadToolsFile, loadToolsSource } from "../../codegen/toolsyaml/index.js";

const TOOLS = (builtins: string) =>
  `version: 1\npolicy:\n  entrypoint: lib/main/allow\n  builtins: ${builtins}\ntools:\n  t:\n    description: d\n    effect: read\n    input: { type: object, properties: {}, additionalProperties: false }\n    output: { type: object }\n`;

// Inside the repository, so that `toolgate` resolves to the package itself.
const scratchRoot = join(fileURLToPath(new URL("../..", import.meta.url)), "test", "artifacts");

const MODULE = `import { defineBuiltins } from "toolgate";
export default defineBuiltins({
  "regal.last": { args: ["array"], result: "any", impl: (xs) => xs[xs.length - 1] },
  "regal.fail": { args: ["string"], result: "any", impl: (s) => { throw new Error("no " + s); } },
});
`;

const POLICY = `package lib.main
allow if regal.last(input.flags)
boom := regal.fail("x")
`;

const TESTS = `package lib.main_test
import data.lib.main
test_last if main.allow with input as {"flags": [false, true]}
test_not_last if not main.allow with input as {"flags": [true, false]}
`;
import { runCli } from "../helpers/cli.js";

let cwd: string;
let dir: string;

beforeEach(() => {
  cwd = process.cwd();
  mkdirSync(scratchRoot, { recursive: true });
  dir = mkdtempSync(join(scratchRoot, "policy-builtins-"));
  mkdirSync(join(dir, "policies"));
  writeFileSync(join(dir, "tools.yaml"), TOOLS("./policy-builtins.ts"));
  writeFileSync(join(dir, "policy-builtins.ts"), MODULE);
  writeFileSync(join(dir, "policies", "main.rego"), POLICY);
  writeFileSync(join(dir, "policies", "main_test.rego"), TESTS);
  process.chdir(dir);
});
afterEach(() => {
  process.chdir(cwd);
  rmSync(dir, { recursive: true, force: true });
});

const run = runCli;

describe("tools.yaml policy.builtins", () => {
  it("the loader keeps the module resolved against tools.yaml's folder, with its location", () => {
    const r = loadToolsSource(TOOLS("./b.ts"), "conf/tools.yaml");
    expect(r.errors).toEqual([]);
    expect(r.loaded?.policyBuiltins).toEqual({ module: "./b.ts", path: join("conf", "b.ts"), location: { file: "conf/tools.yaml", row: 4, col: 13 } });
  });

  it("a module that does not exist is an error at the tools.yaml line naming it", () => {
    writeFileSync("tools.yaml", TOOLS("./missing.ts"));
    const r = loadToolsFile("tools.yaml");
    expect(r.loaded).toBeNull();
    expect(r.errors).toEqual([expect.objectContaining({ code: "policy_builtins_missing", message: "policy.builtins: no module at missing.ts", location: { file: "tools.yaml", row: 4, col: 13 } })]);
  });

  it("a value that is not a module path is a located schema error", () => {
    const r = loadToolsSource(TOOLS("./builtins.json"), "tools.yaml");
    expect(r.errors[0]?.location.row).toBe(4);
  });
});

describe("commands with policy.builtins", () => {
  it("check type-checks calls against the declarations", async () => {
    expect(await run(["check", "policies"])).toMatchObject({ code: 0, stderr: "" });
    writeFileSync(join("policies", "bad.rego"), 'package bad\nx := regal.last("s")\n');
    const r = await run(["check", "policies"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("policies/bad.rego:2:6 rego_type_error: regal.last: invalid argument(s): have (string), want (array)");
  });

  it("build compiles the calls as host builtins", async () => {
    const r = await run(["build", "--policies", "policies", "--out", "out"]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(existsSync(join("out", "policy.wasm"))).toBe(true);
  });

  it("test runs the policy tests with the implementations", async () => {
    const r = await run(["test", "policies", "--format", "json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const results = JSON.parse(r.stdout) as { fail?: boolean; error?: unknown }[];
    expect(results).toHaveLength(2);
    expect(results.filter((t) => t.fail === true || t.error !== undefined)).toEqual([]);
  });

  it("eval evaluates with them; a throwing implementation is a located eval_builtin_error", async () => {
    writeFileSync("input.json", JSON.stringify({ flags: [false, true] }));
    const ok = await run(["eval", "-d", "policies/main.rego", "--input", "input.json", "data.lib.main.allow"]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("true");
    const bad = await run(["eval", "-d", "policies/main.rego", "data.lib.main.boom"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe("policies/main.rego:3:9: eval_builtin_error: regal.fail: no x\n");
  });

  it("a module that fails to load, exports nothing, or declares badly is a located error, and no command runs", async () => {
    // One file per case: Node caches a module (and a failed import) by its URL.
    const use = (file: string, text: string): void => {
      writeFileSync(file, text);
      writeFileSync("tools.yaml", TOOLS(`./${file}`));
    };
    use("throws.ts", "throw new Error('boom');\n");
    let r = await run(["check", "policies"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tools\.yaml:4:13 policy_builtins_unloadable: policy\.builtins: \.\/throws\.ts does not load: boom/);

    use("nothing.ts", "export const other = 1;\n");
    r = await run(["build", "--policies", "policies", "--out", "out"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^nothing\.ts:1:1 policy_builtins_invalid: \.\/nothing\.ts exports no custom builtins/);

    use("bad-type.ts", 'import { defineBuiltins } from "toolgate";\nexport default defineBuiltins({\n  "regal.last": { args: ["arr"], result: "any", impl: (xs) => xs },\n});\n');
    r = await run(["test", "policies"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^bad-type\.ts:3:3 policy_builtins_invalid: custom builtin regal\.last: argument 1: unknown type "arr"/);

    use("plain.mjs", 'export const builtins = { "regal.last": { args: ["array"], result: "set", impl: (xs) => xs } };\n');
    r = await run(["eval", "-d", "policies/main.rego", "data.lib.main"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^plain\.mjs:1:27 policy_builtins_invalid: custom builtin regal\.last: result: a set cannot be returned/);
  });
});
