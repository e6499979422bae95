/**
 * Adversarial tool responses as reusable fixtures: wrappers that turn any handler
 * into the four answers production systems actually meet. Each one is reproducible
 * in a test, and the runtime must classify it correctly:
 *
 * - slowSuccess: the effect happens, the answer comes late (within or past the timeout);
 * - lostResponse: the effect happens, the answer never comes (a timeout with the effect done);
 * - partialSuccess: a batch where some items failed, reported as transport success;
 * - silentFailure: claims success, but the effect never happened;
 * - staleSuccess: the effect happens, but the reported state is an old version.
 */
import type { HandlerResult, InvokeContext, ToolHandler } from "../generated-runtime.js";
import type { JsonObject } from "../manifest.js";

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the handler (the effect), then holds the answer back for `delayMs`, ignoring the abort signal. */
export function slowSuccess<I, O, F extends string>(handler: ToolHandler<I, O, F>, delayMs: number): ToolHandler<I, O, F> {
  return async (args, ctx) => {
    const result = await handler(args, ctx);
    await delay(delayMs);
    return result;
  };
}

/** Runs the handler (the effect), then never answers; the returned promise rejects when the call is aborted. */
export function lostResponse<I, O, F extends string>(handler: ToolHandler<I, O, F>): ToolHandler<I, O, F> {
  return async (args, ctx) => {
    await handler(args, ctx);
    return new Promise<HandlerResult<O, F>>((_, reject) => {
      const stop = (): void => reject(new Error("response lost"));
      if (ctx.signal.aborted) stop();
      else ctx.signal.addEventListener("abort", stop, { once: true });
    });
  };
}

/** Runs the handler, then reports `failedItems(args)` as items that failed while still saying ok. */
export function partialSuccess<I, O, F extends string>(
  handler: ToolHandler<I, O, F>,
  failedItems: (args: I) => readonly JsonObject[],
): ToolHandler<I, O, F> {
  return async (args, ctx) => {
    const result = await handler(args, ctx);
    if (!result.ok) return result;
    return { ...result, failed_items: failedItems(args) };
  };
}

/**
 * Claims success without calling the handler: no effect, no resource. `claimed` is
 * the value it pretends to have produced (it may even match the output schema).
 */
export function silentFailure<I, O, F extends string>(claimed: (args: I, ctx: InvokeContext) => O): ToolHandler<I, O, F> {
  return async (args, ctx) => ({ ok: true, value: claimed(args, ctx) });
}

/**
 * Runs the handler (the effect) but reports the resource's state as read *before*
 * the call: `readBefore` returns that old observed state.
 */
export function staleSuccess<I, O, F extends string>(
  handler: ToolHandler<I, O, F>,
  readBefore: (args: I, ctx: InvokeContext) => Promise<JsonObject>,
): ToolHandler<I, O, F> {
  return async (args, ctx) => {
    const before = await readBefore(args, ctx);
    const result = await handler(args, ctx);
    if (!result.ok) return result;
    return { ...result, observed_state: before };
  };
}

/** Counts calls per operation id and fence token, to prove effects happened once. */
export function countCalls<I, O, F extends string>(handler: ToolHandler<I, O, F>): ToolHandler<I, O, F> & { readonly calls: InvokeContext[] } {
  const calls: InvokeContext[] = [];
  const wrapped = async (args: I, ctx: InvokeContext): Promise<HandlerResult<O, F>> => {
    calls.push(ctx);
    return handler(args, ctx);
  };
  return Object.assign(wrapped, { calls });
}
