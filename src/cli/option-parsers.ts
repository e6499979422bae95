/** Commander argument parsers the commands share; a value they refuse is a usage error. */
import { InvalidArgumentError } from "commander";

/** What `--format` selects: text for a terminal, or JSON. */
export type OutputFormat = "pretty" | "json";

export function parseOutputFormat(v: string): OutputFormat {
  if (v !== "pretty" && v !== "json") throw new InvalidArgumentError("must be pretty or json");
  return v;
}

/** A whole number of at least 1 (`--limit`). */
export function parsePositiveInteger(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("must be a positive integer");
  return n;
}
