-- toolgate store, migration 12: a tamper-evident chain per tenant over the decision log and
-- the approval decisions. The writer sends each record's content hash (SHA-256 of its RFC 8785
-- JSON); a BEFORE INSERT trigger gives the record the tenant's next position and its link,
-- sha256(previous link || content hash), under a per-tenant advisory lock held to commit, so
-- concurrent writers of one tenant queue and other tenants do not wait. A row written without a
-- content hash (rows older than this migration) stays unchained.

CREATE TABLE audit_chain_heads (
  tenant     text        PRIMARY KEY,
  seq        bigint      NOT NULL,
  link       text        NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Records deleted by retention: their content is gone, their place in the chain is kept.
CREATE TABLE audit_chain_pruned (
  tenant       text        NOT NULL,
  seq          bigint      NOT NULL,
  kind         text        NOT NULL,
  record_id    text        NOT NULL,
  content_hash text        NOT NULL,
  prev_link    text        NOT NULL,
  link         text        NOT NULL,
  pruned_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant, seq)
);

ALTER TABLE decision_log
  ADD COLUMN content_hash text,
  ADD COLUMN chain_seq    bigint,
  ADD COLUMN prev_link    text,
  ADD COLUMN link         text;

ALTER TABLE approval_events
  ADD COLUMN content_hash text,
  ADD COLUMN chain_seq    bigint,
  ADD COLUMN prev_link    text,
  ADD COLUMN link         text;

CREATE FUNCTION toolgate_chain_link(prev text, content_hash text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN encode(sha256(convert_to(prev || content_hash, 'UTF8')), 'hex');

-- The advisory lock of a tenant's chain in this schema (two-key form: schema, tenant).
CREATE FUNCTION toolgate_chain_lock(tenant text) RETURNS boolean
  LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('toolgate chain ' || current_schema()), hashtext(tenant));
  RETURN true;
END
$$;

-- Takes the locks of every tenant in a JSON array of rows in one fixed order (by lock key),
-- so statements writing several tenants never wait for each other in a cycle.
CREATE FUNCTION toolgate_chain_lock_rows(rows jsonb) RETURNS boolean
  LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  t text;
BEGIN
  FOR t IN
    SELECT DISTINCT ON (hashtext(r->>'tenant')) r->>'tenant'
      FROM jsonb_array_elements(rows) r
     WHERE r->>'content_hash' IS NOT NULL
     ORDER BY hashtext(r->>'tenant')
  LOOP
    PERFORM toolgate_chain_lock(t);
  END LOOP;
  RETURN true;
END
$$;

CREATE FUNCTION toolgate_chain_append() RETURNS trigger
  LANGUAGE plpgsql AS $$
DECLARE
  chain_tenant text;
  head_seq     bigint;
  head_link    text;
BEGIN
  IF NEW.content_hash IS NULL THEN
    RETURN NEW;
  END IF;
  IF TG_TABLE_NAME = 'approval_events' THEN
    SELECT a.tenant INTO chain_tenant FROM approvals a WHERE a.id = NEW.approval_id;
  ELSE
    chain_tenant := NEW.tenant;
  END IF;
  -- toolgate_chain_lock's body, inlined (this runs once per row).
  PERFORM pg_advisory_xact_lock(hashtext('toolgate chain ' || current_schema()), hashtext(chain_tenant));
  SELECT h.seq, h.link INTO head_seq, head_link FROM audit_chain_heads h WHERE h.tenant = chain_tenant;
  IF FOUND THEN
    NEW.chain_seq := head_seq + 1;
    NEW.prev_link := head_link;
    NEW.link := encode(sha256(convert_to(head_link || NEW.content_hash, 'UTF8')), 'hex');
    UPDATE audit_chain_heads SET seq = NEW.chain_seq, link = NEW.link, updated_at = now() WHERE tenant = chain_tenant;
  ELSE
    NEW.chain_seq := 1;
    NEW.prev_link := repeat('0', 64);
    NEW.link := toolgate_chain_link(NEW.prev_link, NEW.content_hash);
    INSERT INTO audit_chain_heads (tenant, seq, link) VALUES (chain_tenant, NEW.chain_seq, NEW.link);
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER decision_log_chain BEFORE INSERT ON decision_log
  FOR EACH ROW EXECUTE FUNCTION toolgate_chain_append();
CREATE TRIGGER approval_events_chain BEFORE INSERT ON approval_events
  FOR EACH ROW EXECUTE FUNCTION toolgate_chain_append();
