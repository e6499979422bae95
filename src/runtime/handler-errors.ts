/**
 * What handler code throws to say how a failure should be treated, when tools.yaml cannot say
 * it by the error's `code` or `name`: `transient(err)` (nothing happened, the same call may
 * work later: retryable within the tool's retry budget) and `permanent(err)` (the same
 * arguments will not work: a terminal failure). Each wraps the original error as its `cause`
 * and keeps its message, which goes to the decision log, never to the model.
 * Enters: an error from handler code. Leaves: a marked error for the runtime to classify.
 */

export interface TransientOptions {
  /** How long the caller should wait before retrying. Default: the tool's retry backoff. */
  readonly retryAfterMs?: number;
}

const messageOf = (cause: unknown): string => (cause instanceof Error ? cause.message : typeof cause === "string" ? cause : String(cause));

/** A failure before any effect that may pass: the runtime answers retryable_failure while the tool's retry budget lasts. */
export class TransientError extends Error {
  override name = "TransientError";
  readonly retryAfterMs: number | undefined;
  constructor(message: string, options: TransientOptions & { readonly cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** A failure the same arguments will not get past: the runtime answers terminal_failure permanent_error. */
export class PermanentError extends Error {
  override name = "PermanentError";
  constructor(message: string, options: { readonly cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

export const isTransientError = (e: unknown): e is TransientError =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "TransientError";

export const isPermanentError = (e: unknown): e is PermanentError =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "PermanentError";

/** Marks `cause` transient (`throw transient(err)`): it keeps the message and becomes the `cause`. */
export function transient(cause: unknown, options: TransientOptions = {}): TransientError {
  return new TransientError(messageOf(cause), { ...options, cause });
}

/** Marks `cause` permanent (`throw permanent(err)`): it keeps the message and becomes the `cause`. */
export function permanent(cause: unknown): PermanentError {
  return new PermanentError(messageOf(cause), { cause });
}
