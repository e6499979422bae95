/**
 * A `__proto__` key anywhere in tools.yaml (an input or output property, a nested schema)
 * is a located error through the CLI (exit 1, `tools.yaml:LINE:COL reserved_key`), never a
 * crash of the generator (exit 70 with a stack).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "toolgate-reserved-keys-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tool = (input: string, output = "{ type: object }") => `version: 1
policy:
  entrypoint: toolgate/authz/decision
tools:
  get_thing:
    description: Read a thing.
    effect: read
    input:
      type: object
      additionalProperties: false
      properties:
${input}
    output: ${output}
`;

const cases = [
  { note: "input property", source: tool("        __proto__: { type: string }\n        id: { type: string }"), at: "12:9" },
  { note: "quoted input property", source: tool(`        "__proto__": { type: object, additionalProperties: false }`), at: "12:9" },
  {
    note: "nested property",
    source: tool("        meta:\n          type: object\n          additionalProperties: false\n          properties: { __proto__: { type: string } }"),
    at: "15:25",
  },
  { note: "output property", source: tool("        id: { type: string }", "{ type: object, properties: { __proto__: { type: string } } }"), at: "13:43" },
];

describe("reserved keys in tools.yaml", () => {
  it.each(cases)("a __proto__ key is a located error through the CLI, not a crash: $note", async ({ note, source, at }) => {
    const file = join(dir, `${note.replace(/\W+/g, "-")}.yaml`);
    writeFileSync(file, source);
    const r = await runCli(["codegen", "--config", file, "--out", join(dir, "out")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file.slice(dir.length + 1)}:${at} reserved_key: "__proto__" cannot be a key`);
    expect(r.stderr).toContain("hint: rename the field");
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  });
});
