/** Text rendering of an `Explanation` (`toolgate eval --explain`): one table row per rule. */
import type { DecidingBranch, Explanation, RuleExplanation, RuleOutcome, RuleRole } from "./explain.js";

const MARK: Record<RuleRole, string> = { query: "*", dependency: "+", other: " " };

/** Longest value shown in a cell; `--format json` has the full values. */
const MAX_VALUE = 100;

export function formatOutcome(o: RuleOutcome, max = MAX_VALUE): string {
  switch (o.status) {
    case "value": {
      const s = JSON.stringify(o.value) ?? "undefined";
      return s.length > max ? `${s.slice(0, max - 3)}...` : s;
    }
    case "undefined":
      return "undefined";
    case "error":
      return `error: ${o.message}`;
    case "not_evaluated":
      return `(not evaluated: ${o.why})`;
  }
}

/** `<- else #3 (policies/authz.rego:57)`, `<- default (...)`, `<- body (...)`. */
export function formatBranch(b: DecidingBranch): string {
  const at = `${b.location.file}:${b.location.row}`;
  return b.kind === "else" ? `<- else #${b.else_index} (${at})` : `<- ${b.kind} (${at})`;
}

/** `policies/authz.rego:40,42` (rows of every definition, files kept apart). */
export function formatLocations(r: RuleExplanation): string {
  const byFile = new Map<string, number[]>();
  for (const l of r.locations) byFile.set(l.file, [...(byFile.get(l.file) ?? []), l.row]);
  return [...byFile].map(([f, rows]) => `${f}:${rows.join(",")}`).join(" ");
}

export function formatExplanation(e: Explanation): string {
  const rows = e.rules.map(
    (r) => [`${MARK[r.role]} ${r.path}`, r.kind, formatLocations(r), `${formatOutcome(r.outcome)}${r.branch === undefined ? "" : `  ${formatBranch(r.branch)}`}`] as const,
  );
  const head = ["  RULE", "KIND", "DEFINED AT", "VALUE"] as const;
  const width = [0, 1, 2].map((i) => Math.max(head[i]!.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i < 3 ? c.padEnd(width[i]!) : c)).join("  ").trimEnd();
  const counts = { query: 0, dependency: 0, other: 0 };
  for (const r of e.rules) counts[r.role]++;
  return [
    line(head),
    ...rows.map(line),
    "",
    `* queried (${counts.query})  + the query depends on it (${counts.dependency})  other rules: ${counts.other}`,
  ].join("\n");
}
