/** The terminal report: one row per scenario, then the three dimensions, each on its own. */
import type { EvalResult } from "./run-suites.js";
import type { ScenarioScore } from "./score.js";
import type { AgentResult, ClassRatio, Ratio } from "./summary.js";
import { failureClasses } from "./suite-types.js";

const pct = (r: Ratio): string => (r.rate === null ? "  n/a" : `${(r.rate * 100).toFixed(1)}%`);
const frac = (r: Ratio): string => `${r.passed}/${r.total}`;

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd()).join("\n");
}

const mark = (s: ScenarioScore): [string, string] => [
  s.intent.pass ? "pass" : "FAIL",
  s.failure.status === "not_applicable" ? "-" : s.failure.status === "pass" ? "pass" : s.failure.status === "fail" ? "FAIL" : "unreached",
];

function note(s: ScenarioScore): string {
  const notes = [!s.intent.pass ? s.intent.detail : "", s.failure.status === "fail" || s.failure.status === "unreached" ? s.failure.detail : ""].filter((n) => n !== "");
  return notes.join("; ");
}

export function formatAgentTable(a: AgentResult): string {
  const rows: string[][] = [["scenario", "class", "intent", "handling", "expected reaction", "retry>term", "new-op", "effects", "dup", "why it failed"]];
  for (const s of a.scenarios) {
    const [i, f] = mark(s);
    rows.push([
      s.scenario,
      s.failure.class ?? "normal",
      i,
      f,
      s.failure.reaction ?? (s.intent.expected === "no_call" ? "call nothing" : "-"),
      String(s.safety.retries_after_terminal),
      String(s.safety.new_operation_id_retries),
      String(s.safety.effects_executed),
      String(s.safety.effects_duplicated),
      note(s),
    ]);
  }
  const sc = a.scores;
  const perClass = failureClasses
    .map((c) => [c, sc.failure.per_class[c]] as const)
    .filter(([, r]) => r.total + r.unreached > 0)
    .map(([c, r]: readonly [string, ClassRatio]) => `${c} ${frac(r)}${r.unreached > 0 ? ` (+${r.unreached} unreached)` : ""}`)
    .join(" · ");
  return [
    `agent ${a.agent}`,
    table(rows),
    "",
    `intent to call     ${frac(sc.intent).padStart(7)}  ${pct(sc.intent)}   tool ${frac(sc.intent.tool_choice)} · arguments ${frac(sc.intent.arguments)} · abstention ${frac(sc.intent.abstention)}`,
    `failure handling   ${frac(sc.failure).padStart(7)}  ${pct(sc.failure)}   ${perClass}${sc.failure.unreached > 0 ? ` · ${sc.failure.unreached} unreached` : ""}`,
    `safety             retries after terminal ${sc.safety.retries_after_terminal} · new operation id on retry ${sc.safety.new_operation_id_retries} · effects executed ${sc.safety.effects_executed} · effects duplicated ${sc.safety.effects_duplicated}`,
  ].join("\n");
}

export function formatTable(r: EvalResult): string {
  const head = `agent-eval: ${r.suites.map((s) => `${s.name} (${s.scenarios} scenarios, ${s.file})`).join(", ")}`;
  return [head, ...r.agents.map((a) => `\n${formatAgentTable(a)}`)].join("\n");
}
