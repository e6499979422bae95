/**
 * `toolgate check` warns about every external_write tool whose handlers module exports no
 * reconciler (a crashed call of it can only end terminal_failure timeout); without
 * --handlers it names the tools to look at. The starter's own handlers pass.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkReconcilers } from "../../src/cli/reconciler-check.js";
import { repoRoot } from "../helpers/repo.js";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "toolgate-check-reconcilers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const config = join(dir, "tools.yaml");
cpSync(join(repoRoot, "templates/project/tools.yaml"), config);
writeFileSync(join(dir, "authz.rego"), "package toolgate.authz\n\ndecision := {\"allow\": false}\n");
writeFileSync(join(dir, "without.mjs"), "export const handlers = {};\nexport const reconcilers = {};\n");
writeFileSync(join(dir, "with.mjs"), "export const handlers = {};\nexport const reconcilers = { refund_order: async () => ({ ok: \"not_applied\" }) };\n");

describe("toolgate check and reconcilers", () => {
  it("check warns about an external_write tool without a reconcile handler, located at its effect, exit 0", async () => {
    const r = await runCli(["check", join(dir, "authz.rego"), "--config", config, "--handlers", join(dir, "without.mjs")]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^warning: .*tools\.yaml:\d+:\d+ external_write_without_reconciler: refund_order is external_write/m);
    expect(r.stderr).toContain("hint: export reconcilers: { refund_order");
    expect(r.stderr).not.toContain("delete_customer");
    expect(r.stderr).not.toContain("get_order");
  });

  it("no warning when the handlers module exports a reconciler for every external_write tool", async () => {
    const r = await runCli(["check", join(dir, "authz.rego"), "--config", config, "--handlers", join(dir, "with.mjs")]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
  });

  it("without --handlers check lists the external_write tools it could not verify", async () => {
    const r = await runCli(["check", join(dir, "authz.rego"), "--config", config]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("note: external_write tools refund_order: pass --handlers MODULE");
  });

  it("the starter's handlers module has a reconciler for its external_write tool", async () => {
    const starter = await checkReconcilers(config, join(repoRoot, "templates/project/src/handlers.ts"));
    expect(starter).toEqual({ kind: "warnings", warnings: [] });
  });

  it("a handlers module that does not load is a located error, exit 1", async () => {
    const r = await runCli(["check", join(dir, "authz.rego"), "--config", config, "--handlers", join(dir, "missing.mjs")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("handlers_module_error");
  });
});
