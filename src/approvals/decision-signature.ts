/**
 * Passkey-signed decisions. The challenge of the WebAuthn assertion an approver makes is the
 * SHA-256 of the RFC 8785 JSON of the decision record (tenant, tool, argument hash, operation,
 * decision, approver, policy version, expiry; for an edit, the edited arguments' hash), so the
 * authenticator signs exactly what was decided. Checks need only the store: the record, the
 * stored assertion and the approver's registered public key.
 */
import { createHash } from "node:crypto";
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import type { JsonObject } from "../manifest.js";
import { canonicalJson } from "../call-data/canonical-json.js";
import { argsHash } from "../call-data/fingerprint.js";
import { loadWebAuthn } from "./webauthn.js";
import type { ApprovalDecisionKind, ApprovalRecord, ApproverCredential, DecisionSignature, Store } from "../store/store.js";

export interface DecisionRecord {
  readonly approval_id: string;
  readonly tenant: string;
  readonly tool: string;
  readonly args_hash: string;
  readonly operation_id: string | null;
  readonly decision: ApprovalDecisionKind;
  readonly approver: string;
  readonly policy_version: string;
  readonly expires_at_ms: number;
  /** For `edit`: the hash of the edited call's complete arguments; null otherwise. */
  readonly edited_args_hash: string | null;
}

export function decisionRecord(approval: ApprovalRecord, decision: ApprovalDecisionKind, approver: string, editedArgs: JsonObject | null): DecisionRecord {
  return {
    approval_id: approval.id,
    tenant: approval.tenant,
    tool: approval.tool,
    args_hash: approval.args_hash,
    operation_id: approval.operation_id,
    decision,
    approver,
    policy_version: approval.policy_version,
    expires_at_ms: approval.expires_at_ms,
    edited_args_hash: decision === "edit" && editedArgs !== null ? argsHash(approval.tenant, approval.tool, editedArgs) : null,
  };
}

const recordJson = (r: DecisionRecord | JsonObject): string => canonicalJson(r as unknown as JsonObject);

/** base64url SHA-256 of the record's canonical JSON: the WebAuthn challenge. */
export function decisionChallenge(record: DecisionRecord | JsonObject): string {
  return createHash("sha256").update(recordJson(record)).digest("base64url");
}

export const sameRecord = (a: DecisionRecord | JsonObject, b: DecisionRecord | JsonObject): boolean => recordJson(a) === recordJson(b);

