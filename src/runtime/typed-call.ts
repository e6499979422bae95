/**
 * Typed calls over the runtime: what the generated client (`generated/gate.ts`, `createGate`)
 * builds one per tool. The arguments are checked by the compiler against the tool's generated
 * input type, and a success envelope's `value` has the tool's output type: the runtime validates
 * every handler's value against the output schema before answering success, and a replay answers
 * the value recorded after that check. Everything still goes through `runtime.call`.
 */
import type { TrustedContext } from "../generated-runtime.js";
import type { Envelope, RetryableFailureEnvelope, SuccessEnvelope, TerminalFailureEnvelope } from "./envelope.js";
import type { CallOptions, CallRequest } from "./types.js";

/** A success envelope whose value has the tool's output type. */
export type ToolSuccess<Output> = Omit<SuccessEnvelope, "value"> & { readonly value: Output };

/** The envelope of one typed call: the three outcomes, success typed by the tool. */
export type ToolEnvelope<Output> = ToolSuccess<Output> | RetryableFailureEnvelope | TerminalFailureEnvelope;

/** The host's per-call options: the operation id and approval id the model proposed, and trace context. */
export interface ToolCallOptions extends CallOptions {
  readonly operation_id?: string;
  readonly approval_id?: string;
}

/** What a typed client needs of the runtime (a `Runtime` from createRuntime). */
export interface GateRuntime {
  call(ctx: TrustedContext, request: CallRequest, options?: CallOptions): Promise<Envelope>;
}

/** One tool's typed call. */
export type TypedToolCall<Input, Output> = (ctx: TrustedContext, args: Input, options?: ToolCallOptions) => Promise<ToolEnvelope<Output>>;

/** The typed call of `tool` through `runtime.call`. */
export function typedToolCall<Input, Output>(runtime: GateRuntime, tool: string): TypedToolCall<Input, Output> {
  return async (ctx, args, options = {}) => {
    const { operation_id, approval_id, ...callOptions } = options;
    const request: CallRequest = {
      tool,
      args,
      ...(operation_id === undefined ? {} : { operation_id }),
      ...(approval_id === undefined ? {} : { approval_id }),
    };
    // The success value passed the tool's output validator (or is the replay of one that did).
    return (await runtime.call(ctx, request, callOptions)) as ToolEnvelope<Output>;
  };
}
