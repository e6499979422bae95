/**
 * The one surface that files in generated/ import. Keep it narrow and stable:
 * changing it is a breaking change for every project's generated code.
 */
export type {
  Effect,
  FailureSpec,
  JsonObject,
  JsonValue,
  Manifest,
  PostconditionSpec,
  RetrySpec,
  ToolManifestEntry,
} from "./manifest.js";
import type { JsonObject } from "./manifest.js";

/** The typed calls generated/gate.ts builds over the runtime. */
export { typedToolCall, type GateRuntime, type ToolCallOptions, type ToolEnvelope, type ToolSuccess, type TypedToolCall } from "./runtime/typed-call.js";

/** tools.yaml `policy.builtins`: what generated/policy-builtins.ts builds and the policy engine takes. */
export { NO_CUSTOM_BUILTINS, toCustomBuiltins, type CustomBuiltins } from "./policy/builtins/custom.js";

/** Trusted identity and run information, built by the host, never from model arguments. */
export interface TrustedContext {
  readonly tenant: string;
  readonly user: string;
  readonly roles: readonly string[];
  readonly run_id: string;
}

/** What a handler receives besides its arguments. */
export interface InvokeContext extends TrustedContext {
  readonly tool: string;
  /** Present for every write; downstream systems deduplicate on it. */
  readonly operation_id: string | null;
  /** Increases on every lease takeover; a downstream system can reject writes from older tokens. */
  readonly fence_token: number | null;
  /** Aborted when the call times out or the run is interrupted. */
  readonly signal: AbortSignal;
  /** The tool's declared context facts as resolved for this call (tools.yaml `context:`); absent when it declares none. */
  readonly context?: JsonObject;
}

/** What a context resolver is told about the call it resolves a fact for (all trusted or validated). */
export interface ContextRequest<Input> extends TrustedContext {
  readonly tool: string;
  /** The validated arguments. */
  readonly args: Input;
  readonly operation_id: string | null;
}

/**
 * Supplies one declared fact, fresh, right before every decision. A throw, or a value that
 * fails the fact's schema, fails the call closed (retryable_failure, context_unavailable).
 */
export type ContextResolver<Input, Fact> = (req: ContextRequest<Input>) => Promise<Fact>;

/** A handler's answer: success with its value, or one of the tool's declared failures. */
export type HandlerResult<Output, Failure extends string> =
  | {
      readonly ok: true;
      readonly value: Output;
      readonly resource_id?: string;
      readonly observed_state?: JsonObject;
      /** For batch tools: items that failed. A non-empty list is never reported as plain success. */
      readonly failed_items?: readonly JsonObject[];
    }
  | {
      readonly ok: false;
      readonly failure: Failure;
      readonly message?: string;
      readonly observed_state?: JsonObject;
    };

/** A tool handler: strictly typed arguments in, typed result out. */
export type ToolHandler<Input, Output, Failure extends string> = (
  args: Input,
  ctx: InvokeContext,
) => Promise<HandlerResult<Output, Failure>>;

/** Reads the observed state of an operation whose outcome is unknown (after a timeout or a crash). */
export type ToolReconciler<Input, Output, Failure extends string> = (
  args: Input,
  ctx: InvokeContext,
) => Promise<HandlerResult<Output, Failure> | { readonly ok: "not_applied" }>;

/** A generated standalone validator: ajv's calling convention, errors on the function. */
export interface StandaloneValidator {
  (data: unknown): boolean;
  errors?: ReadonlyArray<{ instancePath: string; message?: string; keyword: string; params: Record<string, unknown> }> | null;
}
