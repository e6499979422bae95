import { _ } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => unknown;

/**
 * The one Ajv configuration for tool input/output schemas: JSON Schema 2020-12 (every
 * keyword of its vocabularies, `$anchor` included), strict,
 * formats, and code kept for standalone output. The loader compiles each schema into it
 * (strict-mode problems only show at compile time) and the validator emitter turns the
 * same compiled functions into generated/validators.js, so no schema is compiled twice.
 */
export function createSchemaCompiler(): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    code: { source: true, esm: true, lines: true, formats: _`require("ajv-formats/dist/formats").fullFormats` },
  });
  addFormats(ajv);
  // A 2020-12 core keyword Ajv resolves ($ref "#name") but does not register, so strict mode
  // would call it unknown. Known here as an annotation: the meta-schema checks its form, and
  // every keyword outside 2020-12 stays an error.
  ajv.addKeyword({ keyword: "$anchor", schemaType: "string" });
  return ajv;
}

/** The id a tool's declared context fact schema is registered under. */
export function contextSchemaId(tool: string, fact: string): string {
  return `toolgate:${tool}/context/${fact}`;
}

/** The id a tool's input or output schema is registered under. */
export function schemaId(tool: string, part: "input" | "output"): string {
  return `toolgate:${tool}/${part}`;
}
