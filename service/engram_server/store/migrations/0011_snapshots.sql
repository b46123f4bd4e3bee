-- Snapshots of a space: point-in-time copies of its live memories.
--
-- `snapshots` holds one row per snapshot; `snapshot_memories` one row per copied
-- memory, keyed by the memory's identity across restores (`match_key`: its own id,
-- or the original's id when a restore re-created it). A row with `view_expire_time`
-- set is not a snapshot anyone took: it is the state of a space that a paged
-- DiffSnapshots against "now" keeps comparing with, dropped when it expires.

CREATE TABLE snapshots (
  tenant_id          text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id                 text NOT NULL,
  space              text NOT NULL,
  include_subspaces  boolean NOT NULL DEFAULT false,
  description        text NOT NULL DEFAULT '',
  labels             jsonb NOT NULL DEFAULT '{}',
  memory_count       bigint NOT NULL DEFAULT 0,
  audit_seq          bigint NOT NULL DEFAULT 0,
  creator            text NOT NULL DEFAULT '',
  create_time        timestamptz NOT NULL DEFAULT now(),
  view_expire_time   timestamptz,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX snapshots_by_time ON snapshots (tenant_id, create_time DESC, id DESC)
  WHERE view_expire_time IS NULL;
CREATE INDEX snapshots_views ON snapshots (tenant_id, view_expire_time)
  WHERE view_expire_time IS NOT NULL;

CREATE TABLE snapshot_memories (
  tenant_id        text NOT NULL,
  snapshot_id      text NOT NULL,
  match_key        uuid NOT NULL,
  memory_id        uuid NOT NULL,
  -- Hash of the fields a diff compares; equal fingerprints mean "unchanged".
  fingerprint      text NOT NULL,
  -- `depends_on` of the memory, each entry replaced by its match key.
  depends_on_keys  uuid[] NOT NULL DEFAULT '{}',
  memory           jsonb NOT NULL,
  PRIMARY KEY (tenant_id, snapshot_id, match_key),
  FOREIGN KEY (tenant_id, snapshot_id) REFERENCES snapshots (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX snapshot_memories_by_memory ON snapshot_memories (tenant_id, memory_id);

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['snapshots', 'snapshot_memories'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    -- The second arm admits only SECURITY DEFINER maintenance functions (owner
    -- role, platform flag set by the function itself), never the server role.
    EXECUTE format('CREATE POLICY tenant_isolation ON %I '
                   'USING (tenant_id = (SELECT engram_current_tenant()) '
                   '       OR (current_user <> ''engram_app'' AND engram_is_platform())) '
                   'WITH CHECK (tenant_id = (SELECT engram_current_tenant()))', t);
  END LOOP;
END
$$;

GRANT SELECT, INSERT, UPDATE, DELETE ON snapshots, snapshot_memories TO engram_app;

-- A purge is a hard delete: copies of purged memories must not outlive them in
-- snapshots (nor come back through a restore). This is the one change a snapshot
-- ever sees besides being deleted.
CREATE FUNCTION engram_forget_snapshot_copies() RETURNS trigger
  LANGUAGE plpgsql
  SET search_path = pg_catalog, public
  AS $$
BEGIN
  WITH gone AS (
    DELETE FROM snapshot_memories s USING purged p
     WHERE s.tenant_id = p.tenant_id AND s.memory_id = p.id
    RETURNING s.tenant_id, s.snapshot_id
  )
  UPDATE snapshots sn SET memory_count = sn.memory_count - g.n
    FROM (SELECT tenant_id, snapshot_id, count(*) AS n FROM gone GROUP BY 1, 2) g
   WHERE sn.tenant_id = g.tenant_id AND sn.id = g.snapshot_id;
  RETURN NULL;
END
$$;
CREATE TRIGGER memories_forget_snapshot_copies AFTER DELETE ON memories
  REFERENCING OLD TABLE AS purged
  FOR EACH STATEMENT EXECUTE FUNCTION engram_forget_snapshot_copies();

-- Tenant deletion purges the snapshot tables too. It now also sweeps every other
-- table with a tenant column, so a table added later is purged even before its
-- migration extends the known list. Each table is deleted on its own so its count
-- is its own rows rather than hidden in a cascade: the swept tables first (they
-- tend to reference memories), then the known ones, children before parents. A
-- delete that another table's foreign key still blocks is retried after the rest.
CREATE OR REPLACE FUNCTION engram_delete_tenant(p_tenant text) RETURNS jsonb
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public
  SET engram.platform = 'on'
  SET engram.audit_purge = 'on'
  AS $$
DECLARE
  known text[] := ARRAY['snapshot_memories', 'snapshots', 'memory_revisions', 'memories',
                        'audit_log', 'outbox', 'idempotency', 'policies', 'api_keys',
                        'tenant_state'];
  counts jsonb := '{}';
  n bigint;
  t text;
  pending text[];
  blocked text[];
BEGIN
  PERFORM set_config('engram.tenant_id', p_tenant, true);
  SELECT coalesce(array_agg(c.relname::text ORDER BY c.relname), '{}') INTO pending
    FROM pg_class c
    JOIN pg_namespace ns ON ns.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
   WHERE ns.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
     AND c.relname <> 'tenants' AND c.relname <> ALL (known);
  pending := pending || known;
  WHILE cardinality(pending) > 0 LOOP
    blocked := '{}';
    FOREACH t IN ARRAY pending LOOP
      BEGIN
        EXECUTE format('DELETE FROM public.%I WHERE tenant_id = $1', t) USING p_tenant;
        GET DIAGNOSTICS n = ROW_COUNT;
        counts := counts || jsonb_build_object(t, n);
      EXCEPTION WHEN foreign_key_violation THEN
        blocked := blocked || t;
      END;
    END LOOP;
    IF cardinality(blocked) = cardinality(pending) THEN
      RAISE EXCEPTION 'cannot purge tenant %: tables % reference each other', p_tenant, blocked;
    END IF;
    pending := blocked;
  END LOOP;

  DELETE FROM public.tenants WHERE id = p_tenant;
  GET DIAGNOSTICS n = ROW_COUNT;
  counts := counts || jsonb_build_object('tenants', n);
  RETURN counts;
END
$$;

REVOKE ALL ON FUNCTION engram_delete_tenant(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_delete_tenant(text) TO engram_app;
