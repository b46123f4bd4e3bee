-- Recall: access statistics for forgetting, and the outbox worker's view of which
-- tenants have index work waiting.
ALTER TABLE memories
  ADD COLUMN access_count bigint NOT NULL DEFAULT 0,
  ADD COLUMN last_access_time timestamptz;

-- Processed outbox rows are kept a while (then collected) rather than deleted at
-- once: what was indexed, and when, stays visible for debugging and for tests.
ALTER TABLE outbox ADD COLUMN processed_at timestamptz;
CREATE INDEX outbox_pending ON outbox (tenant_id, id) WHERE processed_at IS NULL;
CREATE INDEX outbox_processed ON outbox (tenant_id, processed_at) WHERE processed_at IS NOT NULL;

-- The indexing worker runs without a tenant; this tells it which tenants have
-- outbox rows ready, and nothing else. Claiming and processing the rows happens
-- inside each tenant's own RLS-scoped transaction.
CREATE FUNCTION engram_tenants_with_outbox(p_limit integer)
  RETURNS TABLE (tenant_id text)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public
  SET engram.platform = 'on'
  AS $$
    SELECT DISTINCT o.tenant_id FROM public.outbox o
     WHERE o.processed_at IS NULL AND o.available_at <= now()
     LIMIT p_limit
  $$;
REVOKE ALL ON FUNCTION engram_tenants_with_outbox(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_tenants_with_outbox(integer) TO engram_app;

-- Wakes indexing workers on every replica when a transaction queues work.
CREATE FUNCTION engram_outbox_notify() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('engram_outbox', NEW.tenant_id);
  RETURN NULL;
END
$$;
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox
  FOR EACH ROW EXECUTE FUNCTION engram_outbox_notify();
