/** Approvers' passkeys and decision signatures (migration 011) and quorum votes and approval requirements (migration 013) in the PostgreSQL store. */
import type pg from "pg";
import type { JsonObject } from "../../manifest.js";
import type { ApprovalDecisionKind, ApprovalRequirement, ApprovalVote, ApproverCredential, DecisionSignature } from "../store.js";

interface CredentialRow {
  credential_id: string;
  tenant: string;
  approver: string;
  public_key: string;
  counter: string;
  transports: string[];
  rp_id: string;
  origin: string;
  created_at_ms: string;
}

interface SignatureRow {
  approval_id: string;
  tenant: string;
  decision: string;
  approver: string;
  credential_id: string;
  record: JsonObject;
  assertion: JsonObject;
  signed_at_ms: string;
}

const toCredential = (r: CredentialRow): ApproverCredential => ({ ...r, counter: Number(r.counter), created_at_ms: Number(r.created_at_ms) });
const toSignature = (r: SignatureRow): DecisionSignature => ({ ...r, decision: r.decision as ApprovalDecisionKind, signed_at_ms: Number(r.signed_at_ms) });

export async function setRequirement(db: pg.Pool, r: ApprovalRequirement): Promise<void> {
  await db.query("INSERT INTO approval_requirements (approval_id, quorum, quorum_roles, signed) VALUES ($1, $2, $3::jsonb, $4) ON CONFLICT (approval_id) DO NOTHING", [
    r.approval_id,
    r.quorum,
    JSON.stringify(r.quorum_roles),
    r.signed,
  ]);
}

export async function getRequirement(db: pg.Pool, approvalId: string): Promise<ApprovalRequirement | null> {
  const res = await db.query<{ approval_id: string; quorum: number; quorum_roles: string[]; signed: boolean }>("SELECT approval_id, quorum, quorum_roles, signed FROM approval_requirements WHERE approval_id = $1", [approvalId]);
  return res.rows[0] ?? null;
}

interface VoteRow {
  approval_id: string;
  approver: string;
  tenant: string;
  approver_roles: string[];
  args_hash: string;
  policy_version: string;
  decided_at_ms: string;
}

export async function addVote(db: pg.Pool, v: ApprovalVote): Promise<boolean> {
  const res = await db.query(
    `INSERT INTO approval_votes (approval_id, approver, tenant, approver_roles, args_hash, policy_version, decided_at_ms)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7) ON CONFLICT (approval_id, approver) DO NOTHING`,
    [v.approval_id, v.approver, v.tenant, JSON.stringify(v.approver_roles), v.args_hash, v.policy_version, v.decided_at_ms],
  );
  return res.rowCount === 1;
}

export async function listVotes(db: pg.Pool, approvalId: string): Promise<ApprovalVote[]> {
  const res = await db.query<VoteRow>("SELECT approval_id, approver, tenant, approver_roles, args_hash, policy_version, decided_at_ms FROM approval_votes WHERE approval_id = $1 ORDER BY decided_at_ms, seq", [approvalId]);
  return res.rows.map((r) => ({ ...r, decided_at_ms: Number(r.decided_at_ms) }));
}

export async function saveCredential(db: pg.Pool, c: ApproverCredential): Promise<boolean> {
  const res = await db.query(
    `INSERT INTO approver_credentials (credential_id, tenant, approver, public_key, counter, transports, rp_id, origin, created_at_ms)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9) ON CONFLICT (credential_id) DO NOTHING`,
    [c.credential_id, c.tenant, c.approver, c.public_key, c.counter, JSON.stringify(c.transports), c.rp_id, c.origin, c.created_at_ms],
  );
  return res.rowCount === 1;
}

export async function getCredential(db: pg.Pool, id: string): Promise<ApproverCredential | null> {
  const res = await db.query<CredentialRow>("SELECT * FROM approver_credentials WHERE credential_id = $1", [id]);
  return res.rows[0] === undefined ? null : toCredential(res.rows[0]);
}

export async function listCredentials(db: pg.Pool, tenant: string, approver: string): Promise<ApproverCredential[]> {
  const res = await db.query<CredentialRow>("SELECT * FROM approver_credentials WHERE tenant = $1 AND approver = $2 ORDER BY created_at_ms, credential_id", [tenant, approver]);
  return res.rows.map(toCredential);
}

export async function raiseCounter(db: pg.Pool, id: string, counter: number): Promise<boolean> {
  const res = await db.query("UPDATE approver_credentials SET counter = $2 WHERE credential_id = $1 AND counter < $2", [id, counter]);
  return res.rowCount === 1;
}

export async function saveSignature(db: pg.Pool, s: DecisionSignature): Promise<void> {
  await db.query(
    `INSERT INTO decision_signatures (approval_id, tenant, decision, approver, credential_id, record, assertion, signed_at_ms)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8)`,
    [s.approval_id, s.tenant, s.decision, s.approver, s.credential_id, JSON.stringify(s.record), JSON.stringify(s.assertion), s.signed_at_ms],
  );
}

export async function listSignatures(db: pg.Pool, approvalId: string): Promise<DecisionSignature[]> {
  const res = await db.query<SignatureRow>(
    "SELECT approval_id, tenant, decision, approver, credential_id, record, assertion, signed_at_ms FROM decision_signatures WHERE approval_id = $1 ORDER BY seq",
    [approvalId],
  );
  return res.rows.map(toSignature);
}
