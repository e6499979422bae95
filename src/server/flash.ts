/**
 * The warnings of a decision (`policy_code_not_current`, ...) carried across the
 * redirect that follows it: a short-lived HttpOnly cookie, scoped to the approval's
 * page and signed with HMAC(secret, approval, approver), read once by that page. A
 * cookie another page, approver or site made is ignored, so nobody can make the inbox
 * show warnings it did not give.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const flashCookie = "toolgate_flash";
/** Seconds the cookie lives: the redirect follows at once. */
export const FLASH_MAX_AGE = 60;
const MAX_WARNINGS = 8;
const MAX_WARNING_CHARS = 600;

const mac = (secret: string, approvalId: string, subject: string, payload: string): string =>
  createHmac("sha256", secret).update(`flash\u0000${approvalId}\u0000${subject}\u0000${payload}`).digest("base64url");

/** The cookie value for these warnings (each cut to a length a cookie can hold). */
export function encodeFlash(secret: string, approvalId: string, subject: string, warnings: readonly string[]): string {
  const kept = warnings.slice(0, MAX_WARNINGS).map((w) => (w.length > MAX_WARNING_CHARS ? `${w.slice(0, MAX_WARNING_CHARS - 1)}…` : w));
  const payload = Buffer.from(JSON.stringify(kept)).toString("base64url");
  return `${payload}.${mac(secret, approvalId, subject, payload)}`;
}

/** The warnings in a cookie value made by encodeFlash for this approval and approver, else null. */
export function decodeFlash(secret: string, approvalId: string, subject: string, value: string | null): string[] | null {
  if (value === null) return null;
  const dot = value.indexOf(".");
  if (dot < 0) return null;
  const payload = value.slice(0, dot);
  const want = Buffer.from(mac(secret, approvalId, subject, payload));
  const got = Buffer.from(value.slice(dot + 1));
  if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
  try {
    const warnings: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    return Array.isArray(warnings) && warnings.every((w) => typeof w === "string") ? warnings : null;
  } catch {
    return null;
  }
}
