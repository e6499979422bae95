/**
 * tools.yaml `errors:`: thrown errors by code or name, for all tools (top level) and per tool;
 * the manifest merges them (the tool's entry wins), the retry budget defaults count them, and a
 * malformed mapping is a located error, in the loader and in `toolgate check` alike.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../codegen/diagnostics.js";
import { checkErrorClasses } from "../../codegen/toolsyaml/error-classes.js";
import { loadToolsSource } from "../../codegen/toolsyaml/index.js";
import { parseYamlSource } from "../../codegen/toolsyaml/yaml-source.js";
import { runCli } from "../helpers/cli.js";

const tool = (name: string, effect: string, extra = "") => `  ${name}:
    description: A tool.
    effect: ${effect}
    input:
      type: object
      additionalProperties: false
      properties:
        id: { type: string }
    output: { type: object }
${effect === "read" ? "" : "    idempotency: { fingerprint: [id] }\n"}${extra}`;

const file = (head: string, tools: string) => `version: 1\n${head}tools:\n${tools}`;

const load = (source: string) => loadToolsSource(source, "tools.yaml");

describe("tools.yaml errors: classes", () => {
  it("top-level classes apply to every tool and a tool's own entry of the same key wins", () => {
    const r = load(
      file(
        "errors:\n  ECONNREFUSED: retryable\n  AbortError: permanent\n",
        tool("get_x", "read", "    errors: { AbortError: { class: retryable, retry_after_ms: 50 } }\n") + tool("put_x", "reversible_write"),
      ),
    );
    expect(r.errors).toEqual([]);
    const tools = r.loaded!.manifest.tools;
    expect(tools.get_x!.errors).toEqual({ AbortError: { class: "retryable", retry_after_ms: 50 }, ECONNREFUSED: { class: "retryable", retry_after_ms: 1000 } });
    expect(tools.put_x!.errors).toEqual({ AbortError: { class: "permanent" }, ECONNREFUSED: { class: "retryable", retry_after_ms: 1000 } });
  });

  it("a catalog without errors: has no errors in its manifest", () => {
    const r = load(file("", tool("get_x", "read")));
    expect(r.loaded!.manifest.tools.get_x).not.toHaveProperty("errors");
  });

  it("the retry budget defaults to 3 for a read and for a write with a retryable thrown error, else 1", () => {
    const r = load(file("", tool("get_x", "read") + tool("put_x", "reversible_write", "    errors: { ECONNREFUSED: retryable }\n") + tool("set_x", "reversible_write", "    errors: { EACCES: permanent }\n")));
    const tools = r.loaded!.manifest.tools;
    expect([tools.get_x!.retry.max_attempts, tools.put_x!.retry.max_attempts, tools.set_x!.retry.max_attempts]).toEqual([3, 3, 1]);
  });

  it("a retryable thrown error with retry.max_attempts 1 is warned about, like a retryable failure", () => {
    const r = load(file("errors: { ECONNREFUSED: retryable }\n", tool("put_x", "reversible_write", "    retry: { max_attempts: 1 }\n")));
    expect(r.errors).toEqual([]);
    expect(r.warnings.map(formatDiagnostic)).toEqual([expect.stringMatching(/^tools\.yaml:14:28 retryable_without_retry: .*thrown ECONNREFUSED/)]);
  });

  const bad: { note: string; source: string; code: string; at: string }[] = [
    { note: "an unknown class", source: file("", tool("put_x", "reversible_write", "    errors: { ECONNRESET: sometimes }\n")), code: "invalid_value", at: "13:27" },
    { note: "a misspelled class in the object form", source: file("errors:\n  ETIMEDOUT: { class: retry }\n", tool("get_x", "read")), code: "invalid_value", at: "3:14" },
    { note: "a negative retry_after_ms", source: file("errors:\n  ETIMEDOUT: { class: retryable, retry_after_ms: -5 }\n", tool("get_x", "read")), code: "invalid_value", at: "3:14" },
    { note: "an unknown field in the object form", source: file("", tool("get_x", "read", "    errors:\n      E1: { class: permanent, after: 5 }\n")), code: "invalid_value", at: "13:11" },
    { note: "errors that is not a map", source: file("errors: [ECONNRESET]\n", tool("get_x", "read")), code: "invalid_type", at: "2:9" },
  ];
  it.each(bad)("$note is a located error in the loader and in check", ({ source, code, at }) => {
    const r = load(source);
    expect(r.loaded).toBeNull();
    const loader = r.errors.map((e) => `${e.code}@${e.location.row}:${e.location.col}`);
    expect(loader).toContain(`${code}@${at}`);
    const checked = checkErrorClasses(parseYamlSource(source, "tools.yaml").source!).map((e) => `${e.code}@${e.location.row}:${e.location.col}`);
    expect(checked).toEqual([`${code}@${at}`]);
  });

  it("a key that is not an error code or name is rejected by both, the check at the key", () => {
    const source = file("", tool("get_x", "read", '    errors: { "connection reset": retryable }\n'));
    expect(load(source).errors.length).toBeGreaterThan(0);
    const checked = checkErrorClasses(parseYamlSource(source, "tools.yaml").source!);
    expect(checked.map(formatDiagnostic)).toEqual([expect.stringMatching(/^tools\.yaml:12:15 schema_violation: tools\.get_x\.errors has the key "connection reset"/)]);
  });

  it("well-formed classes give the check nothing to say", () => {
    const source = file("errors:\n  ECONNREFUSED: retryable\n  ETIMEDOUT: { class: retryable, retry_after_ms: 500 }\n", tool("get_x", "read", "    errors: { AbortError: permanent }\n"));
    expect(checkErrorClasses(parseYamlSource(source, "tools.yaml").source!)).toEqual([]);
  });
});

describe("toolgate check", () => {
  const dir = mkdtempSync(join(tmpdir(), "tg-check-errors-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reports a malformed errors: class in tools.yaml at its line and exits 1, and passes once it is fixed", async () => {
    mkdirSync(join(dir, "policies"), { recursive: true });
    writeFileSync(join(dir, "policies", "authz.rego"), "package toolgate.authz\n\ndecision := {\"allow\": false}\n");
    writeFileSync(join(dir, "tools.yaml"), file("errors:\n  ECONNRESET: retryabel\n", tool("get_x", "read")));
    const r = await runCli(["check"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("tools.yaml:3:15 invalid_value: errors.ECONNRESET has none of the accepted forms");
    expect(r.stderr).toContain("hint: write `retryable`");
    writeFileSync(join(dir, "tools.yaml"), file("errors:\n  ECONNRESET: retryable\n", tool("get_x", "read")));
    const fixed = await runCli(["check"], { cwd: dir });
    expect(fixed.stderr).toBe("");
    expect(fixed.code).toBe(0);
  }, 120_000);
});
