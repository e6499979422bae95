import { describe, expect, it } from "vitest";
import { loadToolsFile, loadToolsSource, maxDiagnostics } from "../../codegen/toolsyaml/index.js";

/** A valid write tool; cases patch one thing. `%EXTRA%` adds lines to the tool. */
const writeTool = (name = "reserve_funds", extra = "") => `  ${name}:
    description: Hold funds.
    effect: reversible_write
    input:
      type: object
      properties:
        account_id: { type: string }
        amount: { type: integer }
    output: { type: object }
    idempotency: { fingerprint: [account_id, amount] }
${extra}`;

const file = (tools: string, head = "version: 1\n") => `${head}tools:\n${tools}`;

interface Case {
  readonly note: string;
  readonly source: string;
  readonly code: string;
  readonly at: string; // row:col
}

const cases: Case[] = [
  { note: "yaml syntax error", source: "version: 1\ntools: { a: [1, 2 }\n", code: "yaml_syntax_error", at: "2:19" },
  { note: "duplicate key", source: file(writeTool()).replace("    effect:", "    effect: read\n    effect:"), code: "duplicate_key", at: "6:5" },
  { note: "unknown top-level field", source: file(writeTool(), "version: 1\nvesion: 2\n"), code: "unknown_field", at: "2:1" },
  { note: "missing version", source: file(writeTool(), ""), code: "missing_field", at: "1:1" },
  { note: "unsupported version", source: file(writeTool(), "version: 2\n"), code: "invalid_value", at: "1:10" },
  { note: "unknown effect", source: file(writeTool()).replace("reversible_write", "write"), code: "invalid_value", at: "5:13" },
  { note: "misspelled tool field", source: file(writeTool("reserve_funds", "    compensaton: x\n")), code: "unknown_field", at: "13:5" },
  { note: "invalid tool name", source: file(writeTool("Reserve-Funds")), code: "invalid_tool_name", at: "3:3" },
  { note: "identity field in input", source: file(writeTool()).replace("        amount:", "        tenant_id: { type: string }\n        amount:"), code: "identity_in_arguments", at: "10:9" },
  {
    note: "nested identity field in input",
    source: file(writeTool()).replace("        amount: { type: integer }", "        amount: { type: integer }\n        meta: { type: object, properties: { approvedBy: { type: string } } }"),
    code: "identity_in_arguments",
    at: "11:45",
  },
  { note: "unknown fingerprint field", source: file(writeTool()).replace("[account_id, amount]", "[account_id, amount, currency]"), code: "unknown_fingerprint_field", at: "12:54" },
  { note: "unknown preview field", source: file(writeTool("reserve_funds", "    approval: { preview: [recipient] }\n")), code: "unknown_preview_field", at: "13:27" },
  { note: "unknown sensitive field", source: file(writeTool("reserve_funds", "    sensitive: [account_id, card_number]\n")), code: "unknown_sensitive_field", at: "13:29" },
  { note: "sensitive is not a list", source: file(writeTool("reserve_funds", "    sensitive: account_id\n")), code: "invalid_type", at: "13:16" },
  { note: "write without fingerprint", source: file(writeTool()).replace("    idempotency: { fingerprint: [account_id, amount] }\n", ""), code: "missing_fingerprint", at: "5:13" },
  { note: "compensation names no tool", source: file(writeTool("reserve_funds", "    compensation: release_funds\n")), code: "invalid_compensation", at: "13:19" },
  {
    note: "compensation is not reversible",
    source: file(writeTool("reserve_funds", "    compensation: pay\n") + writeTool("pay").replace("reversible_write", "external_write")),
    code: "invalid_compensation",
    at: "13:19",
  },
  { note: "invalid JSON Schema", source: file(writeTool()).replace("amount: { type: integer }", "amount: { type: integr }"), code: "invalid_json_schema", at: "10:25" },
  { note: "unknown keyword under ajv strict mode", source: file(writeTool()).replace("output: { type: object }", "output: { type: object, colour: red }"), code: "invalid_json_schema", at: "11:13" },
  { note: "malformed duration", source: file(writeTool()).replace("[account_id, amount] }", "[account_id, amount], retention: 24 hours }"), code: "invalid_value", at: "12:66" },
  { note: "malformed failure", source: file(writeTool("reserve_funds", "    failures: { ledger_down: sometimes }\n")), code: "invalid_value", at: "13:30" },
  { note: "input is not an object schema", source: file(writeTool()).replace("      type: object\n      properties:", "      type: array\n      items: { type: string }\n      x-properties:"), code: "input_not_object", at: "7:7" },
  { note: "input without properties", source: file(writeTool("get_x").replace("reversible_write", "read").replace(/    input:[\s\S]*?    output/, "    input: { type: object }\n    output")), code: "input_not_object", at: "6:12" },
  {
    note: "postcondition names an unknown argument",
    source: file(writeTool("reserve_funds", "    postcondition: { observed: { amount: $args.amt } }\n")),
    code: "unknown_postcondition_field",
    at: "13:42",
  },
  { note: "no tools", source: "version: 1\ntools: {}\n", code: "schema_violation", at: "2:8" },
];

