/**
 * Start-up cost is what a process loads: help, version and the build-time commands that
 * do not compile Rego never load binaryen or the Wasm backend, and importing the run-time
 * library loads none of the build tools.
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { traceLoads } from "../helpers/cli-process.js";
import { cliBin, repoRoot } from "../helpers/repo.js";

// The emitter's builtin table (emit/builtins.ts) only reads the registry; the backend is everything else there.
const wasmBackend = (url: string): boolean => /\/node_modules\/binaryen\/|\/codegen\/wasm\/emit\/(?!builtins\.ts$)/.test(url);
const buildTools = (url: string): boolean =>
  /\/codegen\/|\/node_modules\/(binaryen|prettier|json-schema-to-typescript)\//.test(url);

describe("the CLI loads only the command it runs", () => {
  const cases: [string, readonly string[], number][] = [
    ["--help", ["--help"], 0],
    ["--version", ["--version"], 0],
    ["codegen --check", ["codegen", "--check"], 0],
    ["check", ["check", "policies"], 0],
    ["fmt --check", ["fmt", "--check", "policies"], 0],
    ["migrate without a database URL", ["migrate"], 1],
  ];
  it.each(cases)("%s never loads binaryen or the Wasm backend", async (_name, args, code) => {
    const run = await traceLoads([cliBin, ...args], { env: { TOOLGATE_PG_URL: undefined } });
    expect(run.code, run.stderr).toBe(code);
    // The trace works: the command's own module shows up in it.
    expect(run.loaded.some((u) => u.includes("/src/cli/main.ts"))).toBe(true);
    expect(run.loaded.filter(wasmBackend)).toEqual([]);
  });

  it("build --help loads neither: the compiler loads when the command runs", async () => {
    const name = "build";
    const run = await traceLoads([cliBin, name, "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Usage: toolgate ${name}`);
    // The trace sees packages: commander itself is in it.
    expect(run.loaded.some((u) => u.includes("/node_modules/commander/"))).toBe(true);
    expect(run.loaded.filter(wasmBackend)).toEqual([]);
  });

  it("--help prints every command without loading any command module", async () => {
    const run = await traceLoads([cliBin, "--help"]);
    for (const name of ["init", "codegen", "check", "build", "eval", "test", "fmt", "migrate", "demo"]) expect(run.stdout).toMatch(new RegExp(`^  ${name} `, "m"));
    expect(run.loaded.filter((u) => u.includes("/src/cli/commands/") && !/\/commands\/(index|build-package)\.ts$/.test(u))).toEqual([]);
  });
});

describe("importing toolgate", () => {
  it("loads no compiler, prettier or json-schema-to-typescript", async () => {
    const script = `await import(${JSON.stringify(join(repoRoot, "src", "index.ts"))});`;
    const run = await traceLoads(["--import", "tsx", "--input-type=module", "-e", script]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.loaded.some((u) => u.includes("/src/runtime/"))).toBe(true);
    expect(run.loaded.filter(buildTools)).toEqual([]);
  });
});

describe("a SQLite-only program", () => {
  it("importing toolgate and opening a SQLite store loads neither pg nor hono", async () => {
    const db = join(tmpdir(), `toolgate-lazy-${process.pid}.db`);
    const script = `const t = await import(${JSON.stringify(join(repoRoot, "src", "index.ts"))});
const store = await t.openStoreFromEnv({ sqlitePath: ${JSON.stringify(db)}, env: {} });
await store.close();`;
    const run = await traceLoads(["--import", "tsx", "--input-type=module", "-e", script], { env: { TOOLGATE_PG_URL: undefined } });
    expect(run.code, run.stderr).toBe(0);
    // The trace sees the SQLite store and its driver, so an absent pg is not a blind spot.
    expect(run.loaded.some((u) => u.includes("/src/store/sqlite/"))).toBe(true);
    expect(run.loaded.some((u) => u.includes("/node_modules/better-sqlite3/"))).toBe(true);
    expect(run.loaded.filter((u) => /\/node_modules\/(pg|pg-pool|hono|@hono\/node-server)\/|\/src\/store\/postgres\/(?!env\.ts$|lazy\.ts$)/.test(u))).toEqual([]);
    rmSync(db, { force: true });
  });
});
