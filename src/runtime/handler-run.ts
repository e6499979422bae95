/**
 * Runs a handler (or reconciler) with a timeout and an AbortSignal. The signal is
 * aborted on timeout and when the run is interrupted in this process; the work keeps
 * its promise either way, because a result that arrives late is still a fact that
 * must be recorded once. Timeouts run on the shared deadline queue (`deadlines.ts`),
 * not on a timer per call.
 */
import type { InvokeContext, TrustedContext } from "../generated-runtime.js";
import type { JsonObject } from "../manifest.js";
import { handlerDeadlines } from "./deadlines.js";
import type { Deadline, Expiring } from "./deadlines.js";
import type { Abortable, RuntimeDeps } from "./types.js";

export type Settled = { readonly kind: "returned"; readonly result: unknown } | { readonly kind: "threw"; readonly error: unknown };

export type RunResult =
  | (Settled & { readonly interrupted: boolean })
  /** The timeout fired first; `late` settles when (if ever) the handler finishes. */
  | { readonly kind: "timeout"; readonly late: Promise<Settled> };

export class InterruptedError extends Error {
  override name = "InterruptedError";
}
export const isInterruptedError = (e: unknown): e is InterruptedError =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "InterruptedError";

export class HandlerTimeoutError extends Error {
  override name = "HandlerTimeoutError";
}

export const runKey = (tenant: string, runId: string): string => `${tenant}\u0000${runId}`;

/** Which invocation the handler runs as (with the trusted context, its `InvokeContext`). */
export interface Invocation {
  readonly tool: string;
  readonly operation_id: string | null;
  readonly fence_token: number | null;
}

/** What runs: a handler or a reconciler, given the validated arguments. */
export type RunFn = (args: JsonObject, ctx: InvokeContext) => Promise<unknown>;

/**
 * The handler's ctx: the trusted context's own fields (as a spread copies them), the
 * invocation's, and `signal` as an own enumerable property (a copy `{ ...ctx }` keeps it) whose
 * AbortController is made only when it is read. Every context shares one getter, so they share
 * one shape.
 */
class HandlerContext {
  readonly #run: HandlerRun;
  static readonly #signal: PropertyDescriptor = {
    get(this: HandlerContext): AbortSignal {
      return this.#run.signal;
    },
    enumerable: true,
  };

  constructor(ctx: TrustedContext, inv: Invocation, run: HandlerRun) {
    this.#run = run;
    Object.assign(this, ctx, inv);
    Object.defineProperty(this, "signal", HandlerContext.#signal);
  }
}

// The executor runs synchronously inside the Promise constructor: one shared function instead of a closure per run.
let captured: ((r: RunResult) => void) | null = null;
const captureResolve = (resolve: (r: RunResult) => void): void => {
  captured = resolve;
};

/**
 * One run of a handler: the abortable registered for interrupts, the deadline's target, and
 * the promise that settles with whichever comes first, the work or the deadline.
 */
class HandlerRun implements Abortable, Expiring {
  #controller: AbortController | null = null;
  #aborted = false;
  #reason: unknown = undefined;
  #settled = false;
  readonly #resolve: (r: RunResult) => void;
  #deadline: Deadline | null = null;
  #work: Promise<Settled> | null = null;
  readonly result: Promise<RunResult>;

  constructor(
    readonly deps: RuntimeDeps,
    readonly key: string,
    readonly set: Set<Abortable>,
    readonly tool: string,
    readonly timeoutMs: number,
  ) {
    this.result = new Promise<RunResult>(captureResolve);
    this.#resolve = captured!;
    captured = null;
  }

  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }

  /** The deadline starts before the handler does (its synchronous part counts against it). */
  arm(): void {
    this.#deadline = handlerDeadlines.add(this.timeoutMs, this);
  }

  /** Starts the work (the deadline only fires from a timer, so the work is known by then). */
  start(fn: RunFn, args: JsonObject, ctx: InvokeContext): void {
    this.#work = this.#watch(fn, args, ctx);
  }

  /** The work's outcome (a synchronous throw is a thrown answer too), handed on as soon as it is known. */
  async #watch(fn: RunFn, args: JsonObject, ctx: InvokeContext): Promise<Settled> {
    let settled: Settled;
    try {
      settled = { kind: "returned", result: await fn(args, ctx) };
    } catch (error) {
      settled = { kind: "threw", error };
    }
    this.#first(settled);
    return settled;
  }

  unregister(): void {
    const set = this.set;
    set.delete(this);
    if (set.size === 0 && this.deps.inFlight.get(this.key) === set) this.deps.inFlight.delete(this.key);
  }

  /** The deadline passed first. */
  expire(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.abort(new HandlerTimeoutError(`${this.tool} did not answer within ${this.timeoutMs} ms`));
    // Still in flight (an interrupt aborts it too) until it settles late.
    this.#resolve({ kind: "timeout", late: this.#work! });
  }

  #first(first: Settled): void {
    if (this.#settled) {
      this.unregister(); // the late answer of a timed-out run
      return;
    }
    this.#settled = true;
    this.#deadline?.cancel();
    this.unregister();
    const interrupted = this.#aborted && isInterruptedError(this.#reason);
    this.#resolve(first.kind === "returned" ? { kind: "returned", result: first.result, interrupted } : { kind: "threw", error: first.error, interrupted });
  }
}

/** Runs `fn(args, ctx)` under the tool's timeout, abortable by an interrupt of the run. */
export function runHandler(deps: RuntimeDeps, ctx: TrustedContext, inv: Invocation, timeoutMs: number, fn: RunFn, args: JsonObject): Promise<RunResult> {
  const key = runKey(ctx.tenant, ctx.run_id);
  let set = deps.inFlight.get(key);
  if (set === undefined) {
    set = new Set<Abortable>();
    deps.inFlight.set(key, set);
  }
  const run = new HandlerRun(deps, key, set, inv.tool, timeoutMs);
  set.add(run);
  const handlerCtx = new HandlerContext(ctx, inv, run) as unknown as InvokeContext;
  run.arm();
  run.start(fn, args, handlerCtx);
  return run.result;
}

/** Aborts every handler of the run in flight in this process. */
export function abortRun(deps: RuntimeDeps, tenant: string, runId: string, reason: string): number {
  const set = deps.inFlight.get(runKey(tenant, runId));
  if (set === undefined) return 0;
  for (const c of set) c.abort(new InterruptedError(reason));
  return set.size;
}
