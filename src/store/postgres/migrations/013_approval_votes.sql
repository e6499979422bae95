-- toolgate store, migration 13: approvals from several approvers (a quorum), one vote per
-- approver and approval, bound to the approval's argument hash and policy version; and what
-- the policy demanded of one approval beyond its tool's spec (quorum, roles, signed).

CREATE TABLE approval_votes (
  seq            bigint GENERATED ALWAYS AS IDENTITY,
  approval_id    text   NOT NULL,
  approver       text   NOT NULL,
  tenant         text   NOT NULL,
  approver_roles jsonb  NOT NULL,
  args_hash      text   NOT NULL,
  policy_version text   NOT NULL,
  decided_at_ms  bigint NOT NULL,
  PRIMARY KEY (approval_id, approver)
);

CREATE TABLE approval_requirements (
  approval_id  text    PRIMARY KEY,
  quorum       integer NOT NULL CHECK (quorum >= 1),
  quorum_roles jsonb   NOT NULL,
  signed       boolean NOT NULL
);
