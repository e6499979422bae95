/**
 * Closed input schemas: every object level of an input schema must be closed
 * (additionalProperties: false or unevaluatedProperties: false), or the loader reports
 * open_input_schema at that level; identity-like names are a lint (warnings).
 */
import { describe, expect, it } from "vitest";
import { loadToolsFile, loadToolsSource } from "../../codegen/toolsyaml/index.js";
import { isIdentityField, looksLikeIdentity } from "../../codegen/toolsyaml/identity-fields.js";

const tool = (input: string) => `version: 1
tools:
  put_thing:
    description: Store a thing.
    effect: reversible_write
    input:
${input
  .trim()
  .split("\n")
  .map((l) => `      ${l}`)
  .join("\n")}
    output: { type: object }
    idempotency: { fingerprint: [id] }
`;

const load = (input: string) => loadToolsSource(tool(input), "tools.yaml");
const codesAt = (input: string) => load(input).errors.filter((e) => e.code === "open_input_schema").map((e) => `${e.location.row}:${e.location.col}`);

describe("closed input schemas", () => {
  it("an open top-level input schema is open_input_schema, located at its type, with a hint", () => {
    const { errors } = load(`
type: object
properties:
  id: { type: string }`);
    expect(errors).toEqual([
      expect.objectContaining({
        code: "open_input_schema",
        location: { file: "tools.yaml", row: 7, col: 13 },
        message: expect.stringContaining("tools.put_thing.input is an object schema that accepts undeclared properties"),
        hint: expect.stringContaining("additionalProperties: false"),
      }),
    ]);
  });

  it("every nested object level must be closed: properties, items, $defs, additionalProperties schemas", () => {
    const input = `
type: object
additionalProperties: false
properties:
  id: { type: string }
  address: { type: object, properties: { city: { type: string } } }
  lines:
    type: array
    items: { type: object, additionalProperties: false, properties: { sku: { type: string }, meta: { type: object } } }
  tags: { type: object, additionalProperties: { type: object } }
$defs:
  money: { type: object, properties: { amount: { type: integer } } }`;
    const { errors } = load(input);
    expect(errors.map((e) => e.message.split(" is an object")[0])).toEqual([
      "tools.put_thing.input.properties.address",
      "tools.put_thing.input.properties.lines.items.properties.meta",
      "tools.put_thing.input.properties.tags",
      "tools.put_thing.input.properties.tags.additionalProperties",
      "tools.put_thing.input.$defs.money",
    ]);
    expect(errors.every((e) => e.code === "open_input_schema")).toBe(true);
  });

  it("unevaluatedProperties: false closes a schema that combines subschemas with allOf", () => {
    expect(codesAt(`
type: object
unevaluatedProperties: false
allOf:
  - { type: object, properties: { id: { type: string } } }
  - { type: object, properties: { note: { type: string } } }`)).toEqual([]);
    expect(codesAt(`
type: object
allOf:
  - { type: object, additionalProperties: false, properties: { id: { type: string } } }`)).toEqual(["7:13"]);
  });

  it("closed schemas load, and the shipped tools.yaml is closed at every level", () => {
    expect(load(`
type: object
additionalProperties: false
required: [id]
properties:
  id: { type: string }
  nested: { type: object, unevaluatedProperties: false, properties: { x: { type: integer } } }`).errors).toEqual([]);
    const shipped = loadToolsFile("tools.yaml");
    expect(shipped.errors).toEqual([]);
    expect(shipped.warnings.filter((w) => w.code === "identity_like_argument")).toEqual([]);
  });
});

describe("identity lint", () => {
  it("near misses are warnings naming the field; exact identity names stay errors", () => {
    const { errors, warnings } = load(`
type: object
additionalProperties: false
properties:
  id: { type: string }
  user_name: { type: string }
  owner_id: { type: string }
  as_user: { type: boolean }
  customer_tenant: { type: string }
  account_id: { type: string }
  recipient: { type: string }`);
    expect(errors).toEqual([]);
    expect(warnings.filter((w) => w.code === "identity_like_argument").map((w) => w.message.match(/property "([^"]+)"/)?.[1])).toEqual([
      "user_name", "owner_id", "as_user", "customer_tenant",
    ]);
    expect(warnings[0]?.location).toEqual({ file: "tools.yaml", row: 11, col: 9 });
  });

  it("the lint covers camelCase, kebab-case and unseparated names, and leaves ordinary names alone", () => {
    for (const name of ["userName", "ownerId", "asUser", "customerTenant", "tenantname", "act-as-principal", "approverEmail", "impersonatedUser", "roleName"]) {
      expect([name, looksLikeIdentity(name) || isIdentityField(name)]).toEqual([name, true]);
    }
    for (const name of ["account_id", "amount", "recipient", "reservation_id", "message", "channel", "memo", "reason", "currency", "limit", "reuse", "rolex"]) {
      expect([name, looksLikeIdentity(name)]).toEqual([name, false]);
    }
  });
});
