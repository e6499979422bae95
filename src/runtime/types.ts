/** The runtime's public option and request types, and the dependencies the phases share. */
import type { DecisionLabelOptions } from "./decision-log.js";
import type { LooseContextResolvers } from "./context.js";
import type { HandlerResult, InvokeContext, StandaloneValidator, TrustedContext } from "../generated-runtime.js";
import type { JsonObject, Manifest, ToolManifestEntry } from "../manifest.js";
import type { PolicyEngine } from "../policy/engine.js";
import type { Store } from "../store/store.js";
import type { OnPendingApproval } from "../approvals/pending.js";
import type { Envelope } from "./envelope.js";
import type { Telemetry, TelemetryOptions } from "./telemetry.js";
import type { Clock } from "../clock.js";

export type { Clock } from "../clock.js";
export { systemClock } from "../clock.js";

/** Any strictly typed handler is assignable here (its argument type is contravariant). */
export type AnyHandler = (args: never, ctx: InvokeContext) => Promise<HandlerResult<unknown, string>>;
export type AnyReconciler = (
  args: never,
  ctx: InvokeContext,
) => Promise<HandlerResult<unknown, string> | { readonly ok: "not_applied" }>;

/** Accepts a generated `ToolHandlers` interface (no index signature needed). */
export type HandlerMap<H> = { readonly [K in keyof H]: AnyHandler };
export type ReconcilerMap<R> = { readonly [K in keyof R]?: AnyReconciler };

export interface ToolValidators {
  readonly input: StandaloneValidator;
  readonly output: StandaloneValidator;
  /** One per declared context fact (generated from tools.yaml `context:`). */
  readonly context?: Readonly<Record<string, StandaloneValidator>>;
}

/** Accepts a generated `ToolContextResolvers` interface: per tool, one resolver per declared fact. */
export type ContextResolverMap<C> = { readonly [K in keyof C]: { readonly [F in keyof C[K]]: (req: never) => Promise<unknown> } };

export interface RuntimeOptions<
  H extends HandlerMap<H>,
  R extends ReconcilerMap<R> = Record<never, never>,
  C extends ContextResolverMap<C> = Record<never, never>,
> {
  readonly manifest: Manifest;
  readonly validators: { readonly [tool: string]: ToolValidators };
  readonly handlers: H;
  /** Optional per-tool readers of the observed state after an unknown outcome (timeout, crash). */
  readonly reconcilers?: R;
  readonly policy: PolicyEngine;
  readonly store: Store;
  readonly clock?: Clock;
  /** Cap on a call's arguments in bytes of canonical JSON, unless the tool sets max_args_bytes. Default 65536. */
  readonly maxArgsBytes?: number;
  /** Lease length beyond the tool's timeout, so a live handler is never taken over. Default 5000. */
  readonly leaseMarginMs?: number;
  /** Identifies this runtime instance as a lease owner. Default: random. */
  readonly ownerId?: string;
  /** How often a caller that finds the operation claimed elsewhere polls for its outcome. Default 10. */
  readonly pollIntervalMs?: number;
  /** How long such a caller waits before answering retryable_failure (retry_after_ms = rest of the lease). Default 2000. */
  readonly inProgressWaitMs?: number;
  /** Receives errors that must not change an answer (a failed decision-log write). Default: stderr. */
  readonly onError?: (err: unknown) => void;
  /** Called once for each new pending approval, after its call is stored (e.g. a webhook). */
  readonly onPendingApproval?: OnPendingApproval;
  /** A candidate policy evaluated next to the enforced one on every call; logged, never enforced. */
  readonly shadowPolicy?: PolicyEngine;
  /** How long decision-log entries are kept before `store.purgeExpired` deletes them. Default 30 days. */
  readonly decisionLogRetentionMs?: number;
  /** OpenTelemetry tracer and meter; default the global ones (no-ops unless the host installs an SDK). */
  readonly telemetry?: TelemetryOptions;
  /**
   * OPA's decision-log `labels` of every entry: `service` (default: ./package.json's name, else
   * "toolgate"), `instance` (the entries' `id`; default: a random UUID) and string labels of the
   * host's. Invalid labels throw DecisionLabelError.
   */
  readonly labels?: DecisionLabelOptions;
  /**
   * Resolvers of the tools' declared context facts (generated `ToolContextResolvers`): run right
   * before every authorization; their values are input.context for the policy and ctx.context for the handler.
   */
  readonly context?: C;
  /**
   * Steps one policy evaluation may take (loop iterations plus function calls), for the
   * enforced and the shadow policy; more is a denial `policy_budget_exceeded`. A positive
   * integer or Infinity. Default: the engine's own (DEFAULT_POLICY_BUDGET, 10^6).
   */
  readonly policyBudget?: number;
}

