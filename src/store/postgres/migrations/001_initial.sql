-- toolgate store, version 1: idempotency records, approvals and their events,
-- the decision log and run state. Unqualified names: the runner sets search_path.

-- One row per (tenant, operation_id). The primary key is what makes a claim
-- atomic across workers: INSERT ... ON CONFLICT, never read-then-write.
CREATE TABLE idempotency_records (
  tenant            text        NOT NULL,
  operation_id      text        NOT NULL,
  tool              text        NOT NULL,
  fingerprint       text        NOT NULL,
  -- in_progress: a worker holds the lease; completed: envelope is the fact;
  -- unknown: the effect may have happened (timeout), a retry must reconcile.
  state             text        NOT NULL CHECK (state IN ('in_progress', 'completed', 'unknown')),
  -- Increases on every takeover; recording requires the current value.
  fence_token       bigint      NOT NULL CHECK (fence_token > 0),
  lease_owner       text,
  lease_expires_at  timestamptz,
  envelope          jsonb,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  expires_at        timestamptz NOT NULL,
  PRIMARY KEY (tenant, operation_id),
  CHECK ((state = 'completed') = (envelope IS NOT NULL))
);
CREATE INDEX idempotency_records_expires_at ON idempotency_records (expires_at);

-- The current state of an approval; every change is also an approval_events row.
CREATE TABLE approvals (
  approval_id     text        PRIMARY KEY,
  tenant          text        NOT NULL,
  tool            text        NOT NULL,
  fingerprint     text        NOT NULL,
  preview         jsonb       NOT NULL,
  args            jsonb       NOT NULL,
  requested_by    text        NOT NULL,
  run_id          text        NOT NULL,
  policy_version  text        NOT NULL,
  status          text        NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'edited', 'revoked')),
  approver        text,
  scope           text,
  reason          text,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  decided_at      timestamptz
);
CREATE INDEX approvals_tenant_fingerprint ON approvals (tenant, fingerprint);

CREATE TABLE approval_events (
  id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  approval_id  text        NOT NULL REFERENCES approvals (approval_id) ON DELETE CASCADE,
  kind         text        NOT NULL,
  actor        text        NOT NULL,
  at           timestamptz NOT NULL,
  details      jsonb       NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX approval_events_approval_id ON approval_events (approval_id, id);

-- Every call: what was decided and why, under which policy version, with what outcome.
CREATE TABLE decision_log (
  id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at              timestamptz NOT NULL,
  tenant          text        NOT NULL,
  run_id          text        NOT NULL,
  tool            text        NOT NULL,
  operation_id    text,
  fingerprint     text,
  decision        text        NOT NULL,
  reason          text,
  policy_version  text,
  outcome         text,
  details         jsonb       NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX decision_log_tenant_at ON decision_log (tenant, at);

-- Interrupt flags, read at authorize and again right before invoke.
CREATE TABLE run_state (
  tenant          text        NOT NULL,
  run_id          text        NOT NULL,
  interrupted     boolean     NOT NULL DEFAULT false,
  interrupted_at  timestamptz,
  reason          text,
  PRIMARY KEY (tenant, run_id)
);
