-- toolgate store, migration 15: OPA's decision-log labels (the runtime's id, toolgate version,
-- service and host labels, a JSON object of strings) and the trace and span ids of the call's
-- recording span. NULL on entries written before them (and trace/span ids without a tracer).

ALTER TABLE decision_log
  ADD COLUMN labels jsonb,
  ADD COLUMN trace_id text,
  ADD COLUMN span_id text;
