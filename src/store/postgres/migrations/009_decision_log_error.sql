-- toolgate store, migration 9: the error a handler threw, on its call's decision-log entry
-- (name, code, message, stack with sensitive argument values erased; the model saw only its id).

ALTER TABLE decision_log ADD COLUMN error jsonb;
