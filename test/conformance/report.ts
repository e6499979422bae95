/** Formats outcomes: a table per topic, the rate per topic class, and the summary line. */
import type { CaseOutcome } from "./run-case.js";
import { topicClass, type TopicClass } from "./topics.js";

export interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

export interface Summary {
  readonly byTopic: ReadonlyMap<string, Tally>;
  readonly byClass: Readonly<Record<TopicClass, Tally>>;
  readonly total: Tally;
}

const empty = (): Tally => ({ passed: 0, failed: 0, skipped: 0 });
const count = (t: Tally): number => t.passed + t.failed + t.skipped;

/** Skips count as not passed. */
export const passRate = (t: Tally): number => (count(t) === 0 ? 0 : (100 * t.passed) / count(t));

export function summarize(outcomes: readonly CaseOutcome[]): Summary {
  const byTopic = new Map<string, Tally>();
  const byClass: Record<TopicClass, Tally> = { language: empty(), builtin: empty() };
  const total = empty();
  for (const o of outcomes) {
    const t = byTopic.get(o.topic) ?? empty();
    byTopic.set(o.topic, t);
    for (const tally of [t, byClass[topicClass(o.topic)], total]) tally[o.status]++;
  }
  return { byTopic: new Map([...byTopic].sort(([a], [b]) => (a < b ? -1 : 1))), byClass, total };
}

const pct = (t: Tally): string => `${passRate(t).toFixed(1)}%`;

export function formatReport(s: Summary): string {
  const rows: string[][] = [["topic", "class", "passed", "failed", "skipped", "rate"]];
  for (const [topic, t] of s.byTopic) {
    rows.push([topic, topicClass(topic), String(t.passed), String(t.failed), String(t.skipped), pct(t)]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string =>
    r.map((cell, i) => (i === 0 || i === 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  const out = [line(rows[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line), ""];
  for (const cls of ["language", "builtin"] as const) {
    const t = s.byClass[cls];
    out.push(`${cls} topics: ${t.passed}/${count(t)} passed (${pct(t)}), ${t.failed} failed, ${t.skipped} skipped`);
  }
  out.push(`overall: ${pct(s.total)}`);
  return out.join("\n");
}

/** The runner's last line; CI logs end with it. */
export const summaryLine = (t: Tally): string =>
  `conformance: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`;
