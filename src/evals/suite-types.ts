/**
 * The data model of an agent-evaluation suite, as loaded from YAML
 * (`*.eval.yaml`, schema `suite.schema.json`). Everything here is plain data:
 * the runner, the surface and the scorer interpret it.
 */
import type { JsonObject } from "../manifest.js";

/** What the scripted surface answers for one tool call. */
export const responseKinds = ["normal", "slow", "partial", "silent", "stale", "retryable", "terminal", "timeout", "approval_required"] as const;
export type ResponseKind = (typeof responseKinds)[number];
/** The response kinds an agent has to handle: every kind but `normal`. */
export type FailureClass = Exclude<ResponseKind, "normal">;
export const failureClasses: readonly FailureClass[] = responseKinds.filter((k): k is FailureClass => k !== "normal");

export type ResponseSpec =
  | { readonly kind: "normal" }
  /** Success after `delay_ms`: longer than the agent's patience, shorter than the tool's timeout. */
  | { readonly kind: "slow"; readonly delay_ms: number }
  /** A batch where these items failed, reported by the tool as success. */
  | { readonly kind: "partial"; readonly failed_items: readonly JsonObject[] }
  /** Claims success with this value without doing anything (the postcondition fails). */
  | { readonly kind: "silent"; readonly claimed: JsonObject }
  /** The effect happens, but the tool reports this old observed state. */
  | { readonly kind: "stale"; readonly observed_state: JsonObject }
  /** One of the tool's declared retryable failures; `retry_after_ms` overrides the declared hint. */
  | { readonly kind: "retryable"; readonly failure: string; readonly retry_after_ms?: number }
  /** One of the tool's declared permanent failures. */
  | { readonly kind: "terminal"; readonly failure: string; readonly message?: string }
  /** The effect happens and the answer never arrives: outcome unknown at the gate's timeout. */
  | { readonly kind: "timeout" }
  /** The approval the gate asks for stays undecided (`pending`) or is rejected. */
  | { readonly kind: "approval_required"; readonly decision: "pending" | "reject" };

/** How the arguments of a call are matched. */
export type ArgMatcher =
  | { readonly exact: JsonObject }
  | { readonly subset: JsonObject }
  | { readonly schema: JsonObject }
  | { readonly predicate: string };

export interface CallExpectation {
  readonly tool: string;
  /** Without it, any arguments match. */
  readonly args?: ArgMatcher;
}

export const abstentionReasons = ["answer_from_context", "clarify", "forbidden", "unavailable", "no_action"] as const;
export type AbstentionReason = (typeof abstentionReasons)[number];

export type Expectation =
  | { readonly call: CallExpectation }
  | { readonly no_call: { readonly why: AbstentionReason; readonly mentions?: readonly string[] } };

export const reactionClasses = ["retry_same_operation", "stop_and_surface", "reconcile", "switch_call", "wait_for_approval"] as const;
export type ReactionClass = (typeof reactionClasses)[number];

/**
 * The reaction the agent owes the failure response. `mentions` are phrases the final
 * answer must contain (case-insensitive); `{approval_id}`, `{failure}` and `{reason}`
 * stand for the values of the failure the agent received.
 */
export type Reaction =
  | { readonly class: "retry_same_operation"; readonly max_attempts?: number }
  | { readonly class: "stop_and_surface"; readonly mentions?: readonly string[] }
  | { readonly class: "reconcile"; readonly read?: string; readonly mentions?: readonly string[] }
  | { readonly class: "switch_call"; readonly to: CallExpectation }
  | { readonly class: "wait_for_approval"; readonly mentions?: readonly string[] };

export interface Scenario {
  readonly id: string;
  readonly title: string;
  readonly intent: { readonly message: string; readonly context?: JsonObject };
  /** Tools offered to the agent; default: every tool of the manifest. */
  readonly tools: readonly string[] | null;
  /** Initial state of the surface (the escrow surface: accounts and reservations). */
  readonly state: JsonObject | null;
  readonly expect: Expectation;
  /** Per tool, the scripted responses in order; past the end the surface answers normally. */
  readonly responses: Readonly<Record<string, readonly ResponseSpec[]>>;
  /** Required when a response is not `normal`. */
  readonly reaction: Reaction | null;
  /** The failure class this scenario exercises: the kind of its first non-normal response. */
  readonly failure_class: FailureClass | null;
  readonly patience_ms: number;
  readonly max_steps: number;
  /** Where the scenario starts, for messages about it. */
  readonly location: SourceLocation;
}

export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

export interface Suite {
  readonly file: string;
  readonly name: string;
  readonly description: string;
  /** Which surface answers the calls (`escrow`: the shipped example ledger). */
  readonly surface: string;
  /** Every tool's timeout for this suite (scaled down so a suite runs in seconds); null keeps tools.yaml's. */
  readonly timeout_ms: number | null;
  readonly scenarios: readonly Scenario[];
}
