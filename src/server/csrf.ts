/**
 * CSRF protection for state-changing requests made with ambient credentials (the
 * session cookie): a random per-browser cookie plus a form field or header holding
 * HMAC(secret, cookie, approver). A cross-site page can neither read the cookie nor
 * compute the HMAC. The only alternative to the token is an Authorization header that
 * authenticates the same approver on its own (a cross-site form cannot set that header;
 * any other Authorization value proves nothing). Cross-site Sec-Fetch-Site / foreign
 * Origin headers are refused outright. Sign-in has no approver to bind the token to, so a
 * planted CSRF cookie would let another site sign the browser in as the attacker: it also
 * needs the browser's own word that the form is same-origin (`sameOriginAsserted`).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const csrfCookie = "toolgate_csrf";
export const csrfField = "_csrf";
export const csrfHeader = "x-csrf-token";

export const newCsrfCookieValue = (): string => randomBytes(32).toString("base64url");

/** The token a form or script must send back for this browser and approver ("" before login). */
export function csrfToken(secret: string, cookieValue: string, subject: string): string {
  return createHmac("sha256", secret).update(`csrf\u0000${cookieValue}\u0000${subject}`).digest("base64url");
}

export function csrfTokenValid(secret: string, cookieValue: string | null, subject: string, sent: string | null): boolean {
  if (cookieValue === null || sent === null || cookieValue.length < 20) return false;
  const want = Buffer.from(csrfToken(secret, cookieValue, subject));
  const got = Buffer.from(sent);
  return want.length === got.length && timingSafeEqual(want, got);
}

/** True when the browser says the request comes from another site. */
export function crossSite(request: Request): boolean {
  // Sec-Fetch-Site is set by the browser and cannot be forged by a page; Origin is the fallback for older clients.
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) return site !== "same-origin" && site !== "none";
  const origin = request.headers.get("origin");
  if (origin === null || origin === "null") return origin === "null";
  try {
    return new URL(origin).host !== new URL(request.url).host;
  } catch {
    return true;
  }
}

/**
 * True only when the browser states the request is same-origin: `Sec-Fetch-Site:
 * same-origin`, or (browsers without Fetch Metadata) an Origin of this host. A request
 * that sends neither is not same-origin as far as we can tell.
 */
export function sameOriginAsserted(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) return site === "same-origin";
  const origin = request.headers.get("origin");
  if (origin === null || origin === "null") return false;
  try {
    return new URL(origin).host === new URL(request.url).host;
  } catch {
    return false;
  }
}
