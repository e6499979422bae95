/**
 * Runs a handler (or reconciler) with a timeout and an AbortSignal. The signal is
 * aborted on timeout and when the run is interrupted in this process; the work keeps
 * its promise either way, because a result that arrives late is still a fact that
 * must be recorded once.
 */
import type { InvokeContext, TrustedContext } from "../generated-runtime.js";
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

/**
 * The handler's AbortSignal, made only when the handler reads `ctx.signal`: a handler that
 * never looks at it cannot observe an abort, so most calls make no controller at all.
 */
class LazySignal implements Abortable {
  #controller: AbortController | null = null;
  #aborted = false;
  #reason: unknown = undefined;

  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

export function runHandler(
  deps: RuntimeDeps,
  base: TrustedContext & Omit<InvokeContext, keyof TrustedContext | "signal">,
  timeoutMs: number,
  fn: (ctx: InvokeContext) => Promise<unknown>,
): Promise<RunResult> {
  const lazy = new LazySignal();
  const key = runKey(base.tenant, base.run_id);
  const set = deps.inFlight.get(key) ?? new Set<Abortable>();
  set.add(lazy);
  deps.inFlight.set(key, set);
  const unregister = (): void => {
    set.delete(lazy);
    if (set.size === 0 && deps.inFlight.get(key) === set) deps.inFlight.delete(key);
  };
  const ctx = Object.defineProperty({ ...base }, "signal", { get: () => lazy.signal, enumerable: true }) as InvokeContext;
  const work: Promise<Settled> = Promise.resolve()
    .then(() => fn(ctx))
    .then(
      (result): Settled => ({ kind: "returned", result }),
      (error: unknown): Settled => ({ kind: "threw", error }),
    );
  // One promise settled by whichever comes first, the work or the timer (no race of two).
  return new Promise<RunResult>((resolve) => {
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      lazy.abort(new HandlerTimeoutError(`${base.tool} did not answer within ${timeoutMs} ms`));
      void work.finally(unregister);
      resolve({ kind: "timeout", late: work });
    }, timeoutMs);
    void work.then((first) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unregister();
      resolve({ ...first, interrupted: lazy.aborted && isInterruptedError(lazy.reason) });
    });
  });
}

/** Aborts every handler of the run in flight in this process. */
export function abortRun(deps: RuntimeDeps, tenant: string, runId: string, reason: string): number {
  const set = deps.inFlight.get(runKey(tenant, runId));
  if (set === undefined) return 0;
  for (const c of set) c.abort(new InterruptedError(reason));
  return set.size;
}
