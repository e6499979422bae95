/**
 * tools.yaml `limits:` and `idempotency.key`: the fields they name exist in the input of every
 * tool they cover, `sum` is numeric there, the key and the amount are part of the fingerprint
 * (so a retry under the same operation counts the same), the tools exist and write, limit
 * names are unique, and the window fits in the retention of every tool it covers (the figures
 * are read from the idempotency records, which are gone after retention).
 */
import type { Diagnostic } from "../diagnostics.js";
import { parseDuration } from "./duration.js";
import type { JsonSchemaObject, RawLimit, RawTool, RawToolsFile } from "./raw-types.js";
import { defaults, limitTools } from "./to-manifest.js";
import type { YamlSource } from "./yaml-source.js";

type Path = readonly (string | number)[];

const properties = (schema: JsonSchemaObject): Readonly<Record<string, unknown>> => {
  const props = schema["properties"];
  return props !== null && typeof props === "object" && !Array.isArray(props) ? (props as Record<string, unknown>) : {};
};

/** Whether the input schema's property only admits numbers (type number or integer). */
function isNumeric(schema: unknown): boolean {
  if (schema === null || typeof schema !== "object") return false;
  const type = (schema as { type?: unknown }).type;
  if (type === "number" || type === "integer") return true;
  return Array.isArray(type) && type.length > 0 && type.every((t) => t === "number" || t === "integer");
}

export function checkLimits(file: RawToolsFile, source: YamlSource): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (path: Path, key = false) => source.locate(["tools", ...path], { key });
  const declaredBy = new Map<string, string>();
  for (const name of Object.keys(file.tools).sort()) {
    const tool = file.tools[name] as RawTool;
    tool.idempotency?.key?.forEach((field, i) => {
      if (Object.prototype.hasOwnProperty.call(properties(tool.input), field)) return;
      out.push({
        code: "unknown_idempotency_key_field",
        message: `idempotency.key of tool "${name}" names "${field}", which is not a property of its input schema`,
        location: at([name, "idempotency", "key", i]),
        hint: "name top-level properties of the tool's input schema that identify the operation (e.g. incident_id)",
      });
    });
    for (const limitName of Object.keys(tool.limits ?? {}).sort()) {
      const limit = (tool.limits ?? {})[limitName] as RawLimit;
      const here = (...rest: (string | number)[]): Path => [name, "limits", limitName, ...rest];
      const first = declaredBy.get(limitName);
      if (first !== undefined) {
        out.push({
          code: "duplicate_limit",
          message: `limit "${limitName}" is declared by tool "${first}" and again by tool "${name}"`,
          location: at(here(), true),
          hint: `declare it once and share it with tools: [${first}, ${name}]`,
        });
        continue;
      }
      declaredBy.set(limitName, name);
      out.push(...checkLimit(file, name, limitName, limit, (p, key) => at(here(...p), key)));
    }
  }
  return out;
}

function checkLimit(file: RawToolsFile, declaring: string, limitName: string, limit: RawLimit, at: (path: Path, key?: boolean) => Diagnostic["location"]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const window = parseDuration(limit.window);
  (limit.tools ?? []).forEach((t, i) => {
    if (!Object.prototype.hasOwnProperty.call(file.tools, t)) {
      out.push({
        code: "unknown_limit_tool",
        message: `limit "${limitName}" of tool "${declaring}" names tool "${t}", which is not declared`,
        location: at(["tools", i]),
        hint: `name tools declared in this file: ${Object.keys(file.tools).sort().join(", ")}`,
      });
    }
  });
  for (const t of limitTools(declaring, limit)) {
    const tool = file.tools[t];
    if (tool === undefined) continue;
    const pathOf = (field: "per" | "sum", i?: number): Path => (field === "sum" ? ["sum"] : ["per", i ?? 0]);
    const props = properties(tool.input);
    const fingerprint = new Set(tool.idempotency?.fingerprint ?? []);
    if (tool.effect === "read") {
      out.push({
        code: "limit_on_read",
        message: `limit "${limitName}" covers tool "${t}", a read: reads are not claimed, so nothing would count them`,
        location: t === declaring ? at([], true) : at(["tools", (limit.tools ?? []).indexOf(t)]),
        hint: "limit tools whose effect is a write",
      });
      continue;
    }
    const fields: [string, Path, "per" | "sum"][] = [...(limit.per ?? []).map((f, i): [string, Path, "per"] => [f, pathOf("per", i), "per"])];
    if (limit.sum !== undefined) fields.push([limit.sum, pathOf("sum"), "sum"]);
    for (const [field, path, role] of fields) {
      if (!Object.prototype.hasOwnProperty.call(props, field)) {
        out.push({
          code: "unknown_limit_field",
          message: `limit "${limitName}": ${role} names "${field}", which is not a property of the input schema of tool "${t}"`,
          location: at(path),
          hint: `every tool of the limit needs the field in its input: add it to "${t}" or remove "${t}" from tools`,
        });
        continue;
      }
      if (role === "sum" && !isNumeric(props[field])) {
        out.push({
          code: "limit_sum_not_numeric",
          message: `limit "${limitName}": sum names "${field}", which is not numeric in the input schema of tool "${t}"`,
          location: at(path),
          hint: `declare ${field} with type: number or type: integer`,
        });
        continue;
      }
      if (!fingerprint.has(field)) {
        out.push({
          code: "limit_field_not_in_fingerprint",
          message: `limit "${limitName}": ${role} field "${field}" is not in the idempotency fingerprint of tool "${t}"`,
          location: at(path),
          hint: `add "${field}" to idempotency.fingerprint of "${t}": a retry under the same operation_id must count against the same key and amount`,
        });
      }
    }
    const retentionText = tool.idempotency?.retention ?? defaults.retention;
    const retention = parseDuration(retentionText);
    if (window !== null && retention !== null && window > retention) {
      out.push({
        code: "limit_window_longer_than_retention",
        message: `limit "${limitName}": window ${limit.window} is longer than the retention ${retentionText} of tool "${t}"; its calls would stop counting before they leave the window`,
        location: at(["window"]),
        hint: `shorten the window to at most ${retentionText}, or set idempotency.retention of "${t}" to at least ${limit.window}`,
      });
    }
  }
  return out;
}
