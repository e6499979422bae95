/**
 * tools.yaml `context:`: fact names a policy and handler can rely on, each with a JSON Schema
 * that compiles under the same strict Ajv as tool schemas (its validator is generated).
 */
import type { Ajv2020 } from "ajv/dist/2020.js";
import type { Diagnostic } from "../diagnostics.js";
import type { RawTool } from "./raw-types.js";
import { contextSchemaId } from "./schema-compiler.js";

type Locate = (path: readonly (string | number)[], key?: boolean) => Diagnostic["location"];

const factNamePattern = /^[a-z][a-z0-9_]{0,63}$/;

export function checkContext(ajv: Ajv2020, name: string, tool: RawTool, at: Locate): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const fact of Object.keys(tool.context ?? {}).sort()) {
    const schema = (tool.context ?? {})[fact];
    if (!factNamePattern.test(fact)) {
      out.push({
        code: "invalid_context_name",
        message: `context fact "${fact}" of tool "${name}" must match ^[a-z][a-z0-9_]{0,63}$`,
        location: at(["context", fact], true),
        hint: "use lower snake_case: it is input.context.<name> in Rego and ctx.context.<name> in the handler",
      });
      continue;
    }
    const hint = "fix the fact's JSON Schema; strict mode rejects unknown keywords and ambiguous types";
    if (!ajv.validateSchema(schema)) {
      const first = (ajv.errors ?? [])[0];
      const path = (first?.instancePath ?? "").split("/").filter((s) => s !== "");
      out.push({
        code: "invalid_json_schema",
        message: `tools.${name}.context.${[fact, ...path].join(".")} ${first?.message ?? "is invalid"} (JSON Schema 2020-12)`,
        location: at(["context", fact, ...path]),
        hint,
      });
      continue;
    }
    try {
      const id = contextSchemaId(name, fact);
      ajv.addSchema(schema as object, id);
      ajv.getSchema(id);
    } catch (err) {
      out.push({
        code: "invalid_json_schema",
        message: `tools.${name}.context.${fact} is not a valid strict JSON Schema 2020-12: ${(err as Error).message}`,
        location: at(["context", fact]),
        hint,
      });
    }
  }
  return out;
}