export type AssertionCheck = { readonly ok: true; readonly counter: number } | { readonly ok: false; readonly problem: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Verifies `assertion` over `record` with `credential`'s public key, for the origin and RP id
 * the credential was registered at. The counter is not compared (offline re-checks see old
 * assertions); the inbox compares it when the assertion arrives.
 */
export async function checkAssertion(record: DecisionRecord | JsonObject, assertion: unknown, credential: ApproverCredential): Promise<AssertionCheck> {
  if (!isObject(assertion) || typeof assertion.id !== "string" || !isObject(assertion.response)) return { ok: false, problem: "assertion: not a WebAuthn authentication response" };
  if (assertion.id !== credential.credential_id) return { ok: false, problem: `assertion: made with credential ${assertion.id.slice(0, 40)}, not ${credential.credential_id}` };
  let webauthn;
  try {
    webauthn = await loadWebAuthn();
  } catch (err) {
    // Fails closed: without the library no signature counts as valid.
    return { ok: false, problem: err instanceof Error ? err.message : String(err) };
  }
  try {
    const result = await webauthn.verifyAuthenticationResponse({
      response: assertion as unknown as AuthenticationResponseJSON,
      expectedChallenge: decisionChallenge(record),
      expectedOrigin: credential.origin,
      expectedRPID: credential.rp_id,
      expectedType: "webauthn.get",
      credential: { id: credential.credential_id, publicKey: new Uint8Array(Buffer.from(credential.public_key, "base64url")), counter: 0, transports: [] },
      requireUserVerification: false,
    });
    return result.verified ? { ok: true, counter: result.authenticationInfo.newCounter } : { ok: false, problem: "signature: does not verify with the registered public key" };
  } catch (err) {
    return { ok: false, problem: `assertion: ${err instanceof Error ? err.message : String(err)}` };
  }
}

export type SignatureVerdict =
  | { readonly state: "valid"; readonly credential_id: string }
  | { readonly state: "invalid"; readonly problem: string }
  | { readonly state: "unsigned" };

type SignatureReader = Pick<Store, "listDecisionSignatures" | "getApproverCredential" | "getApproval">;

/** Checks one stored signature against the record it must sign and the approver's own credential. */
async function checkStored(store: SignatureReader, sig: DecisionSignature, expected: DecisionRecord): Promise<SignatureVerdict> {
  if (!sameRecord(sig.record, expected)) return { state: "invalid", problem: "record: the signed record differs from the decision stored" };
  const cred = await store.getApproverCredential(sig.credential_id);
  if (cred === null) return { state: "invalid", problem: `credential ${sig.credential_id}: not registered` };
  if (cred.tenant !== expected.tenant || cred.approver !== expected.approver) return { state: "invalid", problem: `credential ${sig.credential_id}: registered to another approver` };
  const checked = await checkAssertion(expected, sig.assertion, cred);
  return checked.ok ? { state: "valid", credential_id: cred.credential_id } : { state: "invalid", problem: checked.problem };
}

/**
 * The record an approved approval's signature must sign: its own `approve`, or, for the
 * approval an edit created, the edit of the original approval with these arguments.
 */
async function expectedForApproved(store: SignatureReader, approval: ApprovalRecord, sig: DecisionSignature, approver: string): Promise<DecisionRecord | null> {
  if (sig.decision === "approve") return decisionRecord(approval, "approve", approver, null);
  if (sig.decision !== "edit" || typeof sig.record.approval_id !== "string") return null;
  const original = await store.getApproval(sig.record.approval_id);
  if (original === null || original.status !== "edited" || original.decision?.edited_args == null) return null;
  if (original.tenant !== approval.tenant || original.tool !== approval.tool || original.decision.approver !== approver) return null;
  const record = decisionRecord(original, "edit", approver, original.decision.edited_args);
  return record.edited_args_hash === approval.args_hash ? record : null;
}

/**
 * Whether `approver`'s approval of `approval` (directly or by an edit; by default the decision
 * that released it) carries a valid signature by that approver: what the runtime requires
 * before a signed tool's call runs (for a quorum, of every approver in it).
 */
export async function approvalSignature(store: SignatureReader, approval: ApprovalRecord, approver: string = approval.decision?.approver ?? ""): Promise<SignatureVerdict> {
  const sigs = (await store.listDecisionSignatures(approval.id)).filter((s) => s.approver === approver && s.tenant === approval.tenant);
  if (sigs.length === 0) return { state: "unsigned" };
  let last: SignatureVerdict = { state: "unsigned" };
  for (const sig of sigs) {
    const expected = await expectedForApproved(store, approval, sig, approver);
    last = expected === null ? { state: "invalid", problem: "record: does not sign this approval's decision" } : await checkStored(store, sig, expected);
    if (last.state === "valid") return last;
  }
  return last;
}

/** Every decision event of an approval with the verdict on its signature (for `approvals verify`). */
export async function eventSignatures(
  store: SignatureReader & Pick<Store, "listApprovalEvents">,
  approval: ApprovalRecord,
): Promise<{ readonly decision: ApprovalDecisionKind; readonly approver: string; readonly decided_at_ms: number; readonly verdict: SignatureVerdict }[]> {
  const events = await store.listApprovalEvents(approval.id);
  const sigs = await store.listDecisionSignatures(approval.id);
  const out = [];
  for (const ev of events) {
    const mine = sigs.filter((s) => s.approver === ev.approver && s.tenant === approval.tenant && s.decision === ev.decision);
    let verdict: SignatureVerdict = { state: "unsigned" };
    for (const sig of mine) {
      verdict = await checkStored(store, sig, decisionRecord(approval, ev.decision, ev.approver, ev.decision === "edit" ? ev.edited_args : null));
      if (verdict.state === "valid") break;
    }
    // The approval an edit created is approved by the editor's signed edit of the original.
    if (verdict.state === "unsigned" && ev.decision === "approve") {
      const viaEdit = sigs.filter((s) => s.decision === "edit" && s.approver === ev.approver);
      for (const sig of viaEdit) {
        const expected = await expectedForApproved(store, approval, sig, ev.approver);
        verdict = expected === null ? { state: "invalid", problem: "record: does not sign this decision" } : await checkStored(store, sig, expected);
        if (verdict.state === "valid") break;
      }
    }
    out.push({ decision: ev.decision, approver: ev.approver, decided_at_ms: ev.decided_at_ms, verdict });
  }
  return out;
}
