/** json.verify_schema and json.match_schema: OPA's result shape and gojsonschema's error objects. */
import { describe, expect, it } from "vitest";
import { evaluate } from "../wasm-emit/sdk-harness.js";
import { call } from "./helpers.js";

const schema = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 }, tags: { type: "array", items: { enum: ["a", "b"] } } },
  required: ["name"],
  additionalProperties: false,
};

const error = (field: string, type: string, desc: string) => ({ error: `${field}: ${desc}`, type, field, desc });

describe("json.match_schema", () => {
  it("a matching document: [true, []], schema and document as objects or JSON strings", () => {
    expect(call("json.match_schema", { name: "ann", age: 3 }, schema)).toEqual({ ok: [true, []] });
    expect(call("json.match_schema", '{"name": "ann"}', JSON.stringify(schema))).toEqual({ ok: [true, []] });
  });

  it("every violation as {error, type, field, desc}, fields as gojsonschema names them", () => {
    const out = call("json.match_schema", { age: -1.5, tags: ["a", "c"], x: 1 }, schema) as { ok: [boolean, unknown[]] };
    expect(out.ok[0]).toBe(false);
    expect(out.ok[1]).toEqual(
      expect.arrayContaining([
        error("(root)", "required", "name is required"),
        error("(root)", "additional_property_not_allowed", "Additional property x is not allowed"),
        error("age", "invalid_type", "Invalid type. Expected: integer, given: number"),
        error("age", "number_gte", "Must be greater than or equal to 0"),
        error("tags.1", "enum", 'tags.1 must be one of the following: "a", "b"'),
      ]),
    );
    expect(out.ok[1]).toHaveLength(5);
  });

  it("formats are checked", () => {
    expect(call("json.match_schema", { at: "yesterday" }, { properties: { at: { format: "date-time" } } })).toEqual({
      ok: [false, [error("at", "format", "Does not match format 'date-time'")]],
    });
  });

  it("a document or schema that is not JSON is an error, as in OPA", () => {
    expect(call("json.match_schema", "{", schema)).toEqual({ error: "eval_builtin_error: invalid JSON string" });
    expect(call("json.match_schema", {}, 5)).toEqual({ error: "eval_builtin_error: wrong type, expected string or object" });
    expect(call("json.match_schema", {}, { type: "nope" })).toMatchObject({ error: expect.stringContaining("eval_builtin_error: schema is invalid") });
  });
});

describe("json.verify_schema", () => {
  it("[true, null] for a valid schema, [false, 'jsonschema: ...'] otherwise", () => {
    expect(call("json.verify_schema", schema)).toEqual({ ok: [true, null] });
    expect(call("json.verify_schema", "{")).toEqual({ ok: [false, "jsonschema: invalid JSON string"] });
    expect(call("json.verify_schema", { type: "nope" })).toMatchObject({ ok: [false, expect.stringMatching(/^jsonschema: schema is invalid/)] });
  });

  it("runs end to end through the SDK", async () => {
    const rs = (await evaluate({
      modules: ["package t"],
      query: 'x := json.match_schema({"a": 1}, {"properties": {"a": {"type": "string"}}}); y := json.verify_schema({"type": "string"})',
    })) as { x: unknown; y: unknown }[];
    expect(rs[0]!.x).toEqual([false, [error("a", "invalid_type", "Invalid type. Expected: string, given: integer")]]);
    expect(rs[0]!.y).toEqual([true, null]);
  });
});
