-- toolgate store, migration 5: the decision log in the shape of OPA's decision-log
-- events (decision id, path, the input as evaluated with sensitive fields erased,
-- result, evaluation time), a shadow policy's answer, and retention.

ALTER TABLE decision_log
  ADD COLUMN decision_id      text,
  ADD COLUMN path             text,
  ADD COLUMN input            jsonb,
  ADD COLUMN result           jsonb,
  -- JSON pointers of the erased input fields, e.g. ["/input/args/card_number"].
  ADD COLUMN erased           jsonb NOT NULL DEFAULT '[]'::jsonb,
  ADD COLUMN eval_ns          bigint,
  ADD COLUMN shadow           jsonb,
  ADD COLUMN shadow_disagrees boolean,
  -- NULL (entries written before retention existed) is never purged.
  ADD COLUMN expires_at       timestamptz;

-- Entries written before decision ids existed get a stable one from their row number.
UPDATE decision_log SET decision_id = 'seq-' || seq WHERE decision_id IS NULL;
ALTER TABLE decision_log ALTER COLUMN decision_id SET NOT NULL;

CREATE UNIQUE INDEX decision_log_by_id ON decision_log (decision_id);
CREATE INDEX decision_log_by_time ON decision_log (at);
CREATE INDEX decision_log_expiry ON decision_log (expires_at) WHERE expires_at IS NOT NULL;
