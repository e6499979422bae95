/** A policy module or its files cannot be loaded: the message names the file and what to do. */
export class PolicyLoadError extends Error {
  override name = "PolicyLoadError";
}
export const isPolicyLoadError = (e: unknown): e is PolicyLoadError =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "PolicyLoadError";
