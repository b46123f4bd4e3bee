-- One counter per space that every purge of the space (or of one of its
-- sessions) raises in its own transaction. A service that derives memories from
-- data it read earlier (Consolidate from a session buffer, Dream from stored
-- decisions) reads the counter before it reads, and its write holds the row
-- (FOR SHARE) and checks the counter is unchanged: a purge that ran meanwhile
-- makes the write fail instead of storing what was derived from erased data,
-- and a purge that starts meanwhile waits for the write and then erases it too.
CREATE TABLE erasure_epochs (
  tenant_id  text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  space      text NOT NULL,
  epoch      bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, space)
);

ALTER TABLE erasure_epochs ENABLE ROW LEVEL SECURITY;
ALTER TABLE erasure_epochs FORCE ROW LEVEL SECURITY;
DO $$
BEGIN
  EXECUTE 'CREATE POLICY tenant_isolation ON erasure_epochs TO engram_app '
          'USING (tenant_id = (SELECT engram_current_tenant())) '
          'WITH CHECK (tenant_id = (SELECT engram_current_tenant()))';
  EXECUTE format('CREATE POLICY maintenance ON erasure_epochs TO %I '
                 'USING (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant())) '
                 'WITH CHECK (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant()))',
                 current_user);
END
$$;
GRANT SELECT, INSERT, UPDATE ON erasure_epochs TO engram_app;
