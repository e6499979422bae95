import { Ajv, type ErrorObject } from "ajv";
import type { Diagnostic } from "../diagnostics.js";
import { closestName } from "../suggest.js";
import fileSchema from "./tools-yaml.schema.json" with { type: "json" };
import type { YamlSource } from "./yaml-source.js";

// verbose: errors carry their schema, whose property names feed "did you mean".
const ajv = new Ajv({ allErrors: true, strict: true, verbose: true });
const validateFile = ajv.compile(fileSchema);

/** Hints keyed by the schema keyword that failed. */
const hints: Record<string, string> = {
  additionalProperties: "remove it, or check its spelling against the tools.yaml reference",
  required: "add the missing field",
  enum: "use one of the allowed values",
  const: "use the allowed value",
  type: "change the value to the expected type",
  pattern: "change the value to match the expected form",
  minItems: "list at least one entry",
  uniqueItems: "remove the repeated entry",
  minimum: "use a larger value",
  maximum: "use a smaller value",
  minLength: "write a non-empty value",
  minProperties: "declare at least one entry",
  oneOf: "see the tools.yaml reference for the accepted forms",
  propertyNames: "use a snake_case name",
};

export interface ShapeResult {
  readonly errors: Diagnostic[];
  /** Tools with a problem inside them: later stages, which assume the shape, skip them. */
  readonly brokenTools: ReadonlySet<string>;
  /** A problem outside any one tool (version, policy, the tools map itself): later stages cannot run. */
  readonly fileBroken: boolean;
}

/** Validates the file against tools-yaml.schema.json; one located diagnostic per offending place. */
export function validateShape(source: YamlSource): ShapeResult {
  if (validateFile(source.value)) return { errors: [], brokenTools: new Set(), fileBroken: false };
  const errors = validateFile.errors ?? [];
  const brokenTools = new Set<string>();
  let fileBroken = false;
  for (const e of errors) {
    const [top, name] = pointerToPath(e.instancePath);
    if (top === "tools" && name !== undefined) brokenTools.add(name);
    // An unknown top-level field or a bad version leaves the rest checkable.
    else if (!(top === undefined && e.keyword === "additionalProperties") && top !== "version") fileBroken = true;
  }
  const oneOfPaths = new Set(errors.filter((e) => e.keyword === "oneOf").map((e) => e.instancePath));
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const error of errors) {
    // Inside a oneOf, the branch errors are noise: report the oneOf itself once.
    const insideOneOf = [...oneOfPaths].some((p) => error.instancePath === p || error.instancePath.startsWith(`${p}/`));
    if (insideOneOf && error.keyword !== "oneOf") continue;
    const diagnostic = toDiagnostic(error, source);
    const key = `${diagnostic.location.row}:${diagnostic.location.col}:${diagnostic.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(diagnostic);
  }
  return { errors: out, brokenTools, fileBroken };
}

function toDiagnostic(error: ErrorObject, source: YamlSource): Diagnostic {
  const path = pointerToPath(error.instancePath);
  const where = path.length === 0 ? "the file" : path.join(".");
  const hint = hints[error.keyword] ?? "see the tools.yaml reference";
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "additionalProperties": {
      const field = String(params["additionalProperty"]);
      const close = closestName(field, Object.keys(schemaProperties(error.parentSchema)));
      return {
        code: "unknown_field",
        message: `unknown field "${field}" in ${where}${close === null ? "" : `; did you mean \`${close}\`?`}`,
        location: source.locate([...path, field], { key: true }),
        hint: close === null ? hint : `rename it to \`${close}\``,
      };
    }
    case "required":
      return {
        code: "missing_field",
        message: `${where} is missing required field "${String(params["missingProperty"])}"`,
        location: source.locate(path, { key: true }),
        hint,
      };
    case "enum": {
      const allowed = params["allowedValues"] as unknown[];
      const close = typeof error.data === "string" ? closestName(error.data, allowed.filter((v): v is string => typeof v === "string")) : null;
      return {
        code: "invalid_value",
        message: `${where} must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}${close === null ? "" : `; did you mean \`${close}\`?`}`,
        location: source.locate(path),
        hint: close === null ? hint : `write \`${close}\``,
      };
    }
    case "oneOf":
      return { code: "invalid_value", message: `${where} has none of the accepted forms`, location: source.locate(path), hint };
    case "type":
      return { code: "invalid_type", message: `${where} must be ${String(params["type"])}`, location: source.locate(path), hint };
    default:
      return {
        code: error.keyword === "pattern" || error.keyword === "const" ? "invalid_value" : "schema_violation",
        message: `${where} ${error.message ?? "is invalid"}`,
        location: source.locate(path),
        hint,
      };
  }
}

function schemaProperties(schema: unknown): Record<string, unknown> {
  const props = (schema as { properties?: unknown } | null | undefined)?.properties;
  return props !== null && typeof props === "object" ? (props as Record<string, unknown>) : {};
}

function pointerToPath(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}
