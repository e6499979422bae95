/** Compact, model-readable validation problems from ajv errors ("/amount: must be >= 1"). */
import type { StandaloneValidator } from "../generated-runtime.js";

const MAX_PROBLEMS = 10;

export function formatProblems(errors: StandaloneValidator["errors"]): string[] {
  const out: string[] = [];
  for (const e of errors ?? []) {
    const where = e.instancePath === "" ? "/" : e.instancePath;
    const param =
      e.keyword === "additionalProperties" ? ` (${String(e.params.additionalProperty)})`
      : e.keyword === "enum" ? ` (${JSON.stringify(e.params.allowedValues)})`
      : "";
    out.push(`${where}: ${e.message ?? e.keyword}${param}`);
    if (out.length === MAX_PROBLEMS) break;
  }
  return out.length > 0 ? out : ["/: invalid"];
}
