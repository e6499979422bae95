/**
 * The runtime package ships without the build commands: `toolgate <build command>` loads
 * them from @toolgate/build, and without it says to install it as a devDependency.
 */
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BuildPackageMissingError, loadBuildCommand } from "../../src/cli/commands/build-package.js";
import { commands } from "../../src/cli/commands/index.js";
import { repoRoot } from "../helpers/repo.js";

// Node's error for an import of a package that is not installed.
const notInstalled = (file: string): Promise<Record<string, unknown>> =>
  Promise.reject(Object.assign(new Error(`Cannot find package '@toolgate/build' imported from /app/node_modules/toolgate/dist/src/cli/commands/${file}.js`), { code: "ERR_MODULE_NOT_FOUND" }));

describe("build commands outside the runtime package", () => {
  it("a build command whose module is not beside the table and no build package is installed fails with install @toolgate/build as a devDependency", async () => {
    const load = loadBuildCommand("codegen", "not-shipped", "registerCodegen", () => Promise.reject(new Error("the local module must not be imported")), notInstalled);
    await expect(load).rejects.toBeInstanceOf(BuildPackageMissingError);
    await expect(load).rejects.toMatchObject({
      message: expect.stringContaining("toolgate codegen: this command is in the build package @toolgate/build") as unknown,
      hint: expect.stringContaining("npm install -D @toolgate/build") as unknown,
    });
  });

  it("a build command not beside the table is imported from the build package's commands/ export", async () => {
    const asked: string[] = [];
    const register = await loadBuildCommand("fmt", "not-shipped", "registerFmt", () => Promise.reject(new Error("local")), async (file) => {
      asked.push(file);
      return (await import(pathToFileURL(join(repoRoot, "src/cli/commands/fmt.ts")).href)) as Record<string, unknown>;
    });
    expect(asked).toEqual(["not-shipped"]);
    expect(typeof register).toBe("function");
  });

  it("a build package that is installed but broken (a dependency of its own missing) is not reported as not installed", async () => {
    const broken = (): Promise<Record<string, unknown>> =>
      Promise.reject(Object.assign(new Error("Cannot find package 'prettier' imported from /app/node_modules/@toolgate/build/dist/codegen/x.js"), { code: "ERR_MODULE_NOT_FOUND" }));
    await expect(loadBuildCommand("codegen", "not-shipped", "registerCodegen", () => Promise.reject(new Error("local")), broken)).rejects.toThrow(/'prettier'/);
  });

  it("in a checkout a build command runs from the module beside the table", async () => {
    const register = await loadBuildCommand("fmt", "fmt", "registerFmt", () => import("../../src/cli/commands/fmt.js"), notInstalled);
    expect(typeof register).toBe("function");
  });

  it("the runtime package's files leave out exactly the build commands' modules", async () => {
    const { readFileSync } = await import("node:fs");
    const files = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { files: string[] }).files;
    const excluded = files.filter((f) => f.startsWith("!dist/src/cli/commands/")).map((f) => f.replace("!dist/src/cli/commands/", "").replace(".*", ""));
    expect(excluded.sort()).toEqual(commands.filter((c) => c.role === "build").map((c) => c.name).sort());
  });
});
