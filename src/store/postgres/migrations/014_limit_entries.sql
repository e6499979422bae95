-- toolgate store, migration 14: limit accounting. One row per (limit, operation), written in
-- the claim's transaction under an advisory lock on the limit key; the figures join the
-- operation's record, whose status says whether the call counts.
CREATE TABLE limit_entries (
  tenant        text             NOT NULL,
  limit_name    text             NOT NULL,
  limit_key     text             NOT NULL,
  operation_id  text             NOT NULL,
  amount        double precision NOT NULL,
  -- The claimed record's created_at (epoch ms): an entry counts only for that incarnation.
  claimed_at_ms bigint           NOT NULL,
  PRIMARY KEY (tenant, limit_name, operation_id)
);
CREATE INDEX limit_entries_by_key ON limit_entries (tenant, limit_name, limit_key);

-- Run history (input.run): a run's latest decision-log entries, newest first.
CREATE INDEX decision_log_by_run ON decision_log (tenant, run_id, seq);
