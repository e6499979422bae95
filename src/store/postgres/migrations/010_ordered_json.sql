-- toolgate store, migration 9: an approval's preview and a recorded envelope keep the key
-- order they were written in, as on SQLite: `json` stores the text as given, `jsonb`
-- reorders object keys (shorter first). The preview is shown in tools.yaml's declared
-- `approval.preview` order, and a replayed envelope is the recorded one, keys in order.
-- Neither column is searched, indexed or compared in SQL. Rows written before keep the
-- order jsonb gave them.
ALTER TABLE approvals ALTER COLUMN preview TYPE json USING preview::json;
ALTER TABLE idempotency_records ALTER COLUMN envelope TYPE json USING envelope::json;