describe("tools.yaml loader rejects bad input with a located, typed error", () => {
  it.each(cases)("$note -> $code at $at", ({ source, code, at }) => {
    const { loaded, errors } = loadToolsSource(source, "tools.yaml");
    expect(loaded).toBeNull();
    const found = errors.map((e) => `${e.code}@${e.location.row}:${e.location.col}`);
    expect(found).toContain(`${code}@${at}`);
    for (const e of errors) {
      expect(e.location.file).toBe("tools.yaml");
      expect(e.hint).toBeTruthy();
    }
  });

  it("has at least 15 distinct bad inputs", () => {
    expect(new Set(cases.map((c) => c.note)).size).toBeGreaterThanOrEqual(15);
  });

  it("reports all problems of a file at once, sorted by position", () => {
    const closed = (tool: string) => tool.replace("      type: object\n", "      type: object\n      additionalProperties: false\n");
    const source = file(
      closed(writeTool("a_tool").replace("[account_id, amount]", "[nope]")) + closed(writeTool("b_tool", "    compensation: ghost\n").replace("amount:", "user_id:")),
    );
    const { errors } = loadToolsSource(source, "tools.yaml");
    expect(errors.map((e) => e.code)).toEqual(["unknown_fingerprint_field", "identity_in_arguments", "unknown_fingerprint_field", "invalid_compensation"]);
    const rows = errors.map((e) => e.location.row);
    expect([...rows].sort((x, y) => x - y)).toEqual(rows);
  });

  it(`caps the report at ${maxDiagnostics} problems`, () => {
    const tools = Array.from({ length: 60 }, (_, i) => writeTool(`t${i}`).replace("[account_id, amount]", "[missing]")).join("");
    const { errors } = loadToolsSource(file(tools), "tools.yaml");
    expect(errors).toHaveLength(maxDiagnostics);
  });

  it("reports a missing file without throwing", () => {
    const { loaded, errors } = loadToolsFile("/nonexistent/tools.yaml", "tools.yaml");
    expect(loaded).toBeNull();
    expect(errors[0]?.code).toBe("file_unreadable");
  });

  it("accepts the shipped example with all four effect classes", () => {
    const { loaded, errors } = loadToolsFile(new URL("../../tools.yaml", import.meta.url).pathname);
    expect(errors).toEqual([]);
    const effects = new Set(Object.values(loaded?.manifest.tools ?? {}).map((t) => t.effect));
    expect([...effects].sort()).toEqual(["destructive", "external_write", "read", "reversible_write"]);
    expect(Object.keys(loaded?.manifest.tools ?? {}).length).toBeGreaterThanOrEqual(8);
  });
});
