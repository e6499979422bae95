-- toolgate store, migration 7: toolgate_ts and toolgate_ms become STABLE so the planner
-- inlines them. Their bodies use timestamptz + interval and extract(epoch FROM timestamptz),
-- which PostgreSQL marks STABLE; an IMMUTABLE SQL function with a STABLE body is never
-- inlined and runs through the SQL-function executor at every call site of every
-- statement (re-initialised per execution). The results are unchanged: the bodies stay
-- as they are, and no index, constraint or generated column uses the functions.
ALTER FUNCTION toolgate_ts(bigint) STABLE;
ALTER FUNCTION toolgate_ms(timestamptz) STABLE;
