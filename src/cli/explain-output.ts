/**
 * `toolgate eval --explain` output: the eval result, then every rule's value for
 * the same input (a table, or one JSON document with `--format json`).
 */
import { formatDiagnostic } from "../../codegen/diagnostics.js";
import { explainPolicy } from "../../codegen/compiler/explain.js";
import type { ExplainOptions } from "../../codegen/compiler/explain.js";
import { formatExplanation } from "../../codegen/compiler/explain-format.js";
import type { OutputFormat } from "./option-parsers.js";

/**
 * Prints `result` (the `opa eval` JSON, or null when the query failed) and the
 * explanation. Returns false when the policy could not be explained.
 */
export async function printExplained(result: unknown, opts: ExplainOptions, format: OutputFormat): Promise<boolean> {
  const e = await explainPolicy(opts);
  for (const d of e.errors) console.error(formatDiagnostic(d));
  if (format === "json") {
    const base = result !== null && typeof result === "object" ? result : {};
    console.log(JSON.stringify({ ...base, explanation: { rules: e.rules } }, null, 2));
  } else {
    if (result !== null) console.log(JSON.stringify(result, null, 2));
    if (e.errors.length === 0) console.log(`\n${formatExplanation(e)}`);
  }
  return e.errors.length === 0;
}
