-- Row-level security that indexes can use.
--
-- The first policies combined the tenant check with an "owner maintenance" arm in
-- one OR. PostgreSQL cannot turn an OR into an index condition, so a lookup by id
-- filtered the tenant only after walking an index on id alone, and grew with the
-- table. Now each tenant table has two permissive policies for different roles:
--   tenant_isolation  TO engram_app  (the server): tenant_id = the transaction's tenant
--   maintenance       TO the owner   (SECURITY DEFINER functions): platform flag set
-- The server role is not a member of the owner role, so its queries carry only the
-- plain `tenant_id = $tenant` condition, which the (tenant_id, ...) indexes serve.
-- Tables added later follow the same pattern.
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['memories', 'memory_revisions', 'audit_log', 'outbox',
                           'idempotency', 'policies', 'edges', 'embedding_cache',
                           'snapshots', 'snapshot_memories'] LOOP
    IF to_regclass(t) IS NULL THEN
      CONTINUE;
    END IF;
    EXECUTE format('DROP POLICY IF EXISTS tenant_isolation ON %I', t);
    EXECUTE format('CREATE POLICY tenant_isolation ON %I TO engram_app '
                   'USING (tenant_id = (SELECT engram_current_tenant())) '
                   'WITH CHECK (tenant_id = (SELECT engram_current_tenant()))', t);
    EXECUTE format('CREATE POLICY maintenance ON %I TO %I '
                   'USING (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant())) '
                   'WITH CHECK (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant()))',
                   t, current_user);
  END LOOP;
END
$$;
