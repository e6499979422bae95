import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCodegen } from "../../codegen/codegen.js";
import { runCli } from "../helpers/cli.js";

const root = new URL("../../", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "toolgate-drift-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const cli = async (args: string[]) => {
  const r = await runCli(args, { cwd: work });
  return { code: r.code, out: `${r.stdout}${r.stderr}` };
};

describe("codegen --check detects drift", () => {
  it("passes when current, fails naming the stale file after a schema change, and a rerun updates the types", async () => {
    cpSync(join(root, "tools.yaml"), join(work, "tools.yaml"));
    const config = join(work, "tools.yaml");
    const out = join(work, "generated");
    expect((await runCodegen({ config, out, check: false })).kind).toBe("written");
    expect((await runCodegen({ config, out, check: true })).kind).toBe("up_to_date");

    const before = readFileSync(join(out, "types.ts"), "utf8");
    expect(before).not.toContain("priority");
    writeFileSync(config, readFileSync(config, "utf8").replace("        memo: { type: string, maxLength: 140 }", "        memo: { type: string, maxLength: 140 }\n        priority: { type: integer }"));
    const stale = await runCodegen({ config, out, check: true });
    expect(stale.kind).toBe("stale");
    expect(stale.kind === "stale" ? stale.files.map((f) => f.slice(out.length + 1)) : []).toEqual(
      expect.arrayContaining(["types.ts", "validators.js"]),
    );

    await runCodegen({ config, out, check: false });
    expect(readFileSync(join(out, "types.ts"), "utf8")).toMatch(/priority\?: number/);
  });

  it("the CLI exits 1 on stale output and on a bad config, printing located errors", { timeout: 180_000 }, async () => {
    writeFileSync(join(work, "bad.yaml"), "version: 1\ntools:\n  x:\n    description: d\n    effect: nope\n    input: { type: object, properties: {} }\n    output: { type: object }\n");
    const bad = await cli(["codegen", "--config", "bad.yaml", "--out", "g2"]);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain("bad.yaml:5:13 invalid_value:");
    expect(bad.out).not.toMatch(/\n\s+at /); // no stack trace

    expect((await cli(["codegen", "--out", "g3"])).code).toBe(0);
    expect((await cli(["codegen", "--out", "g3", "--check"])).code).toBe(0);
    writeFileSync(join(work, "g3", "manifest.ts"), "// edited by hand\n");
    const check = await cli(["codegen", "--out", "g3", "--check"]);
    expect(check.code).toBe(1);
    expect(check.out).toContain("g3/manifest.ts");
  });
});