/** Per-call options from the host (not from the model). */
export interface CallOptions {
  /** W3C trace context of the caller (e.g. MCP `_meta.traceparent`): the call's span becomes its child. */
  readonly traceparent?: string;
}

/** A model-proposed call: every field is untrusted. */
export interface CallRequest {
  readonly tool: string;
  readonly args: unknown;
  readonly operation_id?: string;
  readonly approval_id?: string;
}

/** Loose views of the handler maps used inside the runtime after the arguments are validated. */
export type LooseHandler = (args: JsonObject, ctx: InvokeContext) => Promise<HandlerResult<unknown, string>>;
export type LooseReconciler = (
  args: JsonObject,
  ctx: InvokeContext,
) => Promise<HandlerResult<unknown, string> | { readonly ok: "not_applied" }>;

/** What an interrupt aborts: a running handler's signal. */
export interface Abortable {
  abort(reason: unknown): void;
}

export interface RuntimeDeps {
  readonly manifest: Manifest;
  readonly validators: { readonly [tool: string]: ToolValidators };
  readonly handlers: Readonly<Record<string, LooseHandler>>;
  readonly reconcilers: Readonly<Record<string, LooseReconciler | undefined>>;
  readonly policy: PolicyEngine;
  readonly store: Store;
  readonly clock: Clock;
  readonly leaseMarginMs: number;
  /** Absent: the 64 KiB default (deps built outside createRuntime need not know it). */
  readonly maxArgsBytes?: number;
  readonly ownerId: string;
  readonly pollIntervalMs: number;
  readonly inProgressWaitMs: number;
  /** Aborts handlers in flight when their run is interrupted (in this process). */
  readonly inFlight: Map<string, Set<Abortable>>;
  /**
   * Calls of one (tenant, operation_id) running in this process: later callers join instead of
   * polling. `done` answers the leader's envelope, or null when the leader gave its fresh claim
   * back without running (held-claim.ts): then a joined caller claims on its own.
   */
  readonly flights: Map<string, { readonly tool: string; readonly fingerprint: string; readonly done: Promise<Envelope | null> }>;
  /** Turns of calls per limit key in this process (limit-lock.ts); absent: none taken. */
  readonly limitTurns?: Map<string, Promise<void>>;
  /** Where errors that must not change an answer go (a failed decision-log write, a late record). */
  readonly onError: (err: unknown) => void;
  /** Evaluated after the enforced policy on every call, for the decision log only. */
  readonly shadowPolicy: PolicyEngine | null;
  readonly telemetry: Telemetry;
  /** The host's context fact resolvers (see context.ts); absent when no tool declares context. */
  readonly contextResolvers?: LooseContextResolvers;
  /** Steps per policy evaluation (CreateRuntimeOptions.policyBudget); absent: the engine's default. */
  readonly policyBudget?: number;
}

/** The result of prepare: a validated call with its identity. */
export interface PreparedCall {
  readonly ctx: TrustedContext;
  readonly tool: ToolManifestEntry;
  readonly args: JsonObject;
  readonly fingerprint: string;
  /** What an approval binds: the hash of tenant, tool and the complete arguments (`argsHash`). */
  readonly args_hash: string;
  /**
   * The fingerprint the operation record carries (`operationFingerprint`): the call's bound to
   * the user, so another principal's call of the same operation id is a conflict, never a replay.
   */
  readonly operation_fingerprint: string;
  readonly operation_id: string | null;
  readonly approval_id: string | null;
}
