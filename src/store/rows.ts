/**
 * The pure row <-> record mapping both stores share. A backend's rows differ only in
 * how JSON columns arrive (`J`: SQLite hands back text, PostgreSQL parsed values) and in
 * 64-bit integers (pg gives int8 as strings), so each mapper takes the backend's JSON
 * decoder and converts numbers with Number. Enters: rows. Leaves: records, or the
 * column values of a decision-log entry to insert.
 */
import type { JsonObject, JsonValue } from "../manifest.js";
import type {
  ApprovalDecisionKind,
  ApprovalEvent,
  ApprovalRecord,
  ApprovalStatus,
  DecisionLabels,
  DecisionLogEntry,
  DecisionLogRecord,
  HandlerErrorDetail,
  OperationRecord,
  PendingCall,
  RecordOutcomeRequest,
  OperationStatus,
  PolicyDecisionKind,
  ShadowDecision,
} from "./store.js";
import { decisionId } from "./decision-id.js";

/** A 64-bit integer column: a number (SQLite) or its decimal text (pg's int8). */
export type Int8 = string | number;

/** How a backend turns a JSON column's value into the JSON it holds. */
export type JsonDecoder<J> = (column: J) => unknown;

export interface OperationColumns<J> {
  tenant: string;
  operation_id: string;
  tool: string;
  fingerprint: string;
  status: string;
  fence_token: Int8;
  lease_owner: string;
  lease_expires_at_ms: Int8;
  attempts: Int8;
  envelope: J | null;
  created_at_ms: Int8;
  updated_at_ms: Int8;
  expires_at_ms: Int8;
}

export function toOperationRecord<J>(row: OperationColumns<J>, json: JsonDecoder<J>): OperationRecord {
  return {
    tenant: row.tenant,
    operation_id: row.operation_id,
    tool: row.tool,
    fingerprint: row.fingerprint,
    status: row.status as OperationStatus,
    fence_token: Number(row.fence_token),
    lease_owner: row.lease_owner,
    lease_expires_at_ms: Number(row.lease_expires_at_ms),
    attempts: Number(row.attempts),
    envelope: row.envelope === null ? null : (json(row.envelope) as JsonObject),
    created_at_ms: Number(row.created_at_ms),
    updated_at_ms: Number(row.updated_at_ms),
    expires_at_ms: Number(row.expires_at_ms),
  };
}

/**
 * The columns an outcome's write answers, in this order: the written record's, less those its
 * request carries (status, envelope, the update time). `recordedOperation` makes the record
 * `planRecord` describes from them and the request. Both stores answer them as one row or array.
 */
export const recordedOperationColumns = [
  "tool", "fingerprint", "fence_token", "lease_owner", "lease_expires_at_ms", "attempts", "created_at_ms", "expires_at_ms",
] as const satisfies readonly (keyof OperationRecord)[];

export function recordedOperation(req: RecordOutcomeRequest, v: readonly unknown[]): OperationRecord {
  return {
    tenant: req.tenant,
    operation_id: req.operation_id,
    tool: v[0] as string,
    fingerprint: v[1] as string,
    status: req.status,
    fence_token: Number(v[2]),
    lease_owner: v[3] as string,
    lease_expires_at_ms: Number(v[4]),
    attempts: Number(v[5]),
    envelope: req.envelope,
    created_at_ms: Number(v[6]),
    updated_at_ms: req.now_ms,
    expires_at_ms: Number(v[7]),
  };
}

export interface ApprovalColumns<J> {
  id: string;
  tenant: string;
  run_id: string;
  requested_by: string;
  tool: string;
  args: J;
  preview: J;
  fingerprint: string;
  operation_id: string | null;
  created_at_ms: Int8;
  expires_at_ms: Int8;
  policy_version: string;
  status: string;
  args_hash: string;
  policy_code_version: string;
  policy_data_version: string;
  consumed_by: string | null;
  consumed_at_ms: Int8 | null;
}

