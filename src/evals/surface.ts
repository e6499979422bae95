/**
 * The scripted surface: a project's base handlers wrapped, per scenario, so that
 * each tool answers with the scripted response kinds in order (the adversarial
 * fixtures of `toolgate/testing` for slow, partial, silent, stale and timeout).
 * It also records every effect the base handlers applied, for the safety counts.
 */
import type { HandlerResult, InvokeContext } from "../generated-runtime.js";
import type { JsonObject } from "../manifest.js";
import type { LooseHandler, LooseReconciler } from "../runtime/types.js";
import { lostResponse, partialSuccess, silentFailure, slowSuccess, staleSuccess } from "../testing/adversarial.js";
import type { ResponseKind, ResponseSpec } from "./suite-types.js";

/** One effect a base handler applied, as the downstream system saw it. */
export interface SurfaceEffect {
  readonly tool: string;
  readonly operation_id: string | null;
  readonly args: JsonObject;
}

/** A fresh instance of a project's tool backend for one scenario. */
export interface SurfaceInstance {
  readonly handlers: Readonly<Record<string, LooseHandler>>;
  readonly reconcilers: Readonly<Record<string, LooseReconciler>>;
  /** Effects applied so far, in order. */
  effects(): readonly SurfaceEffect[];
}

/** Builds a surface from the scenario's `state` (its own format per surface); throws SurfaceStateError when it is invalid. */
export type SurfaceFactory = (state: JsonObject | null) => SurfaceInstance;

export class SurfaceStateError extends Error {
  override name = "SurfaceStateError";
}

/**
 * A surface over a project's own handlers: an effect is recorded for every write
 * (non-read tool) whose handler answered ok. The handlers keep whatever state they
 * hold across scenarios; a factory that builds them fresh gives each scenario its own.
 */
export function handlerSurface(
  handlers: { readonly [tool: string]: (args: never, ctx: InvokeContext) => Promise<HandlerResult<unknown, string>> },
  manifest: { readonly tools: Readonly<Record<string, { readonly effect: string }>> },
  reconcilers: Readonly<Record<string, LooseReconciler>> = {},
): SurfaceInstance {
  const effects: SurfaceEffect[] = [];
  const wrapped: Record<string, LooseHandler> = {};
  for (const [tool, handler] of Object.entries(handlers)) {
    const loose = handler as unknown as LooseHandler;
    wrapped[tool] = async (args, ctx) => {
      const result = await loose(args, ctx);
      if (result.ok && manifest.tools[tool]?.effect !== "read") effects.push({ tool, operation_id: ctx.operation_id, args });
      return result;
    };
  }
  return { handlers: wrapped, reconcilers, effects: () => effects };
}

/** Reports each scripted response as the surface uses it. */
export type ResponseListener = (tool: string, kind: ResponseKind) => void;

export interface ScriptedSurface {
  readonly handlers: Readonly<Record<string, LooseHandler>>;
  /** The next `approval_required` decision scripted for `tool`, consumed; null: the host approves. */
  nextApproval(tool: string): "pending" | "reject" | null;
}

/**
 * Wraps `base` so that tool T's i-th handler invocation answers with the i-th
 * non-approval response scripted for T (normal past the end); `approval_required`
 * entries are consumed separately, by the approval requests the gate makes.
 */
export function scriptSurface(base: SurfaceInstance, responses: Readonly<Record<string, readonly ResponseSpec[]>>, onResponse: ResponseListener): ScriptedSurface {
  const invocations = new Map<string, ResponseSpec[]>();
  const approvals = new Map<string, ("pending" | "reject")[]>();
  for (const [tool, list] of Object.entries(responses)) {
    invocations.set(tool, list.filter((r) => r.kind !== "approval_required"));
    approvals.set(tool, list.flatMap((r) => (r.kind === "approval_required" ? [r.decision] : [])));
  }
  const handlers: Record<string, LooseHandler> = {};
  for (const [tool, handler] of Object.entries(base.handlers)) {
    handlers[tool] = (args, ctx) => {
      const spec = invocations.get(tool)?.shift() ?? { kind: "normal" };
      onResponse(tool, spec.kind);
      return respond(spec, handler)(args, ctx);
    };
  }
  return {
    handlers,
    nextApproval: (tool) => {
      onResponseIfScripted(approvals, tool, onResponse);
      return approvals.get(tool)?.shift() ?? null;
    },
  };
}

function onResponseIfScripted(approvals: Map<string, unknown[]>, tool: string, onResponse: ResponseListener): void {
  if ((approvals.get(tool)?.length ?? 0) > 0) onResponse(tool, "approval_required");
}

type Result = HandlerResult<unknown, string>;

function respond(spec: ResponseSpec, handler: LooseHandler): (args: JsonObject, ctx: InvokeContext) => Promise<Result> {
  switch (spec.kind) {
    case "normal":
    case "approval_required":
      return handler;
    case "slow":
      return slowSuccess(handler, spec.delay_ms);
    case "partial":
      return partialSuccess(handler, () => spec.failed_items);
    case "silent":
      return silentFailure(() => spec.claimed);
    case "stale":
      return staleSuccess(handler, async () => spec.observed_state);
    case "timeout":
      return lostResponse(handler);
    case "retryable":
      return async () => ({ ok: false, failure: spec.failure });
    case "terminal":
      return async () => (spec.message === undefined ? { ok: false, failure: spec.failure } : { ok: false, failure: spec.failure, message: spec.message });
  }
}
