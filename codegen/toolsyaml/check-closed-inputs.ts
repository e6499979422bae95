/**
 * Closed input schemas: every object level of a tool's input schema must say
 * `additionalProperties: false` or `unevaluatedProperties: false`, or the model can pass
 * fields nobody declared (`{"tenant": "t_evil"}`) straight to the handler. Subschemas that
 * describe the same value through allOf/anyOf/oneOf/not/if/then/else count as closed when
 * the schema that combines them is closed.
 */
import type { Diagnostic } from "../diagnostics.js";

type Locate = (path: readonly (string | number)[], key?: boolean) => Diagnostic["location"];
type Schema = Readonly<Record<string, unknown>>;

const isSchema = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** Keywords whose subschemas apply to the same value (so closure above covers them). */
const sameValue = ["allOf", "anyOf", "oneOf"] as const;
const sameValueSingle = ["not", "if", "then", "else"] as const;
/** Keywords whose subschemas describe other values (members, items, definitions). */
const mapsOfSchemas = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"] as const;
const singleSchemas = ["items", "additionalItems", "contains", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "propertyNames"] as const;
const listsOfSchemas = ["prefixItems"] as const;

function isObjectLevel(s: Schema): boolean {
  const t = s["type"];
  if (t === "object") return true;
  if (Array.isArray(t)) return t.includes("object");
  return t === undefined && ("properties" in s || "patternProperties" in s || "required" in s);
}

const closes = (s: Schema): boolean => s["additionalProperties"] === false || s["unevaluatedProperties"] === false;

export function checkClosedInputs(tool: string, input: unknown, at: Locate): Diagnostic[] {
  const out: Diagnostic[] = [];
  const walk = (s: unknown, path: (string | number)[], closedAbove: boolean): void => {
    if (!isSchema(s)) return;
    const closed = closedAbove || closes(s);
    if (isObjectLevel(s) && !closed) {
      const where = path.length === 1 ? `tools.${tool}.input` : `tools.${tool}.${path.join(".")}`;
      out.push({
        code: "open_input_schema",
        message: `${where} is an object schema that accepts undeclared properties; a model could pass any field (e.g. "tenant") to the handler`,
        location: at("type" in s ? [...path, "type"] : path),
        hint: "add additionalProperties: false (or unevaluatedProperties: false when it combines subschemas with allOf/anyOf/oneOf)",
      });
    }
    for (const k of sameValue) {
      const list = s[k];
      if (Array.isArray(list)) list.forEach((sub, i) => walk(sub, [...path, k, i], closed));
    }
    for (const k of sameValueSingle) walk(s[k], [...path, k], closed);
    for (const k of mapsOfSchemas) {
      const map = s[k];
      if (isSchema(map)) for (const [name, sub] of Object.entries(map)) walk(sub, [...path, k, name], false);
    }
    for (const k of singleSchemas) walk(s[k], [...path, k], false);
    for (const k of listsOfSchemas) {
      const list = s[k];
      if (Array.isArray(list)) list.forEach((sub, i) => walk(sub, [...path, k, i], false));
    }
  };
  walk(input, ["input"], false);
  return out;
}
