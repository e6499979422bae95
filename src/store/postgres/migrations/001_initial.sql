-- toolgate store, version 1: idempotency records, approvals and their decision
-- events, the decision log and run state (interrupt flags).
-- Names are unqualified: the runner and the pool set search_path to the schema.

-- The Store interface passes every time as epoch milliseconds; columns are
-- timestamptz for operators. These two convert exactly (integer microseconds).
CREATE FUNCTION toolgate_ts(ms bigint) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN timestamptz '1970-01-01 00:00:00+00' + ms * interval '1 millisecond';
CREATE FUNCTION toolgate_ms(ts timestamptz) RETURNS bigint
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN floor(extract(epoch FROM ts) * 1000)::bigint;

-- One row per (tenant, operation_id). The primary key is what makes a claim
-- atomic across workers: INSERT ... ON CONFLICT, never read-then-write.
CREATE TABLE idempotency_records (
  tenant            text        NOT NULL,
  operation_id      text        NOT NULL,
  tool              text        NOT NULL,
  fingerprint       text        NOT NULL,
  -- in_progress: a worker holds (or held) the lease; retryable: failed before any
  -- effect; unknown: the effect may have happened, a retry must reconcile;
  -- final: envelope is the fact and is replayed.
  status            text        NOT NULL CHECK (status IN ('in_progress', 'retryable', 'unknown', 'final')),
  -- 1 on the first claim, +1 on every takeover; recording requires the current value.
  fence_token       bigint      NOT NULL CHECK (fence_token > 0),
  lease_owner       text        NOT NULL,
  lease_expires_at  timestamptz NOT NULL,
  attempts          integer     NOT NULL CHECK (attempts > 0),
  -- Status before the latest claim (NULL for a fresh record): a takeover from
  -- in_progress or unknown must reconcile before invoking again.
  claimed_from      text        CHECK (claimed_from IN ('in_progress', 'retryable', 'unknown')),
  envelope          jsonb,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  -- The tool's retention: past it the record is gone for every purpose.
  expires_at        timestamptz NOT NULL,
  PRIMARY KEY (tenant, operation_id),
  CHECK (status <> 'final' OR envelope IS NOT NULL)
);
CREATE INDEX idempotency_records_expires_at ON idempotency_records (expires_at);

-- The current state of an approval; every decision is also an approval_events row.
CREATE TABLE approvals (
  id              text        PRIMARY KEY,
  tenant          text        NOT NULL,
  run_id          text        NOT NULL,
  requested_by    text        NOT NULL,
  tool            text        NOT NULL,
  args            jsonb       NOT NULL,
  preview         jsonb       NOT NULL,
  fingerprint     text        NOT NULL,
  operation_id    text,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  policy_version  text        NOT NULL,
  status          text        NOT NULL CHECK (status IN ('pending', 'approved', 'edited', 'rejected', 'revoked'))
);
CREATE INDEX approvals_pending ON approvals (tenant, fingerprint, created_at) WHERE status = 'pending';

CREATE TABLE approval_events (
  seq             bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  approval_id     text        NOT NULL REFERENCES approvals (id) ON DELETE CASCADE,
  decision        text        NOT NULL CHECK (decision IN ('approve', 'edit', 'reject', 'revoke')),
  approver        text        NOT NULL,
  reason          text,
  edited_args     jsonb,
  decided_at      timestamptz NOT NULL,
  policy_version  text        NOT NULL
);
CREATE INDEX approval_events_by_approval ON approval_events (approval_id, seq);

-- Every call: what was decided and why, under which policy version, with what outcome.
CREATE TABLE decision_log (
  seq             bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at              timestamptz NOT NULL,
  tenant          text        NOT NULL,
  run_id          text        NOT NULL,
  user_id         text        NOT NULL,
  tool            text        NOT NULL,
  operation_id    text,
  fingerprint     text,
  decision        text        NOT NULL,
  reason          text,
  policy_version  text,
  outcome         text        NOT NULL,
  outcome_reason  text
);
CREATE INDEX decision_log_by_tenant ON decision_log (tenant, seq);
CREATE INDEX decision_log_by_operation ON decision_log (tenant, operation_id, seq) WHERE operation_id IS NOT NULL;

-- Per-run state shared by every worker; today the interrupt flag, read at
-- authorize and again right before invoke.
CREATE TABLE run_state (
  tenant            text        NOT NULL,
  run_id            text        NOT NULL,
  interrupt_reason  text,
  interrupted_at    timestamptz,
  PRIMARY KEY (tenant, run_id),
  CHECK ((interrupt_reason IS NULL) = (interrupted_at IS NULL))
);
