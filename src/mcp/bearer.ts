/**
 * Bearer tokens for the MCP HTTP endpoint: JWT HS256 with the claims
 * `{ tenant, sub (the user), roles, exp }` (the claim shape of the inbox's approver tokens), verified
 * with jose. A verified token is the connection's only source of identity. A token lives at
 * most `maxLifetimeSeconds` (default 24h): one whose `exp` lies further ahead, or further
 * after its `iat`, is refused.
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import { jwtVerify } from "jose";
import type { TrustedContext } from "../generated-runtime.js";
import { checkMaxLifetime, DEFAULT_MAX_TOKEN_LIFETIME_SECONDS, tokenLifetimeProblem } from "../server/token-lifetime.js";

export class BearerTokenError extends Error {
  override name = "BearerTokenError";
}

export interface VerifiedPrincipal {
  readonly tenant: string;
  readonly user: string;
  readonly roles: readonly string[];
  /** Optional `run_id` claim: the agent run the token was issued for. */
  readonly run_id: string | null;
}

/** The characters approver tokens allow in tenant, user and role names. */
const identity = /^[A-Za-z0-9_.@:+-]{1,128}$/;
const isIdentity = (v: unknown): v is string => typeof v === "string" && identity.test(v);

/** The audience an agent token may name; a token for another audience (the approvals inbox's) is refused. */
export const MCP_AUDIENCE = "toolgate-mcp";

export interface BearerVerifyOptions {
  /** Default 24 hours. */
  readonly maxLifetimeSeconds?: number;
  /** Verification time (epoch ms); default now. */
  readonly nowMs?: number;
}

/** Verifies signature (HS256 only), expiry, lifetime and claim types; throws BearerTokenError saying what is wrong. */
export async function verifyBearerToken(token: string, secret: Uint8Array, opts: BearerVerifyOptions = {}): Promise<AuthInfo> {
  let max: number;
  try {
    max = checkMaxLifetime(opts.maxLifetimeSeconds ?? DEFAULT_MAX_TOKEN_LIFETIME_SECONDS);
  } catch (err) {
    throw new BearerTokenError((err as Error).message);
  }
  const nowMs = opts.nowMs ?? Date.now();
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, secret, { algorithms: ["HS256"], requiredClaims: ["exp", "sub"], currentDate: new Date(nowMs) }));
  } catch (err) {
    throw new BearerTokenError(`invalid bearer token: ${err instanceof Error ? err.message : String(err)}`);
  }
  const lifetime = tokenLifetimeProblem(payload, Math.floor(nowMs / 1000), max);
  if (lifetime !== null) throw new BearerTokenError(`invalid bearer token: ${lifetime}`);
  const { tenant, sub, roles, exp, run_id, aud } = payload;
  // An approver's inbox token must not open an agent session (nor the reverse, which the inbox checks).
  if (aud !== undefined && !(Array.isArray(aud) ? aud : [aud]).includes(MCP_AUDIENCE)) {
    throw new BearerTokenError(`invalid bearer token: audience ${JSON.stringify(aud)} is not ${MCP_AUDIENCE}`);
  }
  if (!isIdentity(tenant)) throw new BearerTokenError("invalid bearer token: claim tenant must be 1-128 of A-Z a-z 0-9 _ . @ : + -");
  if (!isIdentity(sub)) throw new BearerTokenError("invalid bearer token: claim sub must be 1-128 of A-Z a-z 0-9 _ . @ : + -");
  if (!Array.isArray(roles) || !roles.every(isIdentity)) throw new BearerTokenError("invalid bearer token: claim roles must be an array of role names");
  if (run_id !== undefined && !isIdentity(run_id)) throw new BearerTokenError("invalid bearer token: claim run_id must be 1-128 of A-Z a-z 0-9 _ . @ : + -");
  const principal: VerifiedPrincipal = { tenant, user: sub, roles, run_id: typeof run_id === "string" ? run_id : null };
  return { token, clientId: sub, scopes: roles, ...(typeof exp === "number" ? { expiresAt: exp } : {}), extra: { principal } };
}

/** The trusted context of a request authenticated by verifyBearerToken. */
export function principalFromAuth(authInfo: AuthInfo | undefined): TrustedContext {
  const p = authInfo?.extra?.["principal"] as VerifiedPrincipal | undefined;
  if (p === undefined) throw new BearerTokenError("no verified bearer token on this connection");
  return { tenant: p.tenant, user: p.user, roles: p.roles, run_id: p.run_id ?? `mcp_${p.user}` };
}

/** The HS256 secret from its text form (at least 32 bytes, as RFC 7518 requires for HS256). */
export function hs256Secret(text: string): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length < 32) throw new BearerTokenError(`the token secret has ${bytes.length} bytes; HS256 needs at least 32`);
  return bytes;
}
