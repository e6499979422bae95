/**
 * tools.yaml's `errors:` maps alone (the file's and each tool's), for `toolgate check`: the YAML
 * is parsed with positions and only these maps are judged, without ajv (as policy-section.ts),
 * with the codes and locations the full loader gives for them (`tools-yaml.schema.json`
 * `errorClasses`; test/codegen/loader-error-classes.test.ts holds the two to each other).
 * Enters: tools.yaml's text. Leaves: located diagnostics, empty when the maps are well formed.
 */
import { readFileSync } from "node:fs";
import type { Diagnostic } from "../diagnostics.js";
import { closestName } from "../suggest.js";
import fileSchema from "./tools-yaml.schema.json" with { type: "json" };
import { parseYamlSource } from "./yaml-source.js";
import type { YamlSource } from "./yaml-source.js";

const keyPattern = new RegExp(fileSchema.definitions.errorClasses.propertyNames.pattern);
const classes = ["permanent", "retryable"] as const;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Problems in every `errors:` map of a parsed tools.yaml. */
export function checkErrorClasses(source: YamlSource): Diagnostic[] {
  const file = source.value;
  if (!isRecord(file)) return [];
  const out: Diagnostic[] = [];
  if ("errors" in file) out.push(...checkMap(source, ["errors"], file.errors));
  if (isRecord(file.tools)) {
    for (const [name, tool] of Object.entries(file.tools)) {
      if (isRecord(tool) && "errors" in tool) out.push(...checkMap(source, ["tools", name, "errors"], tool.errors));
    }
  }
  return out;
}

/** The problems of the `errors:` maps of the tools.yaml at `path`; a file that cannot be read or parsed gives its own. */
export function checkErrorClassesFile(path: string): Diagnostic[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const parsed = parseYamlSource(text, path);
  return parsed.source === null ? parsed.errors : checkErrorClasses(parsed.source);
}

function checkMap(source: YamlSource, path: readonly string[], map: unknown): Diagnostic[] {
  const where = path.join(".");
  if (!isRecord(map)) return [{ code: "invalid_type", message: `${where} must be object`, location: source.locate(path), hint: "change the value to the expected type" }];
  const out: Diagnostic[] = [];
  for (const [key, value] of Object.entries(map)) {
    const at = [...path, key];
    if (!keyPattern.test(key)) {
      out.push({
        code: "schema_violation",
        message: `${where} has the key "${key}", which is not an error code or name (${keyPattern.source})`,
        location: source.locate(at, { key: true }),
        hint: "use the error's `code` (ECONNRESET) or `name` (TimeoutError)",
      });
      continue;
    }
    if (typeof value === "string" && (classes as readonly string[]).includes(value)) continue;
    if (isRecord(value) && wellFormedSpec(value)) continue;
    out.push({
      code: "invalid_value",
      message: `${at.join(".")} has none of the accepted forms`,
      location: source.locate(at),
      hint: formHint(value),
    });
  }
  return out;
}

const wellFormedSpec = (v: Record<string, unknown>): boolean =>
  (classes as readonly unknown[]).includes(v.class) &&
  Object.keys(v).every((k) => k === "class" || k === "retry_after_ms") &&
  (v.retry_after_ms === undefined || (typeof v.retry_after_ms === "number" && Number.isInteger(v.retry_after_ms) && v.retry_after_ms >= 0));

function formHint(value: unknown): string {
  const close = typeof value === "string" ? closestName(value, [...classes]) : null;
  if (close !== null) return `write \`${close}\``;
  return "write permanent, retryable, or { class: retryable, retry_after_ms: 500 } (a whole number of milliseconds)";
}