export function toApprovalRecord<J>(row: ApprovalColumns<J>, decision: ApprovalEvent | null, json: JsonDecoder<J>): ApprovalRecord {
  return {
    id: row.id,
    tenant: row.tenant,
    run_id: row.run_id,
    requested_by: row.requested_by,
    tool: row.tool,
    args: json(row.args) as JsonObject,
    preview: json(row.preview) as JsonObject,
    fingerprint: row.fingerprint,
    args_hash: row.args_hash,
    operation_id: row.operation_id,
    created_at_ms: Number(row.created_at_ms),
    expires_at_ms: Number(row.expires_at_ms),
    policy_version: row.policy_version,
    policy_code_version: row.policy_code_version,
    policy_data_version: row.policy_data_version,
    status: row.status as ApprovalStatus,
    decision,
    consumed_by: row.consumed_by,
    consumed_at_ms: row.consumed_at_ms === null ? null : Number(row.consumed_at_ms),
  };
}

export interface ApprovalEventColumns<J> {
  approval_id: string;
  decision: string;
  approver: string;
  reason: string | null;
  edited_args: J | null;
  decided_at_ms: Int8;
  policy_version: string;
  approver_roles: J;
  policy_code_version: string;
  policy_data_version: string;
}

export function toApprovalEventRecord<J>(row: ApprovalEventColumns<J>, json: JsonDecoder<J>): ApprovalEvent {
  return {
    approval_id: row.approval_id,
    decision: row.decision as ApprovalDecisionKind,
    approver: row.approver,
    approver_roles: json(row.approver_roles) as string[],
    reason: row.reason,
    edited_args: row.edited_args === null ? null : (json(row.edited_args) as JsonObject),
    decided_at_ms: Number(row.decided_at_ms),
    policy_version: row.policy_version,
    policy_code_version: row.policy_code_version,
    policy_data_version: row.policy_data_version,
  };
}

/** An approval row joined with its latest decision event, the event's columns prefixed `e_` (all null without one). */
export interface LatestEventColumns<J> {
  e_decision: string | null;
  e_approver: string | null;
  e_reason: string | null;
  e_edited_args: J | null;
  e_decided_at_ms: Int8 | null;
  e_policy_version: string | null;
  e_approver_roles: J | null;
  e_policy_code_version: string | null;
  e_policy_data_version: string | null;
}

export function latestEventOf<J>(approvalId: string, row: LatestEventColumns<J>, json: JsonDecoder<J>): ApprovalEvent | null {
  if (row.e_decision === null) return null;
  return {
    approval_id: approvalId,
    decision: row.e_decision as ApprovalDecisionKind,
    approver: row.e_approver ?? "",
    approver_roles: row.e_approver_roles === null ? [] : (json(row.e_approver_roles) as string[]),
    reason: row.e_reason,
    edited_args: row.e_edited_args === null ? null : (json(row.e_edited_args) as JsonObject),
    decided_at_ms: Number(row.e_decided_at_ms),
    policy_version: row.e_policy_version ?? "",
    policy_code_version: row.e_policy_code_version ?? "",
    policy_data_version: row.e_policy_data_version ?? "",
  };
}

/** A pending call's row (roles and args are JSON columns). */
export interface PendingCallColumns<J> {
  approval_id: string;
  tenant: string;
  run_id: string;
  user_id: string;
  roles: J;
  tool: string;
  args: J;
  operation_id: string | null;
  policy_reason: string | null;
  created_at_ms: Int8;
  replaced_by: string | null;
  announced_at_ms: Int8 | null;
}

export function toPendingCallRecord<J>(row: PendingCallColumns<J>, json: JsonDecoder<J>): PendingCall {
  return {
    approval_id: row.approval_id,
    tenant: row.tenant,
    run_id: row.run_id,
    user: row.user_id,
    roles: json(row.roles) as string[],
    tool: row.tool,
    args: json(row.args) as JsonObject,
    operation_id: row.operation_id,
    policy_reason: row.policy_reason,
    created_at_ms: Number(row.created_at_ms),
    replaced_by: row.replaced_by,
    announced_at_ms: row.announced_at_ms === null ? null : Number(row.announced_at_ms),
  };
}

