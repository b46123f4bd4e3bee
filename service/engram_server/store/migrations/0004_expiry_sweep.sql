-- The expiry sweeper runs without a tenant; RLS would show it nothing. This
-- function tells it which tenants have ACTIVE memories past their expire_time,
-- and nothing else; the expiry itself then happens inside each tenant's own
-- RLS-scoped transaction.
CREATE FUNCTION engram_tenants_with_due_memories(p_as_of timestamptz, p_limit integer)
  RETURNS TABLE (tenant_id text)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public
  SET engram.platform = 'on'
  AS $$
    SELECT DISTINCT m.tenant_id FROM public.memories m
     WHERE m.status = 'ACTIVE' AND m.expire_time <= p_as_of
     LIMIT p_limit
  $$;

REVOKE ALL ON FUNCTION engram_tenants_with_due_memories(timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_tenants_with_due_memories(timestamptz, integer) TO engram_app;
