/**
 * json.verify_schema and json.match_schema with Ajv (JSON Schema draft-07, formats,
 * unknown keywords ignored, as gojsonschema ignores them), answering in OPA's shape:
 * verify_schema -> [true, null] or [false, "jsonschema: <why>"]; match_schema ->
 * [valid, [{error, type, field, desc}]] with gojsonschema's error types, fields
 * ("(root)", "a.b", "items.0") and descriptions. `pattern` and `patternProperties` are
 * Go regexps, as in gojsonschema, matched by the linear-time engine (re2.ts).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { RegExpEngine } from "ajv/dist/types/index.js";
import addFormatsModule from "ajv-formats";
import { builtinError } from "./errors.js";
import { compileRe2 } from "./re2.js";

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => unknown;

// `code` names the engine in standalone code, which is never generated here.
const re2Engine: RegExpEngine = Object.assign((pattern: string) => compileRe2(pattern), { code: "re2js" });
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true, code: { regExp: re2Engine } });
addFormats(ajv);

/** Compiled schemas by their JSON text (policies usually pass the same few schemas). */
const compiled = new Map<string, ValidateFunction>();
const CACHE_LIMIT = 256;

/** OPA's astValueToJSONSchemaLoader: a JSON string, an object or an array. */
function loadJson(v: unknown): unknown {
  if (typeof v === "string") {
    try {
      return JSON.parse(v);
    } catch {
      throw builtinError("invalid JSON string");
    }
  }
  if (typeof v === "object" && v !== null) return v;
  throw builtinError("wrong type, expected string or object");
}

function compile(schema: unknown): ValidateFunction {
  const key = JSON.stringify(schema);
  const hit = compiled.get(key);
  if (hit !== undefined) return hit;
  if (typeof schema !== "object" && typeof schema !== "boolean") throw builtinError("schema is invalid");
  const fn = ajv.compile(schema as object);
  if (compiled.size >= CACHE_LIMIT) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, fn);
  return fn;
}

export function jsonVerifySchema(schema: unknown): unknown[] {
  try {
    compile(loadJson(schema));
    return [true, null];
  } catch (e) {
    return [false, `jsonschema: ${(e as Error).message}`];
  }
}

/** gojsonschema's type names: integral numbers are "integer". */
function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

const field = (pointer: string): string =>
  pointer === "" ? "(root)" : pointer.slice(1).split("/").map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~")).join(".");

const list = (values: readonly unknown[]): string => values.map((v) => JSON.stringify(v)).join(", ");

/** An Ajv error as gojsonschema's [type, field, description]. */
function describe(e: ErrorObject, data: unknown): [string, string, string] {
  const f = field(e.instancePath);
  const p = e.params as Record<string, unknown>;
  const value = e.instancePath === "" ? data : e.instancePath.slice(1).split("/").reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k.replaceAll("~1", "/").replaceAll("~0", "~")], data);
  switch (e.keyword) {
    case "type": {
      const want = Array.isArray(p["type"]) ? (p["type"] as string[]).join(",") : String(p["type"]);
      return ["invalid_type", f, `Invalid type. Expected: ${want}, given: ${jsonType(value)}`];
    }
    case "required":
      return ["required", f, `${String(p["missingProperty"])} is required`];
    case "enum":
      return ["enum", f, `${f} must be one of the following: ${list(p["allowedValues"] as unknown[])}`];
    case "const":
      return ["const", f, `${f} does not match: ${JSON.stringify(p["allowedValue"])}`];
    case "minimum":
      return ["number_gte", f, `Must be greater than or equal to ${String(p["limit"])}`];
    case "exclusiveMinimum":
      return ["number_gt", f, `Must be greater than ${String(p["limit"])}`];
    case "maximum":
      return ["number_lte", f, `Must be less than or equal to ${String(p["limit"])}`];
    case "exclusiveMaximum":
      return ["number_lt", f, `Must be less than ${String(p["limit"])}`];
    case "multipleOf":
      return ["multiple_of", f, `Must be a multiple of ${String(p["multipleOf"])}`];
    case "minLength":
      return ["string_gte", f, `String length must be greater than or equal to ${String(p["limit"])}`];
    case "maxLength":
      return ["string_lte", f, `String length must be less than or equal to ${String(p["limit"])}`];
    case "pattern":
      return ["pattern", f, `Does not match pattern '${String(p["pattern"])}'`];
    case "format":
      return ["format", f, `Does not match format '${String(p["format"])}'`];
    case "minItems":
      return ["array_min_items", f, `Array must have at least ${String(p["limit"])} items`];
    case "maxItems":
      return ["array_max_items", f, `Array must have at most ${String(p["limit"])} items`];
    case "uniqueItems":
      return ["unique", f, `array items[${String(p["j"])},${String(p["i"])}] must be unique`];
    case "minProperties":
      return ["array_min_properties", f, `Must have at least ${String(p["limit"])} properties`];
    case "maxProperties":
      return ["array_max_properties", f, `Must have at most ${String(p["limit"])} properties`];
    case "additionalProperties":
      return ["additional_property_not_allowed", f, `Additional property ${String(p["additionalProperty"])} is not allowed`];
    case "anyOf":
      return ["number_any_of", f, "Must validate at least one schema (anyOf)"];
    case "oneOf":
      return ["number_one_of", f, "Must validate one and only one schema (oneOf)"];
    case "not":
      return ["number_not", f, "Must not validate the schema (not)"];
    case "if":
      return p["failingKeyword"] === "else" ? ["condition_else", f, 'Must validate "else" as "if" was not valid'] : ["condition_then", f, 'Must validate "then" as "if" was valid'];
    case "contains":
      return ["contains", f, "At least one of the items must match"];
    case "additionalItems":
      return ["array_no_additional_items", f, "No additional items allowed on array"];
    case "dependencies":
      return ["missing_dependency", f, `Has a dependency on ${String(p["deps"])}`];
    case "propertyNames":
      return ["invalid_property_name", f, `Property "${String(p["propertyName"])}" does not match pattern`];
    default:
      return [e.keyword, f, e.message ?? e.keyword];
  }
}

export function jsonMatchSchema(document: unknown, schema: unknown): unknown[] {
  const data = loadJson(document);
  let validate: ValidateFunction;
  try {
    validate = compile(loadJson(schema));
  } catch (e) {
    throw builtinError((e as Error).message);
  }
  if (validate(data)) return [true, []];
  // allOf failures are reported by the failing subschemas themselves, as in gojsonschema
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== "allOf");
  return [
    false,
    errors.map((e) => {
      const [type, f, desc] = describe(e, data);
      return { error: `${f}: ${desc}`, type, field: f, desc };
    }),
  ];
}

export const jsonSchemaBuiltins = {
  "json.verify_schema": jsonVerifySchema,
  "json.match_schema": jsonMatchSchema,
};
