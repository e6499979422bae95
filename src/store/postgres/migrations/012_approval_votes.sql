-- toolgate store, migration 12: approvals from several approvers (a quorum), one vote per
-- approver and approval, bound to the approval's argument hash and policy version.

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
