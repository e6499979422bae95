-- toolgate store, migration 17: the figures of a limit key read one index range and no record.
-- Each entry carries whether its call counts (`counts`): it succeeded, or ended in a final
-- timeout or outcome_unknown, or is claimed with no outcome recorded (in flight, or crashed and
-- not yet reconciled, whatever its lease). A trigger copies a record's changes onto its entries
-- (those of its current incarnation), and a deleted record takes its entries with it.
DELETE FROM limit_entries e WHERE NOT EXISTS (SELECT 1 FROM operations o
  WHERE o.tenant = e.tenant AND o.operation_id = e.operation_id AND toolgate_ms(o.created_at) = e.claimed_at_ms);

CREATE FUNCTION toolgate_limit_counts(status text, envelope json) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN status = 'final'
              THEN coalesce(envelope->>'outcome' = 'success' OR envelope->>'reason' IN ('timeout', 'outcome_unknown'), false)
              ELSE status IN ('in_progress', 'unknown') END
$$;

ALTER TABLE limit_entries ADD COLUMN counts boolean NOT NULL DEFAULT true;
UPDATE limit_entries e SET counts = toolgate_limit_counts(o.status, o.envelope)
  FROM operations o WHERE o.tenant = e.tenant AND o.operation_id = e.operation_id;

-- Keyed by operation: the key serves the triggers and the claim's upsert (so a claim writes two
-- indexes, not three), and it offers no (tenant, limit) prefix that the figures' plan could pick
-- over limit_entries_window and then scan every key of the limit.
DROP INDEX limit_entries_by_key;
ALTER TABLE limit_entries DROP CONSTRAINT limit_entries_pkey, ADD PRIMARY KEY (tenant, operation_id, limit_name);
CREATE INDEX limit_entries_window ON limit_entries (tenant, limit_name, limit_key, claimed_at_ms) INCLUDE (amount, operation_id) WHERE counts;

CREATE FUNCTION toolgate_limit_entries_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM limit_entries WHERE tenant = OLD.tenant AND operation_id = OLD.operation_id;
    RETURN OLD;
  END IF;
  UPDATE limit_entries SET counts = toolgate_limit_counts(NEW.status, NEW.envelope)
   WHERE tenant = NEW.tenant AND operation_id = NEW.operation_id AND claimed_at_ms = toolgate_ms(NEW.created_at)
     AND counts IS DISTINCT FROM toolgate_limit_counts(NEW.status, NEW.envelope);
  RETURN NEW;
END
$$;

CREATE TRIGGER limit_entries_settle AFTER UPDATE OF status, envelope, created_at ON operations
  FOR EACH ROW EXECUTE FUNCTION toolgate_limit_entries_follow();
CREATE TRIGGER limit_entries_gone AFTER DELETE ON operations
  FOR EACH ROW EXECUTE FUNCTION toolgate_limit_entries_follow();

-- The figures of a claim's limit keys under their locks: takes the transaction-scoped advisory
-- lock of each key (p_locks, sorted), then reads the figures. A VOLATILE function's queries take
-- a snapshot of their own, after the locks, so a claim-first statement (one round trip, a
-- prepared plan) that calls it reads every entry committed by the claims that held the locks before.
-- Its query keeps one generic plan: with the arrays known, the planner costs unnest() at their
-- length and the generic plan (ten rows a parameter array) never looks cheaper, so every call
-- would plan the query again, which cost more than the rest of the function.
CREATE FUNCTION toolgate_limit_figures(p_tenant text, p_exclude text, p_names text[], p_keys text[], p_since bigint[], p_locks bigint[])
  RETURNS TABLE (f_name text, f_count bigint, f_sum double precision)
  LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  l bigint;
BEGIN
  FOREACH l IN ARRAY p_locks LOOP
    PERFORM pg_advisory_xact_lock(l);
  END LOOP;
  -- One aggregate per key over its index range (no join of every entry to sort and group).
  RETURN QUERY
    SELECT k.name, f.count, f.sum
      FROM unnest(p_names, p_keys, p_since) AS k (name, key, since) CROSS JOIN LATERAL (
        SELECT COUNT(*)::bigint AS count, COALESCE(SUM(e.amount), 0)::double precision AS sum
          FROM limit_entries e
         WHERE e.tenant = p_tenant AND e.limit_name = k.name AND e.limit_key = k.key
           AND e.claimed_at_ms > k.since AND e.counts AND e.operation_id <> p_exclude) f;
END
$$;
