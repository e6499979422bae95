/**
 * The maximum lifetime of a signed token (approver tokens, MCP bearer tokens): a leaked
 * token must stop working within a bounded time, whatever `exp` its issuer wrote.
 */

/** 24 hours. */
export const DEFAULT_MAX_TOKEN_LIFETIME_SECONDS = 24 * 3600;

/** Clock difference between issuer and verifier that `iat` and the remaining lifetime may show. */
const SKEW_SECONDS = 60;

const hours = (s: number): string => (s % 3600 === 0 ? `${s / 3600}h` : `${s}s`);

/** Throws a RangeError unless `max` is a positive whole number of seconds. */
export function checkMaxLifetime(max: number): number {
  if (!Number.isSafeInteger(max) || max <= 0) throw new RangeError(`maximum token lifetime: must be a positive whole number of seconds, not ${max}`);
  return max;
}

/**
 * Why a token's lifetime is refused, or null when it is within `maxSeconds`: it needs `exp`;
 * `exp - iat` (when `iat` is present) and `exp - now` must not exceed the maximum, and `iat`
 * must not lie in the future.
 */
export function tokenLifetimeProblem(claims: { readonly exp?: unknown; readonly iat?: unknown }, nowSeconds: number, maxSeconds: number): string | null {
  const { exp, iat } = claims;
  if (typeof exp !== "number" || !Number.isFinite(exp)) return "the token has no exp claim: every token must expire";
  if (iat !== undefined) {
    if (typeof iat !== "number" || !Number.isFinite(iat)) return "claim iat must be a number (seconds since the epoch)";
    if (iat > nowSeconds + SKEW_SECONDS) return "the token's iat lies in the future";
    if (exp - iat > maxSeconds) return `the token's lifetime (exp - iat = ${hours(Math.round(exp - iat))}) exceeds the maximum of ${hours(maxSeconds)}: issue a shorter-lived token`;
  }
  if (exp - nowSeconds > maxSeconds + SKEW_SECONDS) return `the token expires ${hours(Math.round(exp - nowSeconds))} from now, beyond the maximum lifetime of ${hours(maxSeconds)}: issue a shorter-lived token`;
  return null;
}
