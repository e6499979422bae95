import type { Ajv2020 } from "ajv/dist/2020.js";
import type { Diagnostic } from "../diagnostics.js";
import { checkClosedInputs } from "./check-closed-inputs.js";
import { checkCompensationArgs } from "./check-compensation-args.js";
import { checkContext } from "./check-context.js";
import { checkLimits } from "./check-limits.js";
import { checkRetention } from "./check-retention.js";
import { checkSensitive } from "./check-sensitive.js";
import { isIdentityField } from "./identity-fields.js";
import type { JsonSchemaObject, RawTool, RawToolsFile } from "./raw-types.js";
import { schemaId } from "./schema-compiler.js";
import type { YamlSource } from "./yaml-source.js";

const toolNamePattern = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Checks that need more than the file schema: cross-references, identity, schema compilation.
 * Tool schemas are compiled into `schemas` (see schema-compiler.ts) under `schemaId`.
 */
export function checkSemantics(file: RawToolsFile, source: YamlSource, schemas: Ajv2020): Diagnostic[] {
  const out: Diagnostic[] = [];
  const ajv = schemas;
  // Sorted, so compiled schema functions (and generated/validators.js) do not depend on YAML key order.
  for (const name of Object.keys(file.tools).sort()) {
    const tool = file.tools[name] as RawTool;
    const at = (path: readonly (string | number)[], key = false) => source.locate(["tools", name, ...path], { key });
    if (!toolNamePattern.test(name)) {
      out.push({
        code: "invalid_tool_name",
        message: `tool name "${name}" must match ^[a-z][a-z0-9_]{0,63}$`,
        location: at([], true),
        hint: "use lower snake_case starting with a letter, at most 64 characters",
      });
    }
    out.push(...checkSchemas(ajv, name, tool, at));
    const inputFields = topLevelProperties(tool.input);
    if (inputFields === null) {
      out.push({
        code: "input_not_object",
        message: `tools.${name}.input must be an object schema with "type: object" and "properties"`,
        location: at(["input"]),
        hint: "tool arguments are always a JSON object: declare type: object and its properties",
      });
    }
    out.push(...checkIdentity(name, tool.input, ["input"], at));
    out.push(...checkClosedInputs(name, tool.input, at));
    out.push(...checkContext(ajv, name, tool, at));
    out.push(...checkCompensationArgs(file, name, tool, at));
    const fields = inputFields ?? new Set<string>();
    tool.idempotency?.fingerprint.forEach((field, i) => {
      if (!fields.has(field)) out.push(unknownField("unknown_fingerprint_field", name, "idempotency.fingerprint", field, at(["idempotency", "fingerprint", i])));
    });
    out.push(...checkSensitive(name, tool, fields, at));
    tool.approval?.preview?.forEach((field, i) => {
      if (!fields.has(field)) out.push(unknownField("unknown_preview_field", name, "approval.preview", field, at(["approval", "preview", i])));
    });
    if (tool.effect !== "read" && tool.idempotency === undefined) {
      out.push({
        code: "missing_fingerprint",
        message: `tool "${name}" has effect ${tool.effect} but declares no idempotency fingerprint`,
        location: at(["effect"]),
        hint: "add idempotency: { fingerprint: [<the input fields that define the intent>] }",
      });
    }
    if (tool.compensation !== undefined) {
      const target = file.tools[tool.compensation];
      if (target === undefined || target.effect !== "reversible_write") {
        out.push({
          code: "invalid_compensation",
          message:
            target === undefined
              ? `compensation "${tool.compensation}" of tool "${name}" is not a declared tool`
              : `compensation "${tool.compensation}" of tool "${name}" has effect ${target.effect}, not reversible_write`,
          location: at(["compensation"]),
          hint: "name a declared tool with effect reversible_write that undoes this one",
        });
      }
    }
    const observed = typeof tool.postcondition === "object" ? (tool.postcondition.observed ?? {}) : {};
    for (const [field, expected] of Object.entries(observed)) {
      if (typeof expected === "string" && expected.startsWith("$args.") && !fields.has(expected.slice(6))) {
        out.push(unknownField("unknown_postcondition_field", name, "postcondition.observed", expected.slice(6), at(["postcondition", "observed", field])));
      }
    }
  }
  out.push(...checkRetention(file, source));
  out.push(...checkLimits(file, source));
  return out;
}

function unknownField(code: string, tool: string, where: string, field: string, location: Diagnostic["location"]): Diagnostic {
  return {
    code,
    message: `${where} of tool "${tool}" names "${field}", which is not a property of its input schema`,
    location,
    hint: "name a top-level property of the tool's input schema",
  };
}

function topLevelProperties(schema: JsonSchemaObject): Set<string> | null {
  const props = schema["properties"];
  if (schema["type"] !== "object" || props === null || typeof props !== "object" || Array.isArray(props)) return null;
  return new Set(Object.keys(props));
}

type Locate = (path: readonly (string | number)[], key?: boolean) => Diagnostic["location"];

function checkSchemas(ajv: Ajv2020, name: string, tool: RawTool, at: Locate): Diagnostic[] {
  const out: Diagnostic[] = [];
  const hint = "fix the schema; strict mode rejects unknown keywords and ambiguous types";
  for (const part of ["input", "output"] as const) {
    // validateSchema locates the offending keyword; compile then catches strict-mode problems.
    if (!ajv.validateSchema(tool[part])) {
      const first = (ajv.errors ?? [])[0];
      const path = (first?.instancePath ?? "").split("/").filter((s) => s !== "");
      out.push({
        code: "invalid_json_schema",
        message: `tools.${name}.${[part, ...path].join(".")} ${first?.message ?? "is invalid"} (JSON Schema 2020-12)`,
        location: at([part, ...path]),
        hint,
      });
      continue;
    }
    try {
      const id = schemaId(name, part);
      ajv.addSchema(tool[part], id);
      ajv.getSchema(id);
    } catch (err) {
      out.push({
        code: "invalid_json_schema",
        message: `tools.${name}.${part} is not a valid strict JSON Schema 2020-12: ${(err as Error).message}`,
        location: at([part]),
        hint,
      });
    }
  }
  return out;
}

/** Walks every `properties` map in the schema, however nested. */
function checkIdentity(tool: string, schema: unknown, path: (string | number)[], at: Locate): Diagnostic[] {
  if (schema === null || typeof schema !== "object") return [];
  const out: Diagnostic[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const [prop, sub] of Object.entries(value)) {
        if (isIdentityField(prop)) {
          out.push({
            code: "identity_in_arguments",
            message: `tool "${tool}" declares identity field "${prop}" in its input; identity must come from the trusted runtime context`,
            location: at([...path, "properties", prop], true),
            hint: "remove it: the runtime passes tenant, user and roles to the handler in ctx",
          });
        }
        out.push(...checkIdentity(tool, sub, [...path, "properties", prop], at));
      }
    } else {
      out.push(...checkIdentity(tool, value, [...path, key], at));
    }
  }
  return out;
}
