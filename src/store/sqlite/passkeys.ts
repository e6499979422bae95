/** Approvers' passkeys and decision signatures in the SQLite store (tables made on open, idempotent). */
import type { Database as Db, Statement } from "better-sqlite3";
import type { ApprovalDecisionKind, ApprovalRequirement, ApprovalVote, ApproverCredential, DecisionSignature } from "../store.js";
import type { JsonObject } from "../../manifest.js";

export const passkeySchema = `
CREATE TABLE IF NOT EXISTS approver_credentials (
  credential_id TEXT    PRIMARY KEY,
  tenant        TEXT    NOT NULL,
  approver      TEXT    NOT NULL,
  public_key    TEXT    NOT NULL,
  counter       INTEGER NOT NULL CHECK (counter >= 0),
  transports    TEXT    NOT NULL,
  rp_id         TEXT    NOT NULL,
  origin        TEXT    NOT NULL,
  created_at_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS approver_credentials_by_approver ON approver_credentials (tenant, approver);

CREATE TABLE IF NOT EXISTS decision_signatures (
  seq           INTEGER PRIMARY KEY,
  approval_id   TEXT    NOT NULL,
  tenant        TEXT    NOT NULL,
  decision      TEXT    NOT NULL CHECK (decision IN ('approve','edit','reject','revoke')),
  approver      TEXT    NOT NULL,
  credential_id TEXT    NOT NULL,
  record        TEXT    NOT NULL,
  assertion     TEXT    NOT NULL,
  signed_at_ms  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS decision_signatures_by_approval ON decision_signatures (approval_id, seq);

CREATE TABLE IF NOT EXISTS approval_requirements (
  approval_id  TEXT    PRIMARY KEY,
  quorum       INTEGER NOT NULL,
  quorum_roles TEXT    NOT NULL,
  signed       INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS approval_votes (
  approval_id    TEXT    NOT NULL,
  approver       TEXT    NOT NULL,
  tenant         TEXT    NOT NULL,
  approver_roles TEXT    NOT NULL,
  args_hash      TEXT    NOT NULL,
  policy_version TEXT    NOT NULL,
  decided_at_ms  INTEGER NOT NULL,
  PRIMARY KEY (approval_id, approver)
);
`;

interface CredentialRow {
  credential_id: string;
  tenant: string;
  approver: string;
  public_key: string;
  counter: number;
  transports: string;
  rp_id: string;
  origin: string;
  created_at_ms: number;
}

interface SignatureRow {
  approval_id: string;
  tenant: string;
  decision: string;
  approver: string;
  credential_id: string;
  record: string;
  assertion: string;
  signed_at_ms: number;
}

const toCredential = (r: CredentialRow): ApproverCredential => ({ ...r, counter: Number(r.counter), created_at_ms: Number(r.created_at_ms), transports: JSON.parse(r.transports) as string[] });
const toSignature = (r: SignatureRow): DecisionSignature => ({
  ...r,
  decision: r.decision as ApprovalDecisionKind,
  record: JSON.parse(r.record) as JsonObject,
  assertion: JSON.parse(r.assertion) as JsonObject,
  signed_at_ms: Number(r.signed_at_ms),
});

interface VoteRow {
  approval_id: string;
  approver: string;
  tenant: string;
  approver_roles: string;
  args_hash: string;
  policy_version: string;
  decided_at_ms: number;
}

const toVote = (r: VoteRow): ApprovalVote => ({ ...r, approver_roles: JSON.parse(r.approver_roles) as string[], decided_at_ms: Number(r.decided_at_ms) });

