/** A located problem in a suite file: `file:line:col code: message` plus what to do. */
import type { SourceLocation } from "./suite-types.js";

export interface SuiteProblem {
  readonly code: string;
  readonly message: string;
  readonly location: SourceLocation;
  readonly hint: string;
}

export function formatSuiteProblem(p: SuiteProblem): string {
  return `${p.location.file}:${p.location.line}:${p.location.col} ${p.code}: ${p.message}\n  hint: ${p.hint}`;
}

/** Thrown by `loadSuites` when any file has problems; carries all of them. */
export class SuiteLoadError extends Error {
  override name = "SuiteLoadError";
  constructor(readonly problems: readonly SuiteProblem[]) {
    super(problems.map(formatSuiteProblem).join("\n"));
  }
}
export const isSuiteLoadError = (e: unknown): e is SuiteLoadError =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "SuiteLoadError";
