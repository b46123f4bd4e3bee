-- `engram reindex`: queue every memory of every tenant for the indexing worker.
--
-- The vector index is derived from PostgreSQL, so rebuilding it means replaying
-- every memory through the outbox. The command runs without a tenant, hence this
-- SECURITY DEFINER function: it can do exactly one thing, insert one `upsert`
-- outbox row per memory, and it returns only how many rows it queued per tenant.
-- It reads no content and changes no other table.
--
-- The outbox policy's WITH CHECK admits a row only for the current tenant, so the
-- function switches `engram.tenant_id` to each tenant in turn. The SET clause
-- below restores the caller's value when the function returns, so the caller's
-- transaction never ends up scoped to the last tenant visited.
CREATE FUNCTION engram_enqueue_reindex()
  RETURNS TABLE (tenant_id text, queued bigint)
  LANGUAGE plpgsql VOLATILE SECURITY DEFINER
  SET search_path = pg_catalog, public
  SET engram.platform = 'on'
  SET engram.tenant_id = ''
  AS $$
DECLARE
  t text;
  n bigint;
BEGIN
  FOR t IN SELECT DISTINCT m.tenant_id FROM public.memories m ORDER BY 1 LOOP
    PERFORM set_config('engram.tenant_id', t, true);
    INSERT INTO public.outbox (tenant_id, memory_id, op)
      SELECT m.tenant_id, m.id, 'upsert' FROM public.memories m
       WHERE m.tenant_id = t ORDER BY m.create_time, m.id;
    GET DIAGNOSTICS n = ROW_COUNT;
    tenant_id := t;
    queued := n;
    RETURN NEXT;
  END LOOP;
END
$$;
REVOKE ALL ON FUNCTION engram_enqueue_reindex() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_enqueue_reindex() TO engram_app;