/** Passkeys, decision signatures and quorum votes. */
export class SqlitePasskeys {
  readonly #q: {
    insertReq: Statement<unknown[]>;
    getReq: Statement<[string], { approval_id: string; quorum: number; quorum_roles: string; signed: number }>;
    insertVote: Statement<unknown[]>;
    listVotes: Statement<[string], VoteRow>;
    insertCred: Statement<unknown[]>;
    getCred: Statement<[string], CredentialRow>;
    listCreds: Statement<[string, string], CredentialRow>;
    raise: Statement<[number, string, number]>;
    insertSig: Statement<unknown[]>;
    listSigs: Statement<[string], SignatureRow>;
  };

  constructor(db: Db) {
    db.exec(passkeySchema);
    this.#q = {
      insertReq: db.prepare("INSERT INTO approval_requirements (approval_id, quorum, quorum_roles, signed) VALUES (?, ?, ?, ?) ON CONFLICT (approval_id) DO NOTHING"),
      getReq: db.prepare("SELECT * FROM approval_requirements WHERE approval_id = ?"),
      insertVote: db.prepare(
        "INSERT INTO approval_votes (approval_id, approver, tenant, approver_roles, args_hash, policy_version, decided_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (approval_id, approver) DO NOTHING",
      ),
      listVotes: db.prepare("SELECT * FROM approval_votes WHERE approval_id = ? ORDER BY decided_at_ms, rowid"),
      insertCred: db.prepare(
        "INSERT INTO approver_credentials (credential_id, tenant, approver, public_key, counter, transports, rp_id, origin, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (credential_id) DO NOTHING",
      ),
      getCred: db.prepare("SELECT * FROM approver_credentials WHERE credential_id = ?"),
      listCreds: db.prepare("SELECT * FROM approver_credentials WHERE tenant = ? AND approver = ? ORDER BY created_at_ms, credential_id"),
      raise: db.prepare("UPDATE approver_credentials SET counter = ? WHERE credential_id = ? AND counter < ?"),
      insertSig: db.prepare(
        "INSERT INTO decision_signatures (approval_id, tenant, decision, approver, credential_id, record, assertion, signed_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      ),
      listSigs: db.prepare("SELECT approval_id, tenant, decision, approver, credential_id, record, assertion, signed_at_ms FROM decision_signatures WHERE approval_id = ? ORDER BY seq"),
    };
  }

  setRequirement(r: ApprovalRequirement): void {
    this.#q.insertReq.run(r.approval_id, r.quorum, JSON.stringify(r.quorum_roles), r.signed ? 1 : 0);
  }

  requirement(approvalId: string): ApprovalRequirement | null {
    const r = this.#q.getReq.get(approvalId);
    return r === undefined ? null : { approval_id: r.approval_id, quorum: Number(r.quorum), quorum_roles: JSON.parse(r.quorum_roles) as string[], signed: r.signed === 1 };
  }

  addVote(v: ApprovalVote): boolean {
    return this.#q.insertVote.run(v.approval_id, v.approver, v.tenant, JSON.stringify(v.approver_roles), v.args_hash, v.policy_version, v.decided_at_ms).changes === 1;
  }

  votes(approvalId: string): ApprovalVote[] {
    return this.#q.listVotes.all(approvalId).map(toVote);
  }

  save(c: ApproverCredential): boolean {
    return this.#q.insertCred.run(c.credential_id, c.tenant, c.approver, c.public_key, c.counter, JSON.stringify(c.transports), c.rp_id, c.origin, c.created_at_ms).changes === 1;
  }

  get(id: string): ApproverCredential | null {
    const r = this.#q.getCred.get(id);
    return r === undefined ? null : toCredential(r);
  }

  list(tenant: string, approver: string): ApproverCredential[] {
    return this.#q.listCreds.all(tenant, approver).map(toCredential);
  }

  raise(id: string, counter: number): boolean {
    return this.#q.raise.run(counter, id, counter).changes === 1;
  }

  saveSignature(s: DecisionSignature): void {
    this.#q.insertSig.run(s.approval_id, s.tenant, s.decision, s.approver, s.credential_id, JSON.stringify(s.record), JSON.stringify(s.assertion), s.signed_at_ms);
  }

  signatures(approvalId: string): DecisionSignature[] {
    return this.#q.listSigs.all(approvalId).map(toSignature);
  }
}
