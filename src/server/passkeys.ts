/**
 * Passkeys in the inbox: registration (WebAuthn attestation, `@simplewebauthn/server`) with a
 * stateless challenge (HMAC-signed, bound to the approver, short-lived), and the signature a
 * decision on a signed tool must carry (an assertion over the decision record's digest),
 * verified against the approver's own registered credential and stored with the decision.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { RegistrationResponseJSON } from "@simplewebauthn/server";
import { checkAssertion, decisionChallenge, decisionRecord } from "../approvals/decision-signature.js";
import type { DecisionRecord } from "../approvals/decision-signature.js";
import { ApprovalsError } from "../approvals/errors.js";
import { loadWebAuthn } from "../approvals/webauthn.js";
import type { JsonObject } from "../manifest.js";
import type { ApproverContext } from "../approvals/approver.js";
import type { ApprovalDecisionKind, ApprovalRecord, ApprovalStore, ApproverCredential, PasskeyStore as PasskeyRole } from "../store/store.js";

export type PasskeyStore = PasskeyRole & Pick<ApprovalStore, "getApproval">;

/** Where passkeys are used: the relying party. Default: the request's own origin and host name. */
export interface WebAuthnOptions {
  readonly rpName?: string;
  readonly rpId?: string;
  readonly origin?: string;
}

const CHALLENGE_TTL_MS = 5 * 60_000;

export interface RelyingParty {
  readonly rpId: string;
  readonly origin: string;
  readonly rpName: string;
}

export function relyingParty(opts: WebAuthnOptions | undefined, requestUrl: string): RelyingParty {
  const url = new URL(requestUrl);
  return { rpId: opts?.rpId ?? url.hostname, origin: opts?.origin ?? url.origin, rpName: opts?.rpName ?? "toolgate approvals" };
}

const subjectOf = (who: ApproverContext): string => `${who.tenant}\u0000${who.user}`;

function mac(secret: string, text: string): string {
  return createHmac("sha256", secret).update(`passkey-registration\u0000${text}`).digest("base64url");
}

/** A registration challenge the server can check later without storing it. */
export function registrationToken(secret: string, who: ApproverContext, challenge: string, nowMs: number): string {
  const body = Buffer.from(JSON.stringify({ c: challenge, s: subjectOf(who), e: nowMs + CHALLENGE_TTL_MS })).toString("base64url");
  return `${body}.${mac(secret, body)}`;
}

function challengeOfToken(secret: string, who: ApproverContext, token: unknown, nowMs: number): string {
  const bad = new ApprovalsError("invalid_request", "token: the registration expired or belongs to another approver; start again");
  if (typeof token !== "string" || token.length > 1_000) throw bad;
  const [body, sig] = token.split(".");
  if (body === undefined || sig === undefined) throw bad;
  const want = Buffer.from(mac(secret, body));
  const got = Buffer.from(sig);
  if (want.length !== got.length || !timingSafeEqual(want, got)) throw bad;
  const parsed = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as { c: string; s: string; e: number };
  if (parsed.s !== subjectOf(who) || parsed.e <= nowMs) throw bad;
  return parsed.c;
}

export async function registrationOptions(store: PasskeyStore, rp: RelyingParty, who: ApproverContext, secret: string, nowMs: number) {
  const existing = await store.listApproverCredentials(who.tenant, who.user);
  const { generateRegistrationOptions } = await loadWebAuthn();
  const options = await generateRegistrationOptions({
    rpName: rp.rpName,
    rpID: rp.rpId,
    userName: who.user,
    userDisplayName: `${who.user} (${who.tenant})`,
    challenge: randomBytes(32),
    attestationType: "none",
    excludeCredentials: existing.map((c) => ({ id: c.credential_id })),
    authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
  });
  return { options, token: registrationToken(secret, who, options.challenge, nowMs) };
}

