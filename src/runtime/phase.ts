/** What a phase hands back: go on with a value, or answer now (with what the decision log should say). */
import type { JsonObject } from "../manifest.js";
import type { LimitFigures, PolicyDecisionKind } from "../store/store.js";
import type { Envelope } from "./envelope.js";
import type { Evaluation } from "./evaluation.js";

export interface LogNote {
  readonly decision: PolicyDecisionKind;
  readonly reason: string | null;
  readonly policy_version: string | null;
  /** The policy evaluation behind the decision (input, result, time), when the policy was asked. */
  readonly evaluation?: Evaluation;
}

/** What authorize hands to invoke: the allow, and the approval it relied on (re-read right before the claim). */
export interface Authorized extends LogNote {
  readonly approval_id: string | null;
  /**
   * The operation's outcome is unknown (timeout, crashed owner): invoke reconciles first, which
   * needs no authorization because it causes no effect; the policy is asked only if the
   * reconciler finds nothing and the handler would run again (`authorizeLate`).
   */
  readonly deferred: boolean;
  /** The host facts the policy decided with (tools.yaml `context:`); the handler sees the same values. */
  readonly context?: JsonObject;
  /** The limit figures the policy decided on (input.limits); the claim holds the call to them. */
  readonly limits?: Readonly<Record<string, LimitFigures>>;
}

export type Step<T> =
  | { readonly kind: "continue"; readonly value: T }
  | { readonly kind: "answer"; readonly envelope: Envelope; readonly note: LogNote };

export const answer = (envelope: Envelope, note: Partial<LogNote> = {}): { kind: "answer"; envelope: Envelope; note: LogNote } => ({
  kind: "answer",
  envelope,
  note: { decision: "not_evaluated", reason: null, policy_version: null, ...note },
});

export const proceed = <T>(value: T): { kind: "continue"; value: T } => ({ kind: "continue", value });
