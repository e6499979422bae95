/** `toolgate init`: a starter that codegen, build and test accept as written, and no clobbering. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mergePackageJson } from "../../src/cli/init-project.js";
import { toolgateVersion } from "../../src/version.js";
import { runCli } from "../helpers/cli.js";
import { repoRoot } from "../helpers/repo.js";

const work = mkdtempSync(join(tmpdir(), "toolgate-init-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("toolgate init", () => {
  it("writes a starter that codegen, build and test accept, with the shipped policy", async () => {
    const dir = join(work, "starter");
    const init = await runCli(["init", dir]);
    expect(init.code, init.stderr).toBe(0);
    for (const f of ["tools.yaml", "policies/authz.rego", "policies/authz_test.rego", "policies/data.json", "src/handlers.ts", "src/main.ts", "package.json", "tsconfig.json", ".gitignore"]) {
      expect(existsSync(join(dir, f)), f).toBe(true);
    }
    expect(readFileSync(join(dir, "policies/authz.rego"), "utf8")).toBe(readFileSync(join(repoRoot, "policies/authz.rego"), "utf8"));
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { type: string; dependencies: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.type).toBe("module");
    expect(pkg.dependencies["toolgate"]).toBe(`^${toolgateVersion}`);
    expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(["codegen", "build", "test", "start"]));

    // In process (the commands resolve paths against the working directory): one load of the compiler.
    expect((await runCli(["codegen"], { cwd: dir })).code).toBe(0);
    expect((await runCli(["build"], { cwd: dir })).code).toBe(0);
    const tested = await runCli(["test"], { cwd: dir });
    expect(tested.code).toBe(0);
    const manifest = readFileSync(join(dir, "generated/manifest.ts"), "utf8");
    for (const effect of ['"effect": "read"', '"effect": "external_write"', '"effect": "destructive"']) expect(manifest).toContain(effect);
    expect(existsSync(join(dir, "generated/policy.wasm"))).toBe(true);
    expect(tested.stdout).toMatch(/PASS: (\d+)\/\1/);
  }, 180_000);

  it("refuses a non-empty folder without --force and names what is there", async () => {
    const dir = join(work, "busy");
    mkdirSync(dir);
    writeFileSync(join(dir, "tools.yaml"), "# mine\n");
    const refused = await runCli(["init", dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is not empty (tools.yaml)");
    expect(refused.stderr).toContain("--force");
    expect(readFileSync(join(dir, "tools.yaml"), "utf8")).toBe("# mine\n");
    const forced = await runCli(["init", dir, "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(dir, "tools.yaml"), "utf8")).toContain("get_order");
  });

  it("treats a folder with only npm's files as empty and merges its package.json", async () => {
    const dir = join(work, "npm-project");
    mkdirSync(join(dir, "node_modules"), { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "mine", type: "commonjs", scripts: { test: 'echo "Error: no test specified" && exit 1', lint: "x" }, dependencies: { toolgate: "file:../toolgate.tgz" }, devDependencies: { "@toolgate/build": "file:../toolgate-build.tgz" } }));
    const init = await runCli(["init", dir]);
    expect(init.code, init.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, Record<string, string> | string>;
    expect(pkg["name"]).toBe("mine");
    expect(pkg["type"]).toBe("module");
    expect(pkg["dependencies"]).toEqual({ toolgate: "file:../toolgate.tgz" });
    expect(pkg["devDependencies"]).toMatchObject({ "@toolgate/build": "file:../toolgate-build.tgz" });
    expect(pkg["scripts"]).toMatchObject({ test: "toolgate test", lint: "x", codegen: "toolgate codegen" });
  });

  it("a path that is a file is an error, not a crash", async () => {
    const file = join(work, "a-file");
    writeFileSync(file, "");
    const r = await runCli(["init", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not a directory");
  });

  it("merging keeps the user's own scripts over the starter's", () => {
    const merged = mergePackageJson({ scripts: { start: "node server.js" } }, { scripts: { start: "tsx src/main.ts", test: "toolgate test" } });
    expect(merged["scripts"]).toEqual({ start: "node server.js", test: "toolgate test" });
  });
});

describe("the starter's dependencies", () => {
  it("the runtime package is a dependency and the build package a devDependency, at this version", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "toolgate-init-deps-")), "app");
    const init = await runCli(["init", dir]);
    expect(init.code, init.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(pkg.dependencies).toEqual({ toolgate: `^${toolgateVersion}` });
    expect(pkg.devDependencies["@toolgate/build"]).toBe(`^${toolgateVersion}`);
    expect(pkg.devDependencies["toolgate"]).toBeUndefined();
    rmSync(dir, { recursive: true, force: true });
  });
});