export async function registerPasskey(store: PasskeyStore, rp: RelyingParty, who: ApproverContext, secret: string, body: unknown, nowMs: number): Promise<ApproverCredential> {
  const b = (typeof body === "object" && body !== null ? body : {}) as { token?: unknown; response?: unknown };
  const challenge = challengeOfToken(secret, who, b.token, nowMs);
  if (typeof b.response !== "object" || b.response === null) throw new ApprovalsError("invalid_request", "response: the authenticator's registration response is required");
  const { verifyRegistrationResponse } = await loadWebAuthn();
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: b.response as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpId,
      requireUserVerification: false,
    });
  } catch (err) {
    throw new ApprovalsError("invalid_request", `response: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!verified.verified || verified.registrationInfo === undefined) throw new ApprovalsError("invalid_request", "response: the registration does not verify");
  const c = verified.registrationInfo.credential;
  const cred: ApproverCredential = {
    credential_id: c.id,
    tenant: who.tenant,
    approver: who.user,
    public_key: Buffer.from(c.publicKey).toString("base64url"),
    counter: c.counter,
    transports: [...(c.transports ?? [])],
    rp_id: rp.rpId,
    origin: rp.origin,
    created_at_ms: nowMs,
  };
  if (!(await store.saveApproverCredential(cred))) throw new ApprovalsError("forbidden", `credential ${c.id} is already registered`);
  return cred;
}

/** What the browser signs for a decision: the record, its digest as the challenge, and the approver's credentials. */
export async function signingRequest(store: PasskeyStore, rp: RelyingParty, approval: ApprovalRecord, decision: ApprovalDecisionKind, who: ApproverContext, editedArgs: JsonObject | null) {
  const record = decisionRecord(approval, decision, who.user, editedArgs);
  const creds = await store.listApproverCredentials(who.tenant, who.user);
  if (creds.length === 0) throw new ApprovalsError("forbidden", `${approval.tool} needs a passkey-signed decision and ${who.user} has no passkey: register one at /passkeys`);
  return { record, challenge: decisionChallenge(record), credential_ids: creds.map((c) => c.credential_id), rp_id: rp.rpId };
}

/**
 * Checks the assertion a signed decision carries and stores it (before the decision is
 * recorded, so a decision never exists without its assertion when one was required).
 * Throws ApprovalsError("forbidden") saying what is wrong.
 */
export async function acceptSignature(store: PasskeyStore, approval: ApprovalRecord, decision: ApprovalDecisionKind, who: ApproverContext, editedArgs: JsonObject | null, assertion: unknown, nowMs: number): Promise<{ record: DecisionRecord; assertion: JsonObject }> {
  if (assertion === undefined || assertion === null || assertion === "") {
    throw new ApprovalsError("forbidden", `${approval.tool} needs a passkey-signed decision: decide in the inbox with your passkey (register one at /passkeys)`);
  }
  const parsed: unknown = typeof assertion === "string" ? safeJson(assertion) : assertion;
  const id = typeof parsed === "object" && parsed !== null ? (parsed as { id?: unknown }).id : undefined;
  const cred = typeof id === "string" ? await store.getApproverCredential(id) : null;
  if (cred === null || cred.tenant !== who.tenant || cred.approver !== who.user) throw new ApprovalsError("forbidden", `the signature was not made with a passkey registered to ${who.user}`);
  const record = decisionRecord(approval, decision, who.user, editedArgs);
  const checked = await checkAssertion(record, parsed, cred);
  if (!checked.ok) throw new ApprovalsError("forbidden", `the decision's signature is invalid (${checked.problem})`);
  // A counter that does not rise means a cloned authenticator or a replayed assertion. The raise
  // is the check that counts: it writes only above the stored counter, so of two assertions with
  // one counter sent at once (clones), one raises it and the other is refused.
  const refusedCounter = "the passkey's signature counter did not rise: the assertion was replayed or the authenticator cloned";
  if ((checked.counter > 0 || cred.counter > 0) && checked.counter <= cred.counter) throw new ApprovalsError("forbidden", refusedCounter);
  if (checked.counter > 0 && !(await store.raiseCredentialCounter(cred.credential_id, checked.counter))) throw new ApprovalsError("forbidden", refusedCounter);
  const json = parsed as JsonObject;
  await store.saveDecisionSignature({ approval_id: approval.id, tenant: approval.tenant, decision, approver: who.user, credential_id: cred.credential_id, record: record as unknown as JsonObject, assertion: json, signed_at_ms: nowMs });
  return { record, assertion: json };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
