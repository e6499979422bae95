/** Compact, model-readable validation problems from ajv errors ("/amount: must be >= 1"). */
import type { StandaloneValidator } from "../generated-runtime.js";
import { quote } from "./limits.js";

const MAX_PROBLEMS = 10;

export function formatProblems(errors: StandaloneValidator["errors"]): string[] {
  const out: string[] = [];
  for (const e of errors ?? []) {
    // Paths carry model-chosen keys: quoted bounded, like every model-sent text.
    const where = e.instancePath === "" ? "/" : quote(e.instancePath, 120);
    const param =
      e.keyword === "additionalProperties" ? ` (${quote(String(e.params.additionalProperty), 64)})`
      : e.keyword === "enum" ? ` (${JSON.stringify(e.params.allowedValues)})`
      : "";
    out.push(`${where}: ${e.message ?? e.keyword}${param}`);
    if (out.length === MAX_PROBLEMS) break;
  }
  return out.length > 0 ? out : ["/: invalid"];
}
