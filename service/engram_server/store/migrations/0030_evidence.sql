-- Evidence: provenance and bi-temporal columns on memories, conflicts between
-- memories, unique typed edges, and kept space-profile runs.

-- How a memory came to be known, and when the fact held in the world.
ALTER TABLE memories
  ADD COLUMN origin     text NOT NULL DEFAULT '',
  ADD COLUMN valid_from timestamptz,
  ADD COLUMN valid_to   timestamptz,
  ADD CONSTRAINT memories_valid_interval
    CHECK (valid_to IS NULL OR valid_from IS NULL OR valid_to >= valid_from);

-- One edge per (source, target, kind): CreateEdge answers ALREADY_EXISTS and the
-- internal writers skip what is there. Earlier duplicates (none are written by
-- this code, but be safe) keep their oldest row.
DELETE FROM edges e USING edges d
 WHERE e.tenant_id = d.tenant_id AND e.source_id = d.source_id
   AND e.target_id = d.target_id AND e.kind = d.kind
   AND (e.create_time, e.id) > (d.create_time, d.id);
CREATE UNIQUE INDEX edges_unique ON edges (tenant_id, source_id, target_id, kind);
CREATE INDEX edges_by_time ON edges (tenant_id, create_time DESC, id DESC);

-- Memories that cannot all be true. `pair_key` is the sorted member ids: a set of
-- memories has one conflict ever, so a resolved conflict never reopens by itself.
CREATE TABLE conflicts (
  tenant_id       text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id              uuid NOT NULL,
  space           text NOT NULL,
  memory_ids      uuid[] NOT NULL CHECK (cardinality(memory_ids) >= 2),
  pair_key        text NOT NULL,
  detector        text NOT NULL,
  reason          text NOT NULL DEFAULT '',
  state           text NOT NULL DEFAULT 'OPEN' CHECK (state IN ('OPEN', 'RESOLVED')),
  resolution      text NOT NULL DEFAULT '',
  winner          uuid,
  resolution_note text NOT NULL DEFAULT '',
  resolver        text NOT NULL DEFAULT '',
  create_time     timestamptz NOT NULL DEFAULT now(),
  resolve_time    timestamptz,
  version         bigint NOT NULL DEFAULT 1,
  PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX conflicts_pair ON conflicts (tenant_id, pair_key);
CREATE INDEX conflicts_by_time ON conflicts (tenant_id, create_time DESC, id DESC);
CREATE INDEX conflicts_by_memory ON conflicts USING gin (memory_ids);

-- Space profiles, one row per kept run.
CREATE TABLE space_profiles (
  tenant_id    text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id           uuid NOT NULL,
  space        text NOT NULL,
  profile      jsonb NOT NULL,
  drift        boolean NOT NULL DEFAULT false,
  create_time  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX space_profiles_by_time ON space_profiles (tenant_id, create_time DESC, id DESC);

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['conflicts', 'space_profiles'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY tenant_isolation ON %I TO engram_app '
                   'USING (tenant_id = (SELECT engram_current_tenant())) '
                   'WITH CHECK (tenant_id = (SELECT engram_current_tenant()))', t);
    EXECUTE format('CREATE POLICY maintenance ON %I TO %I '
                   'USING (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant())) '
                   'WITH CHECK (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant()))',
                   t, current_user);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO engram_app', t);
  END LOOP;
END
$$;
