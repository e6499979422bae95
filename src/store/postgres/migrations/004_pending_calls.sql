-- toolgate store, version 4: the approvals inbox. The call behind each approval
-- (so the host can run it after the decision) and an index for listing a tenant's
-- approvals newest first.

CREATE INDEX approvals_by_tenant ON approvals (tenant, created_at DESC, id DESC);

CREATE TABLE pending_calls (
  approval_id   text        PRIMARY KEY REFERENCES approvals (id) ON DELETE CASCADE,
  tenant        text        NOT NULL,
  run_id        text        NOT NULL,
  user_id       text        NOT NULL,
  roles         jsonb       NOT NULL,
  tool          text        NOT NULL,
  args          jsonb       NOT NULL,
  operation_id  text,
  policy_reason text,
  created_at    timestamptz NOT NULL,
  -- For an edited approval: the approval of the edited call, which runs instead.
  replaced_by   text        REFERENCES approvals (id) ON DELETE SET NULL,
  -- When a webhook announced the approval; NULL until then.
  announced_at  timestamptz
);
CREATE INDEX pending_calls_unannounced ON pending_calls (created_at) WHERE announced_at IS NULL;
