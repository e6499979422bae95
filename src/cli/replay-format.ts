/**
 * Text rendering of a ReplayReport (`toolgate replay`): summary, changed decisions by tool and
 * reason (with the limit figures and run history the first of them was decided and replayed on),
 * the not replayable.
 */
import type { JsonObject } from "../manifest.js";
import type { ReplayFailOn, ReplayReport, ReplaySide } from "../runtime/replay.js";
import { loggedFigureLines } from "./logged-figures.js";

const side = (s: ReplaySide): string => `${s.decision} ${s.reason}`;
const MAX_IDS = 5;

export interface ReplayHeader {
  readonly candidate: string;
  readonly filters: string;
}

/** `inputs`: the logged input of each decision id (what replay evaluated), for the figures shown under a group. */
export function formatReplay(r: ReplayReport, h: ReplayHeader, failOn: ReplayFailOn, inputs: ReadonlyMap<string, JsonObject | null> = new Map()): string {
  const flips = r.changes.filter((c) => c.flip).length;
  const out: string[] = [
    `toolgate replay: ${r.total} logged decision${r.total === 1 ? "" : "s"}${h.filters === "" ? "" : ` (${h.filters})`}`,
    `  candidate     ${r.candidate_version}  (${h.candidate})`,
    ...Object.entries(r.logged_versions).map(([v, n]) => `  logged under  ${v}  (${n})`),
    `  replayed ${r.replayed}: unchanged ${r.unchanged}, changed ${r.changes.length} (flips allow <-> deny: ${flips}); not replayable ${r.not_replayable.length}; answered before the policy ${r.not_evaluated}`,
  ];
  if (r.groups.length > 0) {
    out.push("", "changed decisions (before -> after), by tool and reason:");
    const rows = r.groups.map((g) => [String(g.count), g.tool, side(g.before), "->", side(g.after), g.flip ? "FLIP" : ""]);
    const head = ["COUNT", "TOOL", "BEFORE", "", "AFTER", ""];
    const width = head.map((x, i) => Math.max(x.length, ...rows.map((row) => row[i]!.length)));
    const line = (c: readonly string[]) => `  ${c.map((x, i) => x.padEnd(width[i]!)).join("  ").trimEnd()}`;
    out.push(line(head));
    r.groups.forEach((g, i) => {
      out.push(line(rows[i]!));
      const ids = g.decision_ids.slice(0, MAX_IDS).join(", ");
      out.push(`      ${ids}${g.decision_ids.length > MAX_IDS ? `, +${g.decision_ids.length - MAX_IDS} more` : ""}`);
      const first = g.decision_ids[0];
      const figures = first === undefined ? [] : loggedFigureLines(inputs.get(first) ?? null);
      if (figures.length > 0) {
        out.push(`      recorded with ${first} (replayed on these, not today's):`);
        for (const line of figures) out.push(`        ${line}`);
      }
    });
  }
  if (r.not_replayable.length > 0) {
    out.push("", "not replayable (fields were erased from the logged input; the candidate may read them):");
    for (const n of r.not_replayable) out.push(`  ${n.decision_id}  ${n.tool}  erased ${n.erased.join(", ")}`);
  }
  const failing = failOn === "never" ? 0 : failOn === "changes" ? r.changes.length : flips;
  out.push("", failing > 0 ? `FAIL: ${failing} decision${failing === 1 ? "" : "s"} would ${failOn === "changes" ? "change" : "flip"} (--fail-on ${failOn})` : `ok: no decision would ${failOn === "changes" ? "change" : "flip"} (--fail-on ${failOn})`);
  return out.join("\n");
}
