-- toolgate store, migration 11: approvers' passkeys (WebAuthn credentials) and the assertions
-- that sign approval decisions, kept for offline verification.

CREATE TABLE approver_credentials (
  credential_id text   PRIMARY KEY,
  tenant        text   NOT NULL,
  approver      text   NOT NULL,
  public_key    text   NOT NULL,
  counter       bigint NOT NULL CHECK (counter >= 0),
  transports    jsonb  NOT NULL,
  rp_id         text   NOT NULL,
  origin        text   NOT NULL,
  created_at_ms bigint NOT NULL
);
CREATE INDEX approver_credentials_by_approver ON approver_credentials (tenant, approver);

CREATE TABLE decision_signatures (
  seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  approval_id   text   NOT NULL,
  tenant        text   NOT NULL,
  decision      text   NOT NULL CHECK (decision IN ('approve','edit','reject','revoke')),
  approver      text   NOT NULL,
  credential_id text   NOT NULL,
  record        jsonb  NOT NULL,
  assertion     jsonb  NOT NULL,
  signed_at_ms  bigint NOT NULL
);
CREATE INDEX decision_signatures_by_approval ON decision_signatures (approval_id, seq);
