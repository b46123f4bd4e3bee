-- Assess-on-write: a transactional outbox of its own for the corroboration
-- assessor. A proposal accepted in a space whose policy sets `assess_on_write`
-- queues its memory here in the write's transaction; a background worker runs the
-- assessor off the write's critical path (the indexing outbox stays for indexing,
-- so read-your-writes never waits on an assessment).
CREATE TABLE assess_queue (
  tenant_id     text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  memory_id     uuid NOT NULL,
  attempts      integer NOT NULL DEFAULT 0,
  available_at  timestamptz NOT NULL DEFAULT now(),
  create_time   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, memory_id)
);
CREATE INDEX assess_queue_ready ON assess_queue (available_at);

ALTER TABLE assess_queue ENABLE ROW LEVEL SECURITY;
ALTER TABLE assess_queue FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON assess_queue TO engram_app
  USING (tenant_id = (SELECT engram_current_tenant()))
  WITH CHECK (tenant_id = (SELECT engram_current_tenant()));
DO $$
BEGIN
  EXECUTE format('CREATE POLICY maintenance ON assess_queue TO %I '
                 'USING (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant())) '
                 'WITH CHECK (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant()))',
                 current_user);
END
$$;
GRANT SELECT, INSERT, UPDATE, DELETE ON assess_queue TO engram_app;

-- The one cross-tenant read of the queue: which tenants have work ready.
CREATE FUNCTION engram_tenants_with_assessments(p_limit integer)
  RETURNS TABLE (tenant_id text)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public
  SET engram.platform = 'on'
  AS $$
    SELECT DISTINCT q.tenant_id FROM public.assess_queue q
     WHERE q.available_at <= now()
     LIMIT p_limit
  $$;
REVOKE ALL ON FUNCTION engram_tenants_with_assessments(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_tenants_with_assessments(integer) TO engram_app;
