/** Reads `skips.yaml`: the checked-in list of skipped cases, each with its reason. */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { CaseFormatError } from "./cases.js";

export const defaultSkipsPath = new URL("./skips.yaml", import.meta.url).pathname;

/** Case id -> reason. Every entry must carry a non-empty reason. */
export function loadSkips(path: string = defaultSkipsPath): Map<string, string> {
  const doc: unknown = parse(readFileSync(path, "utf8"));
  const out = new Map<string, string>();
  if (doc === null || doc === undefined) return out;
  if (!Array.isArray(doc)) throw new CaseFormatError(`${path}: must be a list`);
  for (const entry of doc as unknown[]) {
    const e = entry as { id?: unknown; reason?: unknown };
    if (typeof e.id !== "string" || typeof e.reason !== "string" || e.reason.trim() === "") {
      throw new CaseFormatError(`${path}: every entry needs an 'id' and a non-empty 'reason'`);
    }
    out.set(e.id, e.reason.trim());
  }
  return out;
}
