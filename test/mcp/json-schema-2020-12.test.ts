/**
 * tools.yaml schemas are JSON Schema 2020-12: every keyword of its vocabularies compiles under
 * the strict schema compiler (`$anchor` included) and is advertised over MCP as written, while
 * a keyword outside 2020-12 stays a located `invalid_json_schema` error.
 */
import { describe, expect, it } from "vitest";
import { loadToolsSource, schemaId } from "../../codegen/toolsyaml/index.js";
import { toMcpTool } from "../../src/mcp/index.js";
import { manifest, validators } from "./conformance/fixture/generated/index.js";

/** A read tool whose input schema gets `schemaLines` (indented under `input:`). */
const toolsYaml = (schemaLines: string) => `version: 1
tools:
  find_contact:
    description: Finds a contact.
    effect: read
    input:
      type: object
      additionalProperties: false
${schemaLines}
    output: { type: object }
`;

const withAnchor = (anchorLine: string) =>
  toolsYaml(`      $defs:
        address:
${anchorLine}
          type: object
          additionalProperties: false
          properties:
            city: { type: string }
      properties:
        home: { $ref: "#home-address" }`);

describe("JSON Schema 2020-12 keywords in tools.yaml schemas", () => {
  it("a schema with $anchor loads under the strict compiler, and a $ref to the anchor validates against the anchored schema", () => {
    const { loaded, errors } = loadToolsSource(withAnchor("          $anchor: home-address"), "tools.yaml");
    expect(errors).toEqual([]);
    const validate = loaded?.schemas.getSchema(schemaId("find_contact", "input"));
    expect(validate?.({ home: { city: "Lyon" } })).toBe(true);
    expect(validate?.({ home: { city: "Lyon", street: "x" } })).toBe(false);
    expect(validate?.({ home: "Lyon" })).toBe(false);
  });

  it("the generated validator of a tool whose schema uses $anchor resolves it, and the MCP listing advertises $anchor as written", () => {
    const tool = manifest.tools["json_schema_2020_12_tool"];
    expect(tool).toBeDefined();
    const advertised = toMcpTool(tool!).inputSchema as { $defs?: Record<string, Record<string, unknown>> };
    expect(advertised.$defs?.["address"]?.["$anchor"]).toBe("address");
    const validate = validators["json_schema_2020_12_tool"]?.input;
    expect(validate?.({ email: "a@b.c", address: { city: "Lyon" } })).toBe(true);
    expect(validate?.({ email: "a@b.c", address: { city: "Lyon", planet: "Mars" } })).toBe(false);
  });

  it("a keyword outside JSON Schema 2020-12 is still a located invalid_json_schema error (strict mode is kept)", () => {
    const { loaded, errors } = loadToolsSource(withAnchor("          $anchor: home-address\n          $anchorr: typo"), "tools.yaml");
    expect(loaded).toBeNull();
    const problem = errors.find((e) => e.code === "invalid_json_schema");
    expect(problem?.message).toContain('unknown keyword: "$anchorr"');
    // At the schema that holds it (strict-mode problems show only when the schema compiles).
    expect(problem?.location).toEqual({ file: "tools.yaml", row: 7, col: 7 });
  });

  it("a malformed $anchor is refused by the 2020-12 meta-schema, located", () => {
    const { loaded, errors } = loadToolsSource(withAnchor("          $anchor: 9-not-an-anchor"), "tools.yaml");
    expect(loaded).toBeNull();
    const problem = errors.find((e) => e.code === "invalid_json_schema");
    expect(problem?.message).toContain("tools.find_contact.input.$defs.address.$anchor must match pattern");
    expect(problem?.location).toEqual({ file: "tools.yaml", row: 11, col: 20 });
  });
});
