/**
 * Warnings (a lint) for input properties whose names look like identity without being on
 * the identity list (`user_name`, `owner_id`, `as_user`, `customer_tenant`): identity comes
 * from the trusted runtime context, so such a field is either a mistake or needs a name
 * that does not read as identity to the handler's author.
 */
import type { Diagnostic } from "../diagnostics.js";
import { looksLikeIdentity } from "./identity-fields.js";
import type { RawToolsFile } from "./raw-types.js";
import type { YamlSource } from "./yaml-source.js";

export function identityWarnings(file: RawToolsFile, source: YamlSource): Diagnostic[] {
  const out: Diagnostic[] = [];
  const walk = (tool: string, schema: unknown, path: (string | number)[]): void => {
    if (schema === null || typeof schema !== "object") return;
    for (const [key, value] of Object.entries(schema)) {
      if (key === "properties" && value !== null && typeof value === "object" && !Array.isArray(value)) {
        for (const [prop, sub] of Object.entries(value)) {
          if (looksLikeIdentity(prop)) {
            out.push({
              code: "identity_like_argument",
              message: `tool "${tool}" input property "${prop}" looks like an identity field; the model controls every argument, so it must not decide who acts or for whom`,
              location: source.locate(["tools", tool, ...path, "properties", prop], { key: true }),
              hint: "take identity from ctx (tenant, user, roles); if the field names something else, rename it so it does not read as identity",
            });
          }
          walk(tool, sub, [...path, "properties", prop]);
        }
      } else {
        walk(tool, value, [...path, key]);
      }
    }
  };
  for (const name of Object.keys(file.tools).sort()) walk(name, file.tools[name]?.input, ["input"]);
  return out;
}
