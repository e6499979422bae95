/**
 * The loader reports every problem of a catalog in one run: a duplicate key, an unknown
 * effect, a misspelled field, a bad schema and a semantic error in different tools do not
 * hide each other, and an unresolved alias is a located error rather than a stack trace.
 */
import { describe, expect, it } from "vitest";
import { loadToolsSource } from "../../codegen/toolsyaml/index.js";

const catalog = `version: 1
tools:
  get_a:
    description: Read a.
    effect: read
    effect: read
    input: { type: object, properties: { id: { type: string } } }
    output: { type: object }
  put_b:
    description: Write b.
    effect: reversible_writ
    input: { type: object, properties: { id: { type: string } } }
    output: { type: object }
    idempotency: { fingerprint: [id] }
  put_c:
    description: Write c.
    effect: reversible_write
    input: { type: object, properties: { id: { type: string } } }
    output: { type: object }
    idempotency: { fingerprnt: [id] }
  get_d:
    description: Read d.
    effect: read
    input: { type: object, properties: { id: { type: strin } } }
    output: { type: object }
  put_e:
    description: Write e.
    effect: reversible_write
    input: { type: object, properties: { id: { type: string }, user_id: { type: string } } }
    output: { type: object }
    compensation: put_b
`;

describe("tools.yaml loader reports all problems at once", () => {
  const { loaded, errors } = loadToolsSource(catalog, "tools.yaml");
  const found = errors.map((e) => `${e.code}@${e.location.row}:${e.location.col}`);

  it("finds every planted problem, each located", () => {
    expect(loaded).toBeNull();
    expect(found).toEqual(
      expect.arrayContaining([
        "duplicate_key@6:5", // YAML stage
        "invalid_value@11:13", // shape: unknown effect
        "unknown_field@20:20", // shape: misspelled field
        "invalid_json_schema@24:54", // semantics: bad input schema
        "missing_fingerprint@28:13", // semantics: write without a fingerprint
        "identity_in_arguments@29:64", // semantics: identity in the arguments
      ]),
    );
  });

  it("suggests the field and the effect that were meant", () => {
    const misspelled = errors.find((e) => e.code === "unknown_field");
    expect(misspelled?.message).toContain("did you mean `fingerprint`?");
    const effect = errors.find((e) => e.code === "invalid_value" && e.location.row === 11);
    expect(effect?.message).toContain("did you mean `reversible_write`?");
  });

  it("does not judge a reference to a tool it could not check", () => {
    // put_e's compensation names put_b, whose effect is broken: no second, misleading error.
    expect(errors.filter((e) => e.code === "invalid_compensation")).toEqual([]);
  });

  it("an unresolved alias is a located yaml_syntax_error", () => {
    const r = loadToolsSource("version: 1\ntools:\n  a: *missing\n", "tools.yaml");
    expect(r.errors).toEqual([expect.objectContaining({ code: "yaml_syntax_error", location: { file: "tools.yaml", row: 3, col: 6 } })]);
    expect(r.errors[0]?.message).toContain("*missing");
  });

  it("a problem in the file's own shape still stops the tool checks", () => {
    const r = loadToolsSource("version: 1\ntools: [1]\n", "tools.yaml");
    expect(r.errors.map((e) => e.code)).toEqual(["invalid_type"]);
  });
});
