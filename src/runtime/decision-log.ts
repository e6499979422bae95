/**
 * The runtime's decision-log entry for one call, in the shape of OPA's decision-log
 * events: the input as evaluated (with the tool's `sensitive` argument fields erased
 * and listed in `erased`), the result, the policy version and the evaluation time,
 * plus toolgate's tenant, tool, operation id, outcome and reason. `opaDecisionEvent`
 * renders a logged record as the OPA event JSON. Enters: the call and its answer.
 * Leaves: a DecisionLogEntry / an OPA event.
 */
import type { TrustedContext } from "../generated-runtime.js";
import type { JsonObject, JsonValue, ToolManifestEntry } from "../manifest.js";
import type { PolicyInput } from "../policy/engine.js";
import type { DecisionLogEntry, DecisionLogRecord, HandlerErrorDetail } from "../store/store.js";
import type { Envelope } from "./envelope.js";
import { loggableToolName, quote } from "../call-data/limits.js";
import type { LogNote } from "./phase.js";
import { maxIdLength } from "./prepare.js";
import type { CallRequest, PreparedCall } from "./types.js";
import { storableText } from "../call-data/unstorable-text.js";

/** Default decision-log retention: 30 days. */
export const defaultDecisionLogRetentionMs = 30 * 24 * 60 * 60_000;

/** RFC 6901 escaping of one pointer segment. */
const pointerSegment = (s: string): string => s.replaceAll("~", "~0").replaceAll("/", "~1");

/** The input with the tool's sensitive argument fields removed, and the JSON pointers of what was removed. */
export function eraseSensitive(input: PolicyInput, tool: ToolManifestEntry | undefined): { input: JsonObject; erased: string[] } {
  const fields = tool?.sensitive ?? [];
  const json = input as unknown as JsonObject;
  const erased: string[] = [];
  for (const f of fields) {
    const pointer = `/input/args/${pointerSegment(f)}`;
    if (Object.prototype.hasOwnProperty.call(input.args, f) && !erased.includes(pointer)) erased.push(pointer);
  }
  // Nothing to erase (no sensitive field declared, or none sent): the input is logged as evaluated.
  if (erased.length === 0) return { input: json, erased };
  const args: JsonObject = {};
  for (const k of Object.keys(input.args)) if (!fields.includes(k)) args[k] = input.args[k]!;
  const masked: JsonObject = {};
  for (const k of Object.keys(json)) masked[k] = k === "args" ? args : json[k]!;
  return { input: masked, erased };
}

export interface DecisionEntryParts {
  readonly decision_id: string;
  readonly at_ms: number;
  readonly ctx: TrustedContext;
  readonly request: CallRequest;
  readonly call: PreparedCall | null;
  readonly tool: ToolManifestEntry | undefined;
  readonly note: LogNote;
  readonly envelope: Envelope;
  /** OPA's `path`: the policy entrypoint. */
  readonly path: string;
  readonly retention_ms: number;
  /** The error the handler threw, when it threw (sensitive argument values already erased). */
  readonly error?: HandlerErrorDetail | null;
}

export function decisionEntry(p: DecisionEntryParts): DecisionLogEntry {
  const { note, envelope, call } = p;
  const ev = note.evaluation;
  const masked = ev === undefined ? null : eraseSensitive(ev.input, p.tool);
  const entry: DecisionLogEntry = {
    decision_id: p.decision_id,
    at_ms: p.at_ms,
    // Text a store would refuse (a NUL) must not fail the log's batch, which holds other calls' entries.
    tenant: storableText(p.ctx.tenant),
    run_id: storableText(p.ctx.run_id),
    user: storableText(p.ctx.user),
    // Model-sent names and ids are logged bounded: an unknown tool name of any length never is.
    tool: call?.tool.name ?? storableText(loggableToolName(p.request.tool)),
    operation_id: call?.operation_id ?? (typeof p.request.operation_id === "string" ? storableText(quote(p.request.operation_id, maxIdLength)) : null),
    fingerprint: call?.fingerprint ?? null,
    decision: note.decision,
    reason: note.reason,
    policy_version: note.policy_version,
    outcome: envelope.outcome,
    outcome_reason: envelope.outcome === "success" ? null : envelope.reason,
    path: ev === undefined ? null : p.path,
    input: masked?.input ?? null,
    result: ev === undefined ? null : (ev.result as unknown as JsonValue),
    erased: masked?.erased ?? [],
    eval_ns: ev?.eval_ns ?? null,
    shadow: ev?.shadow ?? null,
    expires_at_ms: p.at_ms + p.retention_ms,
  };
  return p.error === undefined || p.error === null ? entry : { ...entry, error: p.error };
}

/** A logged record as an OPA decision-log event (plus toolgate's fields under their own names). */
export function opaDecisionEvent(r: DecisionLogRecord): JsonObject {
  const event: JsonObject = {
    decision_id: r.decision_id,
    timestamp: new Date(r.at_ms).toISOString(),
    path: r.path,
    ...(r.input === null ? {} : { input: r.input }),
    ...(r.result === null ? {} : { result: r.result }),
    ...(r.erased.length === 0 ? {} : { erased: [...r.erased] }),
    ...(r.policy_version === null ? {} : { bundles: { toolgate: { revision: r.policy_version } } }),
    ...(r.eval_ns === null ? {} : { metrics: { timer_rego_query_eval_ns: r.eval_ns } }),
    user: r.user,
    tenant: r.tenant,
    run_id: r.run_id,
    tool: r.tool,
    operation_id: r.operation_id,
    decision: r.decision,
    reason: r.reason,
    outcome: r.outcome,
    outcome_reason: r.outcome_reason,
  };
  if (r.shadow !== null) event["shadow"] = r.shadow as unknown as JsonValue;
  if (r.error !== null && r.error !== undefined) event["error"] = r.error as unknown as JsonValue;
  return event;
}
