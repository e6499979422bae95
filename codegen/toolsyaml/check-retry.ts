/**
 * Warnings (never errors) about retry budgets: a tool that declares retryable failures
 * but allows one attempt answers every such failure with retry_exhausted, replayed for
 * the whole retention, so "retryable" would never mean a retry.
 */
import type { Diagnostic } from "../diagnostics.js";
import type { RawTool, RawToolsFile } from "./raw-types.js";
import type { YamlSource } from "./yaml-source.js";

const isRetryable = (f: RawTool["failures"] extends Readonly<Record<string, infer F>> | undefined ? F : never): boolean =>
  (typeof f === "string" ? f : f.class) === "retryable";

/** Declared retryable failures of `tool`, by name. */
export const retryableFailures = (tool: RawTool): string[] => Object.keys(tool.failures ?? {}).filter((f) => isRetryable((tool.failures ?? {})[f]!));

export function retryWarnings(file: RawToolsFile, source: YamlSource): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const name of Object.keys(file.tools).sort()) {
    const tool = file.tools[name] as RawTool;
    const retryable = retryableFailures(tool);
    if (retryable.length === 0 || tool.retry?.max_attempts !== 1) continue;
    out.push({
      code: "retryable_without_retry",
      message: `tool "${name}" declares retryable failures (${retryable.join(", ")}) but retry.max_attempts is 1: each of them ends the operation as retry_exhausted on the first attempt`,
      location: source.locate(["tools", name, "retry", "max_attempts"]),
      hint: "raise retry.max_attempts (default 3 for tools with retryable failures), or declare those failures permanent",
    });
  }
  return out;
}
