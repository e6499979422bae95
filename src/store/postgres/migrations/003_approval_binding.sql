-- Approvals bound to what executes: the hash of the complete arguments, the policy's
-- code and data versions apart, single use (the operation that committed under it),
-- and the approver's roles on each decision. Rows from before have '' / '[]', which
-- never match a call's argument hash, so an old approval authorises nothing new.
ALTER TABLE approvals
  ADD COLUMN args_hash            text        NOT NULL DEFAULT '',
  ADD COLUMN policy_code_version  text        NOT NULL DEFAULT '',
  ADD COLUMN policy_data_version  text        NOT NULL DEFAULT '',
  ADD COLUMN consumed_by          text,
  ADD COLUMN consumed_at          timestamptz,
  ADD CONSTRAINT approvals_consumed_together CHECK ((consumed_by IS NULL) = (consumed_at IS NULL));

ALTER TABLE approval_events
  ADD COLUMN approver_roles       jsonb       NOT NULL DEFAULT '[]'::jsonb,
  ADD COLUMN policy_code_version  text        NOT NULL DEFAULT '',
  ADD COLUMN policy_data_version  text        NOT NULL DEFAULT '';
