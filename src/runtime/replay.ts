/**
 * Replay: re-evaluates logged decision inputs under a candidate policy and reports
 * the decisions that would change, grouped by tool and (before -> after) reason.
 * An entry whose input had fields erased is not replayable (the candidate might
 * read exactly those fields), and is reported as such instead of guessed. Entries
 * answered before the policy was asked have no input and are counted apart.
 * Enters: logged records and a PolicyEngine. Leaves: a ReplayReport.
 */
import type { PolicyDecision, PolicyEngine, PolicyInput } from "../policy/engine.js";
import { deny } from "../policy/engine.js";
import type { DecisionLogRecord, PolicyDecisionKind } from "../store/store.js";
import { decisionKind } from "./evaluation.js";

export type DecidedKind = Exclude<PolicyDecisionKind, "not_evaluated">;

export interface ReplaySide {
  readonly decision: DecidedKind;
  readonly reason: string;
}

export interface ReplayChange {
  readonly decision_id: string;
  readonly at_ms: number;
  readonly tenant: string;
  readonly tool: string;
  readonly operation_id: string | null;
  readonly before: ReplaySide;
  readonly after: ReplaySide;
  /** allow became not-allowed (deny or approval required), or the reverse. */
  readonly flip: boolean;
}

export interface ReplayGroup {
  readonly tool: string;
  readonly before: ReplaySide;
  readonly after: ReplaySide;
  readonly flip: boolean;
  readonly count: number;
  readonly decision_ids: readonly string[];
}

export interface ReplayReport {
  readonly candidate_version: string;
  /** Logged entries considered. */
  readonly total: number;
  /** Re-evaluated under the candidate. */
  readonly replayed: number;
  readonly unchanged: number;
  readonly changes: readonly ReplayChange[];
  /** Changes grouped by tool and before -> after, largest first. */
  readonly groups: readonly ReplayGroup[];
  /** Entries with erased input fields: `erased` names them. */
  readonly not_replayable: readonly { readonly decision_id: string; readonly tool: string; readonly erased: readonly string[] }[];
  /** Entries answered before the policy was asked (unknown tool, invalid arguments, replays...). */
  readonly not_evaluated: number;
  /** Versions the replayed entries were decided under, with counts. */
  readonly logged_versions: Readonly<Record<string, number>>;
}

function loggedSide(r: DecisionLogRecord): ReplaySide | null {
  const res = r.result as { allow?: unknown; reason?: unknown; requires_approval?: unknown } | null;
  if (res === null || typeof res !== "object" || typeof res.allow !== "boolean" || typeof res.reason !== "string") return null;
  const d: PolicyDecision = { allow: res.allow, reason: res.reason, requires_approval: res.requires_approval === true };
  return { decision: decisionKind(d), reason: d.reason };
}

const groupKey = (c: ReplayChange): string => JSON.stringify([c.tool, c.before.decision, c.before.reason, c.after.decision, c.after.reason]);

export async function replayDecisions(records: readonly DecisionLogRecord[], candidate: PolicyEngine): Promise<ReplayReport> {
  const changes: ReplayChange[] = [];
  const notReplayable: { decision_id: string; tool: string; erased: readonly string[] }[] = [];
  const versions: Record<string, number> = {};
  let notEvaluated = 0;
  let replayed = 0;
  for (const r of records) {
    const before = r.input === null ? null : loggedSide(r);
    if (r.input === null || before === null) {
      notEvaluated++;
      continue;
    }
    if (r.erased.length > 0) {
      notReplayable.push({ decision_id: r.decision_id, tool: r.tool, erased: r.erased });
      continue;
    }
    replayed++;
    const v = r.policy_version ?? "(unknown)";
    versions[v] = (versions[v] ?? 0) + 1;
    let result: PolicyDecision;
    try {
      result = await candidate.evaluate(r.input as unknown as PolicyInput);
    } catch {
      result = deny("policy_evaluation_error");
    }
    const after: ReplaySide = { decision: decisionKind(result), reason: result.reason };
    if (after.decision === before.decision && after.reason === before.reason) continue;
    changes.push({
      decision_id: r.decision_id,
      at_ms: r.at_ms,
      tenant: r.tenant,
      tool: r.tool,
      operation_id: r.operation_id,
      before,
      after,
      flip: (before.decision === "allow") !== (after.decision === "allow"),
    });
  }
  const groups = new Map<string, { tool: string; before: ReplaySide; after: ReplaySide; flip: boolean; ids: string[] }>();
  for (const c of changes) {
    const k = groupKey(c);
    const g = groups.get(k) ?? { tool: c.tool, before: c.before, after: c.after, flip: c.flip, ids: [] };
    g.ids.push(c.decision_id);
    groups.set(k, g);
  }
  return {
    candidate_version: candidate.version,
    total: records.length,
    replayed,
    unchanged: replayed - changes.length,
    changes,
    groups: [...groups.values()]
      .map((g) => ({ tool: g.tool, before: g.before, after: g.after, flip: g.flip, count: g.ids.length, decision_ids: g.ids }))
      .sort((a, b) => b.count - a.count || a.tool.localeCompare(b.tool)),
    not_replayable: notReplayable,
    not_evaluated: notEvaluated,
    logged_versions: versions,
  };
}

/** `flips`: allow <-> not allowed; `changes`: any change of decision or reason; `never`. */
export type ReplayFailOn = "flips" | "changes" | "never";

export function replayFails(report: ReplayReport, failOn: ReplayFailOn): boolean {
  if (failOn === "never") return false;
  if (failOn === "changes") return report.changes.length > 0;
  return report.changes.some((c) => c.flip);
}
