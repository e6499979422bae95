-- toolgate store, migration 8: the single-column CHECK constraints of the write path's
-- tables become domains with the same checks. PostgreSQL reads a table's CHECK
-- constraints back from their stored text and prepares them again in every INSERT or
-- UPDATE it executes (per execution, prepared statements included), which was about a
-- tenth of the backend's CPU on an approved write; a domain's checks are prepared once per
-- connection (type cache). The values allowed are unchanged.
-- The columns change type while the domains have no constraint yet (a domain over the
-- column's own type rewrites nothing); ALTER DOMAIN ... ADD CONSTRAINT then checks the
-- existing rows (a scan, no rewrite), all in the migration's one transaction.
CREATE DOMAIN toolgate_op_status AS text;
CREATE DOMAIN toolgate_claimed_from AS text;
CREATE DOMAIN toolgate_fence_token AS bigint;
CREATE DOMAIN toolgate_attempts AS integer;
CREATE DOMAIN toolgate_approval_status AS text;

ALTER TABLE idempotency_records
  DROP CONSTRAINT idempotency_records_status_check,
  DROP CONSTRAINT idempotency_records_fence_token_check,
  DROP CONSTRAINT idempotency_records_attempts_check,
  DROP CONSTRAINT idempotency_records_claimed_from_check,
  ALTER COLUMN status TYPE toolgate_op_status,
  ALTER COLUMN fence_token TYPE toolgate_fence_token,
  ALTER COLUMN attempts TYPE toolgate_attempts,
  ALTER COLUMN claimed_from TYPE toolgate_claimed_from;

ALTER TABLE approvals
  DROP CONSTRAINT approvals_status_check,
  ALTER COLUMN status TYPE toolgate_approval_status;

ALTER DOMAIN toolgate_op_status ADD CONSTRAINT toolgate_op_status_check
  CHECK (VALUE IN ('in_progress', 'retryable', 'unknown', 'final'));
ALTER DOMAIN toolgate_claimed_from ADD CONSTRAINT toolgate_claimed_from_check
  CHECK (VALUE IN ('in_progress', 'retryable', 'unknown'));
ALTER DOMAIN toolgate_fence_token ADD CONSTRAINT toolgate_fence_token_check CHECK (VALUE > 0);
ALTER DOMAIN toolgate_attempts ADD CONSTRAINT toolgate_attempts_check CHECK (VALUE > 0);
ALTER DOMAIN toolgate_approval_status ADD CONSTRAINT toolgate_approval_status_check
  CHECK (VALUE IN ('pending', 'approved', 'edited', 'rejected', 'revoked', 'expired'));
