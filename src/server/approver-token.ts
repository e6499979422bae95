/**
 * The shipped approver authentication: HS256 JWTs (jose) carrying tenant, user
 * (`sub`), roles and expiry, issued by `toolgate token` with a shared secret. The
 * verifier reads `Authorization: Bearer <jwt>` or the inbox's session cookie.
 */
import { SignJWT, jwtVerify } from "jose";
import type { ApproverContext } from "../approvals/approver.js";
import { checkMaxLifetime, DEFAULT_MAX_TOKEN_LIFETIME_SECONDS, tokenLifetimeProblem } from "./token-lifetime.js";

/** Turns a request into the approver's trusted identity, or null when it is not authenticated. */
export type VerifyApprover = (request: Request) => Promise<ApproverContext | null>;

export const sessionCookie = "toolgate_approver";
const issuer = "toolgate";
const audience = "toolgate-approvals";
const MIN_SECRET_BYTES = 32;

export class ApproverTokenError extends Error {
  override name = "ApproverTokenError";
}

function key(secret: string): Uint8Array {
  const bytes = new TextEncoder().encode(secret);
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new ApproverTokenError(`the approver secret must be at least ${MIN_SECRET_BYTES} bytes (generate one with: openssl rand -hex 32)`);
  }
  return bytes;
}

const identity = /^[A-Za-z0-9_.@:+-]{1,128}$/;

export interface IssueTokenRequest extends ApproverContext {
  readonly secret: string;
  /** Lifetime in seconds; default 8 hours. */
  readonly ttlSeconds?: number;
  /** The verifiers' maximum lifetime; a longer ttl is refused. Default 24 hours. */
  readonly maxLifetimeSeconds?: number;
  /** Issue time (epoch ms); default now. */
  readonly nowMs?: number;
}

export async function issueApproverToken(req: IssueTokenRequest): Promise<string> {
  for (const [field, v] of [["tenant", req.tenant], ["user", req.user], ...req.roles.map((r) => ["role", r] as const)] as const) {
    if (!identity.test(v)) throw new ApproverTokenError(`${field} ${JSON.stringify(v)}: use 1-128 of A-Z a-z 0-9 _ . @ : + -`);
  }
  const ttl = req.ttlSeconds ?? 8 * 3600;
  if (!Number.isSafeInteger(ttl) || ttl <= 0) throw new ApproverTokenError("ttl: must be a positive whole number of seconds");
  const max = maxLifetime(req.maxLifetimeSeconds);
  if (ttl > max) throw new ApproverTokenError(`ttl: ${ttl}s exceeds the maximum token lifetime of ${max}s; verifiers refuse longer-lived tokens`);
  const iat = Math.floor((req.nowMs ?? Date.now()) / 1000);
  return new SignJWT({ tenant: req.tenant, roles: [...req.roles] })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(req.user)
    .setIssuer(issuer)
    .setAudience(audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttl)
    .sign(key(req.secret));
}

function maxLifetime(seconds: number | undefined): number {
  try {
    return checkMaxLifetime(seconds ?? DEFAULT_MAX_TOKEN_LIFETIME_SECONDS);
  } catch (err) {
    throw new ApproverTokenError((err as Error).message);
  }
}

export interface VerifyTokenOptions {
  /** Verification time (epoch ms); default now. */
  readonly nowMs?: number;
  /** Default 24 hours. */
  readonly maxLifetimeSeconds?: number;
}

export type ApproverTokenCheck = { readonly ok: true; readonly approver: ApproverContext } | { readonly ok: false; readonly reason: string };

/** Verifies a token and says why it is refused: malformed, forged, expired, too long-lived, or a claim missing. */
export async function checkApproverToken(token: string, secret: string, opts: VerifyTokenOptions = {}): Promise<ApproverTokenCheck> {
  const max = maxLifetime(opts.maxLifetimeSeconds);
  if (token.length === 0 || token.length > 8_192) return { ok: false, reason: "the token is empty or longer than 8192 characters" };
  let payload: Awaited<ReturnType<typeof jwtVerify>>["payload"];
  try {
    ({ payload } = await jwtVerify(token, key(secret), {
      algorithms: ["HS256"],
      issuer,
      audience,
      ...(opts.nowMs === undefined ? {} : { currentDate: new Date(opts.nowMs) }),
    }));
  } catch (err) {
    if (err instanceof ApproverTokenError) throw err;
    return { ok: false, reason: `the token does not verify: ${err instanceof Error ? err.message : String(err)}` };
  }
  const { tenant, roles, sub } = payload as { tenant?: unknown; roles?: unknown; sub?: unknown };
  if (typeof tenant !== "string" || !identity.test(tenant) || typeof sub !== "string" || !identity.test(sub)) return { ok: false, reason: "claims tenant and sub must be plain ids" };
  const lifetime = tokenLifetimeProblem(payload, Math.floor((opts.nowMs ?? Date.now()) / 1000), max);
  if (lifetime !== null) return { ok: false, reason: lifetime };
  if (!Array.isArray(roles) || !roles.every((r): r is string => typeof r === "string" && identity.test(r))) return { ok: false, reason: "claim roles must be an array of plain ids" };
  return { ok: true, approver: { tenant, user: sub, roles } };
}

/** Verifies a token; null when it is malformed, forged, expired, too long-lived or lacks a claim. */
export async function verifyApproverToken(token: string, secret: string, nowMs?: number, maxLifetimeSeconds?: number): Promise<ApproverContext | null> {
  const checked = await checkApproverToken(token, secret, { ...(nowMs === undefined ? {} : { nowMs }), ...(maxLifetimeSeconds === undefined ? {} : { maxLifetimeSeconds }) });
  return checked.ok ? checked.approver : null;
}

/** Reads one cookie from a Cookie header. */
export function readCookie(header: string | null, name: string): string | null {
  if (header === null) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
}

/** The shipped VerifyApprover: bearer header first, then the session cookie the inbox's login sets. */
export function createTokenVerifier(opts: { readonly secret: string; readonly now?: () => number; readonly maxLifetimeSeconds?: number }): VerifyApprover {
  key(opts.secret); // fail at start-up, not on the first request
  const max = maxLifetime(opts.maxLifetimeSeconds);
  return async (request) => {
    const auth = request.headers.get("authorization");
    const bearer = auth !== null && /^Bearer\s+/i.test(auth) ? auth.replace(/^Bearer\s+/i, "").trim() : null;
    const token = bearer ?? readCookie(request.headers.get("cookie"), sessionCookie);
    return token === null ? null : verifyApproverToken(token, opts.secret, opts.now?.(), max);
  };
}
