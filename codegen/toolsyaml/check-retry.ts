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

/** The tool's thrown-error classes: the file's `errors`, overridden by the tool's own of the same key. */
export const errorClassesOf = (file: RawToolsFile, tool: RawTool): NonNullable<RawTool["errors"]> => ({ ...(file.errors ?? {}), ...(tool.errors ?? {}) });

/** Thrown errors declared retryable for `tool` (its own and the file's), by key. */
export const retryableErrors = (file: RawToolsFile, tool: RawTool): string[] => {
  const classes = errorClassesOf(file, tool);
  return Object.keys(classes).filter((k) => isRetryable(classes[k]!));
};

/**
 * Whether a tool can answer retryable_failure for a handler's answer: a declared retryable
 * failure or thrown error, or any read (an undeclared error of a read is retryable).
 */
export const canFailRetryably = (file: RawToolsFile, tool: RawTool): boolean =>
  tool.effect === "read" || retryableFailures(tool).length > 0 || retryableErrors(file, tool).length > 0;

export function retryWarnings(file: RawToolsFile, source: YamlSource): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const name of Object.keys(file.tools).sort()) {
    const tool = file.tools[name] as RawTool;
    const retryable = [...retryableFailures(tool), ...retryableErrors(file, tool).map((k) => `thrown ${k}`)];
    if (retryable.length === 0 || tool.retry?.max_attempts !== 1) continue;
    out.push({
      code: "retryable_without_retry",
      message: `tool "${name}" declares retryable failures (${retryable.join(", ")}) but retry.max_attempts is 1: each of them ends the operation as retry_exhausted on the first attempt`,
      location: source.locate(["tools", name, "retry", "max_attempts"]),
      hint: "raise retry.max_attempts (default 3 for reads and tools with retryable failures or errors), or declare those failures permanent",
    });
  }
  return out;
}
