/**
 * The fast subset that `npm test` runs: a checked-in sample of cases that passed in
 * a full run, spread over topics. `npm run conformance -- --write-fast-subset`
 * regenerates it from the current passing cases.
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { CaseOutcome } from "./run-case.js";

export const defaultFastSubsetPath = new URL("./fast-subset.json", import.meta.url).pathname;

export function readFastSubset(path: string = defaultFastSubsetPath): string[] {
  const f = JSON.parse(readFileSync(path, "utf8")) as { ids?: unknown };
  return Array.isArray(f.ids) ? f.ids.filter((x): x is string => typeof x === "string") : [];
}

/** Up to `perTopic` passing cases of each topic, in id order, deterministic. */
export function pickFastSubset(outcomes: readonly CaseOutcome[], perTopic: number): string[] {
  const seen = new Map<string, number>();
  const ids: string[] = [];
  for (const o of [...outcomes].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    if (o.status !== "passed") continue;
    const n = seen.get(o.topic) ?? 0;
    if (n >= perTopic) continue;
    seen.set(o.topic, n + 1);
    ids.push(o.id);
  }
  return ids;
}

export function writeFastSubset(ids: readonly string[], path: string = defaultFastSubsetPath): void {
  const comment = "Conformance cases run by npm test (vitest); regenerate with npm run conformance -- --write-fast-subset";
  writeFileSync(path, `${JSON.stringify({ comment, ids }, null, 2)}\n`);
}
