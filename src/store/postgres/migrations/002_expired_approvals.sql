-- An approval never decided before its expiry is 'expired'; purgeExpired deletes
-- such approvals (they hold model-sent arguments and no decision worth auditing).
ALTER TABLE approvals DROP CONSTRAINT approvals_status_check;
ALTER TABLE approvals ADD CONSTRAINT approvals_status_check
  CHECK (status IN ('pending', 'approved', 'edited', 'rejected', 'revoked', 'expired'));
-- Purging looks up undecided approvals by expiry.
CREATE INDEX approvals_pending_expiry ON approvals (expires_at) WHERE status = 'pending';
