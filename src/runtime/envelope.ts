/**
 * The one response shape of every call: exactly three outcomes and a closed set of
 * reasons, so a caller (the model loop) branches without interpreting text.
 * Anything that does not match is treated as a terminal failure (`normalizeEnvelope`).
 */
import type { JsonObject, JsonValue } from "../manifest.js";

/**
 * `policy_budget_exceeded` (terminal): the policy's evaluation took more steps than its budget
 * (createRuntime `policyBudget`, host builtin time included) or its deadline and was stopped;
 * nothing ran, and the same call is stopped again.
 * `policy_evaluation_error` (terminal): the policy's evaluation failed (with tools.yaml
 * `policy.strict_builtin_errors`, any builtin error; always: a conflict, a trap, a malformed
 * module); nothing ran.
 * `outcome_unknown` (terminal): a write's handler threw an undeclared error, so its effect may or
 * may not have happened, and the tool has no reconciler to find out; it is not run again under
 * the operation id (an operator checks, using the error id in the message).
 * `destructive_denied` (terminal): the tool's effect is `destructive`, which the gate never runs,
 * whatever the policy or an approval says.
 * `limit_exceeded` (terminal): the call does not fit a cap of a tools.yaml limit (`max_sum`,
 * `max_count`) with the figures read when it was claimed; nothing ran (`limit` says which and how much).
 */
export const reasons = [
  "unknown_tool",
  "invalid_arguments",
  "policy_denied",
  "approval_required",
  "timeout",
  "retryable_error",
  "permanent_error",
  "retry_exhausted",
  "idempotency_conflict",
  "interrupted",
  "context_unavailable",
  "policy_budget_exceeded",
  "policy_evaluation_error",
  "outcome_unknown",
  "destructive_denied",
  "limit_exceeded",
] as const;
export type Reason = (typeof reasons)[number];

/** `context_unavailable`: a host fact the decision needs could not be resolved or failed its schema; nothing ran. */
export const retryableReasons = ["timeout", "retryable_error", "context_unavailable"] as const satisfies readonly Reason[];
export type RetryableReason = (typeof retryableReasons)[number];

export interface SuccessEnvelope {
  readonly outcome: "success";
  readonly value: JsonValue;
  readonly resource_id?: string;
  /** What the tool observed after the effect (null when it reported none). */
  readonly observed_state: JsonObject | null;
  /** null only for reads called without one. */
  readonly operation_id: string | null;
  /** true when this answer is the recorded outcome of an earlier call. */
  readonly replayed: boolean;
}

export interface RetryableFailureEnvelope {
  readonly outcome: "retryable_failure";
  readonly reason: RetryableReason;
  readonly message: string;
  readonly retry_after_ms: number;
  readonly observed_state?: JsonObject;
  readonly operation_id?: string;
}

export interface TerminalFailureEnvelope {
  readonly outcome: "terminal_failure";
  readonly reason: Reason;
  readonly message: string;
  readonly observed_state?: JsonObject;
  /** Set with `approval_required`: the pending approval to decide. */
  readonly approval_id?: string;
  /** With `approval_required`: when the approval expires (ISO 8601). */
  readonly expires_at?: string;
  /** With `approval_required`: what happens next (the host resumes once approved, or the caller retries). */
  readonly next?: string;
  /** Typed domain failure name from tools.yaml, when the handler reported one. */
  readonly failure?: string;
  /** For invalid_arguments: compact, model-readable problems ("/amount: must be >= 1"). */
  readonly problems?: readonly string[];
  readonly operation_id?: string;
  readonly replayed?: boolean;
  /** The resource an effect landed on although the call failed (a stale or contradicted success). */
  readonly resource_id?: string;
  /** With `limit_exceeded`: the limit and its figures when the call was refused. */
  readonly limit?: { readonly name: string; readonly count: number; readonly sum: number; readonly max_count: number | null; readonly max_sum: number | null };
  /** How to undo that effect: call this tool with these arguments and operation id (or runtime.compensate). */
  readonly compensation?: { readonly tool: string; readonly args: JsonObject; readonly operation_id: string };
}

export type Envelope = SuccessEnvelope | RetryableFailureEnvelope | TerminalFailureEnvelope;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isReason = (v: unknown): v is Reason => typeof v === "string" && (reasons as readonly string[]).includes(v);
const optional = (o: Record<string, unknown>, key: string, ok: (v: unknown) => boolean): boolean =>
  !(key in o) || o[key] === undefined || ok(o[key]);
const isString = (v: unknown): boolean => typeof v === "string";

/** True only for a well-formed envelope of one of the three outcomes. */
export function isEnvelope(v: unknown): v is Envelope {
  if (!isObject(v)) return false;
  switch (v.outcome) {
    case "success":
      return (
        "value" in v &&
        (v.observed_state === null || isObject(v.observed_state)) &&
        (v.operation_id === null || typeof v.operation_id === "string") &&
        typeof v.replayed === "boolean" &&
        optional(v, "resource_id", isString)
      );
    case "retryable_failure":
      return (
        (retryableReasons as readonly string[]).includes(v.reason as string) &&
        typeof v.message === "string" &&
        typeof v.retry_after_ms === "number" &&
        Number.isFinite(v.retry_after_ms) &&
        v.retry_after_ms >= 0 &&
        optional(v, "observed_state", isObject)
      );
    case "terminal_failure":
      return (
        isReason(v.reason) &&
        typeof v.message === "string" &&
        optional(v, "observed_state", isObject) &&
        optional(v, "approval_id", isString) &&
        optional(v, "resource_id", isString) &&
        optional(v, "compensation", (c) => isObject(c) && typeof c.tool === "string" && isObject(c.args) && typeof c.operation_id === "string")
      );
    default:
      return false;
  }
}

/** Any value from anywhere -> an envelope; whatever is not one becomes a terminal failure. */
export function normalizeEnvelope(v: unknown): Envelope {
  if (isEnvelope(v)) return v;
  const kind = isObject(v) && typeof v.outcome === "string" ? `outcome "${v.outcome}"` : "a value that is not an envelope";
  return { outcome: "terminal_failure", reason: "permanent_error", message: `unrecognised response (${kind}) treated as terminal` };
}

export const terminal = (reason: Reason, message: string, extra: Partial<TerminalFailureEnvelope> = {}): TerminalFailureEnvelope => ({
  outcome: "terminal_failure",
  reason,
  message,
  ...extra,
});

export const retryable = (
  reason: RetryableReason,
  message: string,
  retryAfterMs: number,
  extra: Partial<RetryableFailureEnvelope> = {},
): RetryableFailureEnvelope => ({ outcome: "retryable_failure", reason, message, retry_after_ms: retryAfterMs, ...extra });

/** The envelope as a plain JSON object (for the store). */
export const envelopeToJson = (e: Envelope): JsonObject => JSON.parse(JSON.stringify(e)) as JsonObject;
