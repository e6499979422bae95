/**
 * runtime.compensate: runs the compensating call recorded in an operation's envelope as its own
 * gated call (prepare -> authorize -> invoke with its own, deterministic operation id), so the
 * policy decides it like any other write and a repeated compensate replays instead of undoing twice.
 * Enters: the trusted context and the original operation id. Leaves: the compensating call's envelope.
 */
import type { TrustedContext } from "../generated-runtime.js";
import type { JsonObject } from "../manifest.js";
import { terminal } from "./envelope.js";
import type { Envelope } from "./envelope.js";
import type { CallRequest, RuntimeDeps } from "./types.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export interface CompensateOptions {
  /** The approval of the compensating call, once given (it is gated like any other call). */
  readonly approval_id?: string;
}

export async function compensate(
  deps: RuntimeDeps,
  call: (ctx: TrustedContext, req: CallRequest) => Promise<Envelope>,
  ctx: TrustedContext,
  operationId: string,
  options: CompensateOptions = {},
): Promise<Envelope> {
  if (typeof operationId !== "string" || operationId.length === 0 || operationId.length > 200) {
    return terminal("invalid_arguments", "compensate needs the operation id of the call to undo", { problems: ["operation_id: a non-empty string of at most 200 characters"] });
  }
  const record = await deps.store.getOperation(ctx.tenant, operationId, deps.clock.now());
  const comp = record?.envelope?.["compensation"];
  if (record === null || !isObject(comp) || typeof comp["tool"] !== "string" || !isObject(comp["args"]) || typeof comp["operation_id"] !== "string") {
    return terminal("invalid_arguments", `operation ${operationId} has no recorded compensation in tenant ${ctx.tenant}`, { operation_id: operationId });
  }
  return call(ctx, {
    tool: comp["tool"],
    args: comp["args"] as JsonObject,
    operation_id: comp["operation_id"],
    ...(options.approval_id === undefined ? {} : { approval_id: options.approval_id }),
  });
}
