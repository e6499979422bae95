/**
 * The HTML report: one self-contained page (inline CSS and SVG, no script) with the
 * three dimensions per agent, a bar chart of failure handling per class, and every
 * scenario's trajectory.
 */
import type { EvalResult } from "./run-suites.js";
import type { ScenarioScore } from "./score.js";
import type { AgentResult, Ratio } from "./summary.js";
import { failureClasses } from "./suite-types.js";

const esc = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const pct = (r: Ratio): string => (r.rate === null ? "n/a" : `${Math.round(r.rate * 1000) / 10}%`);
const palette = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2"];

/** Grouped bars: one group per failure class, one bar per agent, height = pass rate. */
export function classChartSvg(agents: readonly AgentResult[]): string {
  const classes = failureClasses.filter((c) => agents.some((a) => a.scores.failure.per_class[c].total > 0));
  const barW = 22;
  const gap = 6;
  const groupW = agents.length * (barW + gap) + 24;
  const left = 44;
  const top = 16;
  const h = 180;
  const width = left + classes.length * groupW + 10;
  const height = top + h + 64 + 22 * Math.ceil(agents.length / 3);
  const parts: string[] = [];
  for (const y of [0, 25, 50, 75, 100]) {
    const py = top + h - (h * y) / 100;
    parts.push(`<line x1="${left}" y1="${py}" x2="${width - 6}" y2="${py}" stroke="#e5e7eb"/><text x="${left - 6}" y="${py + 4}" text-anchor="end" font-size="11" fill="#6b7280">${y}%</text>`);
  }
  classes.forEach((c, gi) => {
    const gx = left + gi * groupW + 12;
    agents.forEach((a, ai) => {
      const r = a.scores.failure.per_class[c];
      const rate = r.rate ?? 0;
      const bh = Math.max(r.total > 0 ? 2 : 0, h * rate);
      const x = gx + ai * (barW + gap);
      parts.push(
        `<rect x="${x}" y="${top + h - bh}" width="${barW}" height="${bh}" fill="${palette[ai % palette.length]}"><title>${esc(`${a.agent} · ${c}: ${r.passed}/${r.total}`)}</title></rect>`,
        `<text x="${x + barW / 2}" y="${top + h - bh - 4}" text-anchor="middle" font-size="10" fill="#374151">${r.passed}/${r.total}</text>`,
      );
    });
    parts.push(`<text x="${gx + (agents.length * (barW + gap)) / 2 - gap / 2}" y="${top + h + 16}" text-anchor="middle" font-size="11" fill="#111827">${esc(c.replace("_", " "))}</text>`);
  });
  agents.forEach((a, ai) => {
    const lx = left + (ai % 3) * 160;
    const ly = top + h + 40 + 22 * Math.floor(ai / 3);
    parts.push(`<rect x="${lx}" y="${ly - 10}" width="12" height="12" fill="${palette[ai % palette.length]}"/><text x="${lx + 18}" y="${ly}" font-size="12" fill="#111827">${esc(a.agent)}</text>`);
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="failure handling per class" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif">${parts.join("")}</svg>`;
}

const badge = (ok: boolean | null, text: string): string => `<span class="b ${ok === null ? "na" : ok ? "ok" : "bad"}">${esc(text)}</span>`;

function scenarioRow(s: ScenarioScore): string {
  const f = s.failure;
  const t = s.trajectory;
  const calls = t.calls
    .map((c) => `<li><code>${esc(c.call.tool)}(${esc(JSON.stringify(c.call.args))})</code>${c.call.operation_id === undefined ? "" : ` op <code>${esc(c.call.operation_id)}</code>`}${c.responses.length > 0 ? ` · surface: ${esc(c.responses.map((r) => r.kind).join(", "))}` : ""}${c.approval === null ? "" : ` · approval ${esc(c.approval.decision)}`}<br>→ <code>${esc(JSON.stringify(c.result))}</code>${c.answered_by === "patience" ? " (no answer within patience)" : ""}</li>`)
    .join("");
  const safety = s.safety;
  return `<tr><td>${esc(s.scenario)}<div class="t">${esc(s.title)}</div></td><td>${esc(f.class ?? "normal")}</td><td>${badge(s.intent.pass, s.intent.pass ? "pass" : "fail")}</td><td>${f.status === "not_applicable" ? badge(null, "–") : badge(f.status === "pass", f.status)}</td><td>${esc(f.reaction ?? (s.intent.expected === "no_call" ? "call nothing" : "–"))}</td><td class="n">${safety.retries_after_terminal}</td><td class="n">${safety.new_operation_id_retries}</td><td class="n">${safety.effects_executed}</td><td class="n">${safety.effects_duplicated}</td><td><details><summary>${esc([s.intent.pass ? "" : s.intent.detail, f.detail].filter((x) => x !== "").join("; ") || "trajectory")}</summary><ol>${calls}</ol><p>final: ${esc(t.final ?? `(none: ${t.stopped})`)}</p></details></td></tr>`;
}

function agentSection(a: AgentResult): string {
  const sc = a.scores;
  const classes = failureClasses
    .filter((c) => sc.failure.per_class[c].total + sc.failure.per_class[c].unreached > 0)
    .map((c) => `<li>${esc(c)}: ${sc.failure.per_class[c].passed}/${sc.failure.per_class[c].total}</li>`)
    .join("");
  return `<section><h2>agent <code>${esc(a.agent)}</code></h2>
<div class="cards">
<div class="card"><h3>Intent to call</h3><p class="big">${pct(sc.intent)}</p><p>${sc.intent.passed}/${sc.intent.total} scenarios · tool ${sc.intent.tool_choice.passed}/${sc.intent.tool_choice.total} · arguments ${sc.intent.arguments.passed}/${sc.intent.arguments.total} · abstention ${sc.intent.abstention.passed}/${sc.intent.abstention.total}</p></div>
<div class="card"><h3>Failure-class handling</h3><p class="big">${pct(sc.failure)}</p><p>${sc.failure.passed}/${sc.failure.total} met failures${sc.failure.unreached > 0 ? ` · ${sc.failure.unreached} unreached` : ""}</p><ul class="cls">${classes}</ul></div>
<div class="card"><h3>Safety</h3><ul><li>retries after a terminal failure: <b>${sc.safety.retries_after_terminal}</b></li><li>new operation id on a retry: <b>${sc.safety.new_operation_id_retries}</b></li><li>effects executed: <b>${sc.safety.effects_executed}</b></li><li>effects duplicated: <b>${sc.safety.effects_duplicated}</b></li></ul></div>
</div>
<table><thead><tr><th>scenario</th><th>class</th><th>intent</th><th>handling</th><th>expected reaction</th><th>retry after terminal</th><th>new op id</th><th>effects</th><th>dup</th><th>trajectory</th></tr></thead><tbody>${a.scenarios.map(scenarioRow).join("")}</tbody></table></section>`;
}

function summaryRow(a: AgentResult): string {
  const sc = a.scores;
  return `<tr><td><code>${esc(a.agent)}</code></td><td>${pct(sc.intent)} (${sc.intent.passed}/${sc.intent.total})</td><td>${pct(sc.failure)} (${sc.failure.passed}/${sc.failure.total})</td><td class="n">${sc.safety.retries_after_terminal}</td><td class="n">${sc.safety.new_operation_id_retries}</td><td class="n">${sc.safety.effects_executed}</td><td class="n">${sc.safety.effects_duplicated}</td></tr>`;
}

export function formatHtml(r: EvalResult, title = "toolgate agent-eval"): string {
  const suites = r.suites.map((s) => `${esc(s.name)} (${s.scenarios} scenarios)`).join(", ");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:24px;color:#111827;max-width:1200px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin-top:32px}h3{font-size:13px;margin:0;color:#6b7280;text-transform:uppercase;letter-spacing:.04em}
.sub{color:#6b7280;margin:0 0 16px}.cards{display:flex;gap:12px;flex-wrap:wrap}.card{border:1px solid #e5e7eb;border-radius:8px;padding:12px 16px;min-width:260px;flex:1}
.card p,.card ul{font-size:13px;margin:4px 0}.card .big{font-size:28px;font-weight:600;margin:4px 0}.cls{columns:2}
table{border-collapse:collapse;width:100%;margin-top:12px;font-size:12px}table.sum{width:auto;font-size:14px}th,td{border-bottom:1px solid #e5e7eb;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f9fafb}.n{text-align:right}.t{color:#6b7280;font-size:11px}.b{padding:1px 6px;border-radius:4px;font-weight:600}
.ok{background:#dcfce7;color:#166534}.bad{background:#fee2e2;color:#991b1b}.na{color:#9ca3af}code{font-size:11px;word-break:break-all}details ol{padding-left:18px}
</style></head><body>
<h1>${esc(title)}</h1><p class="sub">${suites} · scores are reported separately and never folded into one number</p>
<h2>Summary</h2>
<table class="sum"><thead><tr><th>agent</th><th>intent to call</th><th>failure-class handling</th><th>retries after terminal</th><th>new op id on retry</th><th>effects executed</th><th>effects duplicated</th></tr></thead><tbody>${r.agents.map(summaryRow).join("")}</tbody></table>
<h2>Failure-class handling per class</h2>
${classChartSvg(r.agents)}
${r.agents.map(agentSection).join("\n")}
</body></html>
`;
}
