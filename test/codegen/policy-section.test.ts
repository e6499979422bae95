/** tools.yaml's policy section, read without the full loader: what build, check, test and eval take from it. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPolicySection } from "../../codegen/toolsyaml/policy-section.js";

function toolsFile(text: string, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-policy-section-"));
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body);
  const p = join(dir, "tools.yaml");
  writeFileSync(p, text);
  return p;
}

describe("loadPolicySection", () => {
  it("reads the entrypoint even when the rest of the file is invalid", () => {
    const p = toolsFile("version: 1\npolicy:\n  entrypoint: a/b/decision\n  rego_version: v0\ntools:\n  t:\n    effect: not_an_effect\n");
    expect(loadPolicySection(p)).toEqual({ entrypoint: "a/b/decision", regoVersion: "v0", builtins: null, errors: [] });
  });

  it("resolves policy.builtins against the folder of tools.yaml", () => {
    const p = toolsFile("version: 1\npolicy:\n  entrypoint: a/b\n  builtins: ./b.mjs\ntools: {}\n", { "b.mjs": "export default {}\n" });
    const s = loadPolicySection(p);
    expect(s.errors).toEqual([]);
    expect(s.builtins?.module).toBe("./b.mjs");
    expect(s.builtins?.path).toBe(join(p, "..", "b.mjs"));
    expect(s.builtins?.location.row).toBe(4);
  });

  it("reports a missing builtins module and a builtins value that is not a string, at their line", () => {
    const missing = loadPolicySection(toolsFile("version: 1\npolicy:\n  entrypoint: a/b\n  builtins: ./nope.mjs\ntools: {}\n"));
    expect(missing.errors.map((e) => [e.code, e.location.row])).toEqual([["policy_builtins_missing", 4]]);
    const bad = loadPolicySection(toolsFile("version: 1\npolicy:\n  entrypoint: a/b\n  builtins: 3\ntools: {}\n"));
    expect(bad.errors.map((e) => [e.code, e.location.row])).toEqual([["policy_builtins_invalid", 4]]);
  });

  it("gives nothing for a file that does not parse or has no policy section", () => {
    const none = { entrypoint: undefined, regoVersion: undefined, builtins: null, errors: [] };
    expect(loadPolicySection(toolsFile("version: 1\npolicy: [\n"))).toEqual(none);
    expect(loadPolicySection(toolsFile("version: 1\ntools: {}\n"))).toEqual(none);
    expect(loadPolicySection(join(tmpdir(), "no-such-dir-toolgate", "tools.yaml"))).toEqual(none);
  });
});
