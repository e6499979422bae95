/**
 * The history a logged decision was made on, as explain and replay show it: the limit figures
 * (input.limits) and the run's earlier calls (input.run) recorded in the logged input.
 * Replay and explain evaluate that logged input, so they use these recorded figures, not today's.
 */
import type { JsonObject, JsonValue } from "../manifest.js";

const isObject = (v: JsonValue | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Lines such as "limits     payouts_per_currency: count 2, sum 1500"; none when the input has neither. */
export function loggedFigureLines(input: JsonObject | null): string[] {
  if (input === null) return [];
  const out: string[] = [];
  const limits = input["limits"];
  if (isObject(limits)) {
    for (const name of Object.keys(limits).sort()) {
      const f = limits[name];
      if (isObject(f)) out.push(`limits     ${name}: count ${String(f["count"])}, sum ${String(f["sum"])} (the window before this call, as the policy saw it)`);
    }
  }
  const run = input["run"];
  if (Array.isArray(run)) {
    const calls = run.filter(isObject).map((e) => `${String(e["tool"])} (${String(e["effect"])}${e["sensitive"] === true ? ", sensitive" : ""}, ${String(e["outcome"])})`);
    out.push(`run        ${calls.length} earlier call(s) of the run${calls.length === 0 ? "" : `: ${calls.slice(-10).join(", ")}${calls.length > 10 ? " (the last 10)" : ""}`}`);
  }
  return out;
}
