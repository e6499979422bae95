/**
 * DNS-rebinding protection for the HTTP endpoint: a request whose Host (or Origin, when a
 * browser sends one) names a host outside the allowed set is refused before anything else.
 */
import type { IncomingMessage } from "node:http";

export const localHosts: readonly string[] = ["localhost", "127.0.0.1", "[::1]", "::1"];

const hostnameOf = (value: string): string | null => {
  try {
    return new URL(value.includes("://") ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return null;
  }
};

/** null when the request may proceed, else why it may not. */
export function hostProblem(req: IncomingMessage, allowed: readonly string[]): string | null {
  const allow = new Set(allowed.map((h) => h.toLowerCase()));
  const host = hostnameOf(req.headers.host ?? "");
  if (host === null || !allow.has(host)) return `host ${JSON.stringify(req.headers.host ?? "")} is not allowed (allowed: ${allowed.join(", ")})`;
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== "null") {
    const o = hostnameOf(origin);
    if (o === null || !allow.has(o)) return `origin ${JSON.stringify(origin)} is not allowed (allowed: ${allowed.join(", ")})`;
  }
  return null;
}