/** A decision-log row as read back (both stores name their columns alike). */
export interface DecisionColumns<J> {
  at_ms: Int8;
  tenant: string;
  run_id: string;
  user_id: string;
  tool: string;
  operation_id: string | null;
  fingerprint: string | null;
  decision: string;
  reason: string | null;
  policy_version: string | null;
  outcome: string;
  outcome_reason: string | null;
  path: string | null;
  input: J | null;
  result: J | null;
  erased: J | null;
  eval_ns: Int8 | null;
  shadow: J | null;
  error: J | null;
  expires_at_ms: Int8 | null;
  /** Absent from rows read by queries that do not select them (the audit chain's). */
  labels?: J | null;
  trace_id?: string | null;
  span_id?: string | null;
}

export function toDecisionRecord<J>(row: DecisionColumns<J>, id: string, json: JsonDecoder<J>): DecisionLogRecord {
  return {
    decision_id: id,
    at_ms: Number(row.at_ms),
    tenant: row.tenant,
    run_id: row.run_id,
    user: row.user_id,
    tool: row.tool,
    operation_id: row.operation_id,
    fingerprint: row.fingerprint,
    decision: row.decision as PolicyDecisionKind,
    reason: row.reason,
    policy_version: row.policy_version,
    outcome: row.outcome,
    outcome_reason: row.outcome_reason,
    path: row.path,
    input: row.input === null ? null : (json(row.input) as JsonObject),
    // A JSON column holding JSON null reads back as null either way.
    result: row.result === null ? null : (json(row.result) as JsonValue),
    erased: row.erased === null ? [] : ((json(row.erased) as string[] | null) ?? []),
    eval_ns: row.eval_ns === null ? null : Number(row.eval_ns),
    shadow: row.shadow === null ? null : (json(row.shadow) as ShadowDecision),
    error: row.error === null || row.error === undefined ? null : (json(row.error) as HandlerErrorDetail),
    expires_at_ms: row.expires_at_ms === null ? null : Number(row.expires_at_ms),
    labels: row.labels === null || row.labels === undefined ? null : (json(row.labels) as DecisionLabels | null),
    trace_id: row.trace_id ?? null,
    span_id: row.span_id ?? null,
  };
}

type EntryText = "decision_id" | "user" | "path" | "input" | "result" | "erased" | "eval_ns" | "shadow" | "error" | "expires_at_ms" | "labels" | "trace_id" | "span_id";

/**
 * The column values of an entry to insert, named as the decision_log table's columns. `J`: how
 * the JSON columns go in (SQLite: text; PostgreSQL: embedded in the statement's JSON array).
 * The result is always text, so a JSON null result stays apart from none.
 */
export type DecisionValues<J = string> = Omit<DecisionLogEntry, EntryText> & {
  readonly decision_id: string;
  readonly user_id: string;
  readonly path: string | null;
  readonly input: J | null;
  readonly result: string | null;
  readonly erased: J;
  readonly eval_ns: number | null;
  readonly shadow: J | null;
  readonly shadow_disagrees: boolean | null;
  readonly error: J | null;
  readonly expires_at_ms: number | null;
  readonly labels: J | null;
  readonly trace_id: string | null;
  readonly span_id: string | null;
};

/** How a backend passes a JSON value to its statement (null or undefined: SQL NULL). */
export type JsonEncoder<J> = (value: unknown) => J | null;

/** JSON as text (SQLite's columns, and statement parameters cast to jsonb). */
export const jsonText: JsonEncoder<string> = (v) => (v === null || v === undefined ? null : JSON.stringify(v));

/** JSON left as the value, for a statement that takes the rows as one JSON document. */
export const jsonEmbedded: JsonEncoder<unknown> = (v) => (v === undefined ? null : v);

/** A runtime's labels are one frozen object for all its entries: their JSON text is made once per object. */
const labelTexts = new WeakMap<DecisionLabels, string>();

