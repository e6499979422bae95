/** CI thresholds: the minimum intent and failure-handling rates every agent must reach. */
import type { EvalResult } from "./run-suites.js";

export interface Thresholds {
  readonly min_intent?: number;
  readonly min_failure?: number;
}

/** One line per agent and dimension below its threshold (a dimension with no scenarios counts as 0). */
export function thresholdFailures(r: EvalResult, t: Thresholds): string[] {
  const out: string[] = [];
  for (const a of r.agents) {
    const check = (name: string, rate: number | null, min: number | undefined): void => {
      if (min === undefined) return;
      const got = rate ?? 0;
      if (got < min) out.push(`${a.agent}: ${name} ${(got * 100).toFixed(1)}% is below --min-${name === "intent to call" ? "intent" : "failure"} ${(min * 100).toFixed(1)}%`);
    };
    check("intent to call", a.scores.intent.rate, t.min_intent);
    check("failure handling", a.scores.failure.rate, t.min_failure);
  }
  return out;
}
