/**
 * importUserModule on plain node, as the installed CLI runs it (`toolgate serve` and
 * `toolgate mcp` load the project's generated/index.ts through it): the module is bundled
 * to JavaScript outside the repository and run by a node without any loader. With the
 * project's own tsx a TypeScript module loads; without tsx the error names the file and
 * says what to do.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/repo.js";

let dir: string;
let bundle: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolgate-user-module-"));
  bundle = join(dir, "cli", "user-module.mjs");
  buildSync({ entryPoints: [join(repoRoot, "src", "cli", "user-module.ts")], bundle: true, platform: "node", format: "esm", outfile: bundle, logLevel: "silent" });
  writeFileSync(
    join(dir, "run.mjs"),
    [
      `import { importUserModule } from ${JSON.stringify(bundle)};`,
      "try {",
      "  const mod = await importUserModule(process.argv[2]);",
      "  console.log(JSON.stringify({ exports: Object.keys(mod).sort(), tools: mod.manifest?.tools }));",
      "} catch (e) {",
      "  console.log(JSON.stringify({ code: e.code, message: e.message, hint: e.hint }));",
      "}",
    ].join("\n"),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A project whose generated/index.ts re-exports a sibling through a `.js` specifier, as toolgate codegen writes it. */
function project(name: string, withTsx: boolean): string {
  const p = join(dir, name);
  mkdirSync(join(p, "generated"), { recursive: true });
  writeFileSync(join(p, "package.json"), JSON.stringify({ name, type: "module" }));
  writeFileSync(join(p, "generated", "manifest.ts"), 'export const manifest: { tools: Record<string, unknown> } = { tools: { get_account: {} } };\n');
  writeFileSync(join(p, "generated", "index.ts"), 'export { manifest } from "./manifest.js";\nexport type Name = "get_account";\n');
  if (withTsx) {
    mkdirSync(join(p, "node_modules"));
    symlinkSync(join(repoRoot, "node_modules", "tsx"), join(p, "node_modules", "tsx"), "dir");
  }
  return p;
}

function importOnPlainNode(cwd: string): Record<string, unknown> {
  const env = { ...process.env };
  delete env["NODE_OPTIONS"]; // no loader of the test runner's
  const r = spawnSync(process.execPath, [join(dir, "run.mjs"), "generated/index.ts"], { cwd, env, encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
}

describe("importUserModule on plain node (the installed CLI)", () => {
  it("loads a project's TypeScript module through the project's own tsx", () => {
    const out = importOnPlainNode(project("with-tsx", true));
    expect(out).toEqual({ exports: ["manifest"], tools: { get_account: {} } });
  });

  it("without tsx: a typed error naming the file and both ways out", () => {
    const out = importOnPlainNode(project("without-tsx", false));
    expect(out["code"]).toBe("typescript_needs_tsx");
    expect(out["message"]).toMatch(/^generated\/index\.ts is TypeScript, which node v\d+\.\d+\.\d+ cannot load without tsx, and tsx is not installed \(neither in .*without-tsx nor beside toolgate\)$/);
    expect(out["hint"]).toContain("npm install -D tsx");
    expect(out["hint"]).toContain("--generated dist/generated");
  });
});