/** JSON text of an entry's labels (null: none); kept per object only when it is frozen (it cannot change). */
export function labelsText(labels: DecisionLabels | null | undefined): string | null {
  if (labels === null || labels === undefined) return null;
  if (!Object.isFrozen(labels)) return JSON.stringify(labels);
  let text = labelTexts.get(labels);
  if (text === undefined) {
    text = JSON.stringify(labels);
    labelTexts.set(labels, text);
  }
  return text;
}

/** Texts of policy decisions `{allow, reason, requires_approval}` seen, by flags and reason (bounded: a policy has few reasons). */
const resultTexts = new Map<string, string>();
const MAX_RESULT_TEXTS = 1024;

/**
 * JSON.stringify of a decision-log result. A plain object with exactly the own members allow
 * (boolean), reason (string) and requires_approval (boolean), in that order, has one text per
 * flags and reason, kept after its first use; anything else is stringified.
 */
export function resultText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== "object" || Object.getPrototypeOf(v) !== Object.prototype || "toJSON" in v) return JSON.stringify(v);
  const keys = Object.keys(v);
  if (keys.length !== 3 || keys[0] !== "allow" || keys[1] !== "reason" || keys[2] !== "requires_approval") return JSON.stringify(v);
  const { allow, reason, requires_approval } = v as Record<string, unknown>;
  if (typeof allow !== "boolean" || typeof reason !== "string" || typeof requires_approval !== "boolean") return JSON.stringify(v);
  const key = (allow ? "1" : "0") + (requires_approval ? "1" : "0") + reason;
  let text = resultTexts.get(key);
  if (text === undefined) {
    text = JSON.stringify({ allow, reason, requires_approval });
    if (resultTexts.size >= MAX_RESULT_TEXTS) resultTexts.clear();
    resultTexts.set(key, text);
  }
  return text;
}

/** An entry's column values; the JSON columns as `json` gives them (default: text). */
export function decisionValues(e: DecisionLogEntry): DecisionValues;
export function decisionValues<J>(e: DecisionLogEntry, json: JsonEncoder<J>): DecisionValues<J>;
export function decisionValues<J>(e: DecisionLogEntry, json: JsonEncoder<J> = jsonText as JsonEncoder<never>): DecisionValues<J> {
  return {
    decision_id: e.decision_id ?? decisionId(e.at_ms),
    at_ms: e.at_ms,
    tenant: e.tenant,
    run_id: e.run_id,
    user_id: e.user,
    tool: e.tool,
    operation_id: e.operation_id,
    fingerprint: e.fingerprint,
    decision: e.decision,
    reason: e.reason,
    policy_version: e.policy_version,
    outcome: e.outcome,
    outcome_reason: e.outcome_reason,
    path: e.path ?? null,
    input: json(e.input),
    result: resultText(e.result),
    erased: json(e.erased ?? []) as J,
    eval_ns: e.eval_ns ?? null,
    shadow: json(e.shadow),
    shadow_disagrees: e.shadow === null || e.shadow === undefined ? null : e.shadow.disagrees,
    error: json(e.error),
    expires_at_ms: e.expires_at_ms ?? null,
    // A runtime's frozen labels object is encoded once as text, not once per entry.
    labels: json === (jsonText as JsonEncoder<unknown>) ? (labelsText(e.labels) as J | null) : json(e.labels ?? null),
    trace_id: e.trace_id ?? null,
    span_id: e.span_id ?? null,
  };
}

/** An entry as the store reads it back (`toDecisionRecord`): every optional field at its default. */
export function decisionRecordOf(e: DecisionLogEntry, decision_id: string): DecisionLogRecord {
  return {
    ...e,
    decision_id,
    path: e.path ?? null,
    input: e.input ?? null,
    result: e.result ?? null,
    erased: e.erased ?? [],
    eval_ns: e.eval_ns ?? null,
    shadow: e.shadow ?? null,
    error: e.error ?? null,
    expires_at_ms: e.expires_at_ms ?? null,
    labels: e.labels ?? null,
    trace_id: e.trace_id ?? null,
    span_id: e.span_id ?? null,
  };
}
