/**
 * `toolgate replay` evaluates the candidate at tools.yaml's `policy.entrypoint`, as `build`,
 * `mcp` and `explain` do, so a project with its own package name replays without --entrypoint.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { runCli } from "../helpers/cli.js";

const ENTRYPOINT = "sre/authz/decision";
let dir: string;
const home = process.cwd();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "toolgate-replay-ep-"));
  const compiled = compilePolicy({
    modules: [{ file: "policies/authz.rego", source: 'package sre.authz\n\ndecision := {"allow": true, "reason": "ok"}\n' }],
    entrypoints: [ENTRYPOINT],
    optimize: false,
  });
  if (compiled.wasm === null) throw new Error(JSON.stringify(compiled.errors));
  writeFileSync(join(dir, "policy.wasm"), compiled.wasm);
  writeFileSync(join(dir, "tools.yaml"), `version: 1\npolicy:\n  entrypoint: ${ENTRYPOINT}\ntools: {}\n`);
  await openSqliteStore(join(dir, "state.db")).close();
  process.chdir(dir);
});
afterAll(() => {
  process.chdir(home);
  rmSync(dir, { recursive: true, force: true });
});

describe("toolgate replay", () => {
  it("replay uses tools.yaml's policy.entrypoint when --entrypoint is not given", async () => {
    const r = await runCli(["replay", "--policy", "policy.wasm", "--db", "state.db"]);
    expect(r.stderr).not.toContain("has no entrypoint");
    expect(r.code).toBe(0);
  });

  it("an explicit --entrypoint still wins over tools.yaml", async () => {
    const r = await runCli(["replay", "--policy", "policy.wasm", "--db", "state.db", "--entrypoint", "toolgate/authz/decision"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no entrypoint "toolgate/authz/decision"');
  });
});
