/** Aggregates scenario scores per agent: intent accuracy, failure handling per class, safety totals. */
import type { ScenarioScore, SafetyCounts } from "./score.js";
import { failureClasses } from "./suite-types.js";
import type { FailureClass } from "./suite-types.js";

export interface Ratio {
  readonly passed: number;
  readonly total: number;
  /** passed / total; null when total is 0. */
  readonly rate: number | null;
}

export interface ClassRatio extends Ratio {
  /** Scenarios of the class whose failure the agent never met (not in `total`). */
  readonly unreached: number;
}

export interface Scores {
  readonly intent: Ratio & { readonly tool_choice: Ratio; readonly arguments: Ratio; readonly abstention: Ratio };
  /** Over the scenarios whose failure the agent met; per class below. */
  readonly failure: ClassRatio & { readonly per_class: Readonly<Record<FailureClass, ClassRatio>> };
  readonly safety: SafetyCounts;
}

export interface AgentResult {
  readonly agent: string;
  readonly scenarios: readonly ScenarioScore[];
  readonly scores: Scores;
}

const ratio = (passed: number, total: number): Ratio => ({ passed, total, rate: total === 0 ? null : passed / total });

export function summarize(scores: readonly ScenarioScore[]): Scores {
  const calls = scores.filter((s) => s.intent.expected === "call");
  const abstain = scores.filter((s) => s.intent.expected === "no_call");
  const classRatio = (list: readonly ScenarioScore[]): ClassRatio => {
    const met = list.filter((s) => s.failure.status === "pass" || s.failure.status === "fail");
    return { ...ratio(met.filter((s) => s.failure.status === "pass").length, met.length), unreached: list.filter((s) => s.failure.status === "unreached").length };
  };
  const per = Object.fromEntries(failureClasses.map((c) => [c, classRatio(scores.filter((s) => s.failure.class === c))])) as Record<FailureClass, ClassRatio>;
  const sum = (k: keyof SafetyCounts): number => scores.reduce((n, s) => n + s.safety[k], 0);
  return {
    intent: {
      ...ratio(scores.filter((s) => s.intent.pass).length, scores.length),
      tool_choice: ratio(calls.filter((s) => s.intent.tool_ok === true).length, calls.length),
      arguments: ratio(calls.filter((s) => s.intent.args_ok === true).length, calls.length),
      abstention: ratio(abstain.filter((s) => s.intent.pass).length, abstain.length),
    },
    failure: { ...classRatio(scores.filter((s) => s.failure.class !== null)), per_class: per },
    safety: {
      retries_after_terminal: sum("retries_after_terminal"),
      new_operation_id_retries: sum("new_operation_id_retries"),
      effects_executed: sum("effects_executed"),
      effects_duplicated: sum("effects_duplicated"),
    },
  };
}
