/**
 * The answer to a handler that threw (not on an interrupt). A marked or declared error gets its
 * class; an undeclared one is classified by the tool's effect: a read has nothing to fear, so it
 * is retryable within the retry budget; a write's effect is unknown, exactly as after a timeout:
 * it is recorded `unknown` and the retry reconciles through the tool's reconciler before
 * anything runs again, and without a reconciler it ends `outcome_unknown`, never run again.
 * The model is told only the tool, the declared key that matched, and the error id.
 * Enters: the call, the error, the attempt. Leaves: the status to record and the envelope.
 */
import type { OperationStatus } from "../store/store.js";
import type { ToolManifestEntry } from "../manifest.js";
import { retryable, terminal } from "./envelope.js";
import type { Envelope } from "./envelope.js";
import { classifyThrown, errorIdOf, thrownDetail } from "./thrown-errors.js";
import type { ThrownErrorSlot } from "./thrown-errors.js";
import type { PreparedCall, RuntimeDeps } from "./types.js";

export interface ThrownOutcome {
  readonly status: Exclude<OperationStatus, "in_progress">;
  readonly envelope: Envelope;
}

/** The retry_after_ms of the attempt-th failure: the tool's backoff (initial x multiplier^(attempt-1), at most max). */
export function backoffMs(tool: ToolManifestEntry, attempt: number): number {
  const b = tool.retry.backoff;
  return Math.min(b.max_ms, Math.round(b.initial_ms * b.multiplier ** Math.max(0, attempt - 1)));
}

/** The fixed text the model gets for a thrown error: no word of the error's own message. */
export const safeFailureText = (tool: string, errorId: string, matched: string | null): string => {
  const what = matched === null ? "" : matched === "transient" ? " with a transient error" : matched === "permanent" ? " with a permanent error" : ` with ${matched}`;
  return `${tool} failed${what} (error ${errorId}); the operator can look it up`;
};

export function answerThrown(deps: RuntimeDeps, call: PreparedCall, error: unknown, attempt: number, slot: ThrownErrorSlot): ThrownOutcome {
  const { tool } = call;
  const errorId = errorIdOf(slot.decision_id);
  const opId = call.operation_id === null ? {} : { operation_id: call.operation_id };
  const c = classifyThrown(error, tool);
  const matched = c.class === "undeclared" ? null : c.matched;
  const text = safeFailureText(tool.name, errorId, matched);
  const note = (treated: "retryable" | "permanent" | "outcome_unknown"): void => {
    slot.thrown = thrownDetail(error, errorId, treated, matched, tool, call.args);
  };
  if (c.class === "permanent") {
    note("permanent");
    return { status: "final", envelope: terminal("permanent_error", text, opId) };
  }
  if (c.class === "retryable" || tool.effect === "read") {
    note("retryable");
    if (call.operation_id !== null && attempt >= tool.retry.max_attempts) {
      return { status: "final", envelope: terminal("retry_exhausted", `${text} (after ${attempt} of ${tool.retry.max_attempts} attempts)`, opId) };
    }
    const after = c.class === "retryable" && c.retry_after_ms !== null ? c.retry_after_ms : backoffMs(tool, attempt);
    return { status: "retryable", envelope: retryable("retryable_error", text, after, opId) };
  }
  // An undeclared error of a write: it may have happened. Like a timeout, look before acting again.
  note("outcome_unknown");
  if (deps.reconcilers[tool.name] !== undefined) {
    return {
      status: "unknown",
      envelope: retryable(
        "retryable_error",
        `${text}; whether it took effect is unknown: retry with the same operation_id and the gate reconciles it before anything runs again`,
        backoffMs(tool, attempt),
        opId,
      ),
    };
  }
  return {
    status: "final",
    envelope: terminal("outcome_unknown", `${text}; whether it took effect is unknown and ${tool.name} has no reconciler, so it is not run again under this operation_id`, opId),
  };
}
