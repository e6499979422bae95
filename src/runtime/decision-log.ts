/**
 * The runtime's decision-log entry for one call, in the shape of OPA's decision-log
 * events: the input as evaluated (with the tool's `sensitive` argument fields erased
 * and listed in `erased`), the result, the policy version and the evaluation time, the
 * runtime's `labels` and the call span's `trace_id`/`span_id`, plus toolgate's tenant,
 * tool, operation id, outcome and reason. `opaDecisionEvent` renders a logged record as
 * the OPA event JSON; `decisionLabels` checks and completes createRuntime's labels.
 * Enters: the call and its answer. Leaves: a DecisionLogEntry / an OPA event.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TrustedContext } from "../generated-runtime.js";
import type { JsonObject, JsonValue, ToolManifestEntry } from "../manifest.js";
import type { PolicyInput } from "../policy/engine.js";
import type { DecisionLabels, DecisionLogEntry, DecisionLogRecord, HandlerErrorDetail } from "../store/store.js";
import { toolgateVersion } from "../version.js";
import type { Envelope } from "./envelope.js";
import { loggableToolName, quote } from "../call-data/limits.js";
import type { LogNote } from "./phase.js";
import { maxIdLength } from "./prepare.js";
import type { SpanIds } from "./telemetry.js";
import type { CallRequest, PreparedCall } from "./types.js";
import { storableText } from "../call-data/unstorable-text.js";

/** Default decision-log retention: 30 days. */
export const defaultDecisionLogRetentionMs = 30 * 24 * 60 * 60_000;

/** createRuntime's `labels`: the service and instance names and the host's own labels, strings only. */
export interface DecisionLabelOptions {
  /** The service the gate runs in. Default: the `name` of ./package.json (the working directory's), else "toolgate". */
  readonly service?: string;
  /** This runtime's id (the entries' `labels.id`). Default: a random UUID per runtime. */
  readonly instance?: string;
  readonly [label: string]: string | undefined;
}

/** Labels on one entry, the runtime's `id`, `version` and `service` included. */
export const MAX_DECISION_LABELS = 32;
export const MAX_DECISION_LABEL_KEY_LENGTH = 64;
export const MAX_DECISION_LABEL_VALUE_LENGTH = 256;
const labelKey = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/** Set by the runtime: `id` is named with `instance`, `version` is toolgate's. */
const reservedLabels = new Set(["id", "version"]);

export class DecisionLabelError extends Error {
  override name = "DecisionLabelError";
  /** The label at fault; null when the labels as a whole are (not an object, too many). */
  readonly label: string | null;
  constructor(label: string | null, message: string) {
    super(message);
    this.label = label;
  }
}
export const isDecisionLabelError = (e: unknown): e is DecisionLabelError =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "DecisionLabelError";

/** The working directory's package name, when it is a usable label value. */
function packageName(): string | null {
  try {
    const name = (JSON.parse(readFileSync(join(process.cwd(), "package.json"), "utf8")) as { name?: unknown }).name;
    return typeof name === "string" && name.length > 0 && name.length <= MAX_DECISION_LABEL_VALUE_LENGTH ? name : null;
  } catch {
    return null;
  }
}

/**
 * The labels every entry of a runtime carries: `id` (options.instance, else a random UUID),
 * `version` (toolgate's), `service` (options.service, else the package name, else "toolgate")
 * and the other given labels. Throws DecisionLabelError for a label that is not a string, a
 * reserved or malformed name, a value too long, or too many labels. Frozen: shared by every entry.
 */
export function decisionLabels(options: unknown = {}): DecisionLabels {
  const where = "createRuntime labels";
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new DecisionLabelError(null, `${where}: expected an object of string labels, got ${Array.isArray(options) ? "an array" : options === null ? "null" : typeof options}`);
  }
  const given = options as Record<string, unknown>;
  const extra: Record<string, string> = {};
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined) continue;
    if (reservedLabels.has(key)) {
      throw new DecisionLabelError(key, `${where}: "${key}" is set by the runtime${key === "id" ? "; name this runtime with labels.instance" : " (toolgate's version)"}`);
    }
    if (key.length > MAX_DECISION_LABEL_KEY_LENGTH || !labelKey.test(key)) {
      throw new DecisionLabelError(key, `${where}: label name ${JSON.stringify(key.slice(0, MAX_DECISION_LABEL_KEY_LENGTH))} must be 1 to ${MAX_DECISION_LABEL_KEY_LENGTH} letters, digits, "_", "." or "-", starting with a letter or "_"`);
    }
    if (typeof value !== "string") throw new DecisionLabelError(key, `${where}: label "${key}" must be a string, got ${value === null ? "null" : typeof value}`);
    if (value.length > MAX_DECISION_LABEL_VALUE_LENGTH) {
      throw new DecisionLabelError(key, `${where}: label "${key}" is ${value.length} characters long; at most ${MAX_DECISION_LABEL_VALUE_LENGTH}`);
    }
    // A store refuses text with a NUL (SQLite's TEXT and PostgreSQL's jsonb both end it there).
    if (value.includes("\u0000")) throw new DecisionLabelError(key, `${where}: label "${key}" contains a NUL character`);
    if (key !== "service" && key !== "instance") extra[key] = value;
  }
  const service = typeof given["service"] === "string" ? given["service"] : (packageName() ?? "toolgate");
  const id = typeof given["instance"] === "string" ? given["instance"] : randomUUID();
  const labels: Record<string, string> = { id, version: toolgateVersion, service, ...extra };
  if (Object.keys(labels).length > MAX_DECISION_LABELS) {
    throw new DecisionLabelError(null, `${where}: ${Object.keys(labels).length} labels with id, version and service; at most ${MAX_DECISION_LABELS}`);
  }
  return Object.freeze(labels);
}

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
  /** The runtime's labels (`decisionLabels`). */
  readonly labels?: DecisionLabels | null;
  /** The call span's ids when it records; null without a tracer. */
  readonly span?: SpanIds | null;
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
    labels: p.labels ?? null,
    trace_id: p.span?.trace_id ?? null,
    span_id: p.span?.span_id ?? null,
  };
  return p.error === undefined || p.error === null ? entry : { ...entry, error: p.error };
}

/** A logged record as an OPA decision-log event (plus toolgate's fields under their own names). */
export function opaDecisionEvent(r: DecisionLogRecord): JsonObject {
  const event: JsonObject = {
    decision_id: r.decision_id,
    // OPA's event always has labels; trace_id and span_id only when the call was traced.
    labels: r.labels === null || r.labels === undefined ? null : { ...r.labels },
    ...(typeof r.trace_id === "string" ? { trace_id: r.trace_id } : {}),
    ...(typeof r.span_id === "string" ? { span_id: r.span_id } : {}),
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
