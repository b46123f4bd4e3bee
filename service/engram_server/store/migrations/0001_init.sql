-- Engram schema v1: tenants, API keys, memories, revisions, audit log, outbox,
-- idempotency records and validation policies.
--
-- Isolation model: every tenant table has FORCE ROW LEVEL SECURITY and a policy on
-- `engram.tenant_id`, which the server sets per transaction. The server runs as
-- role `engram_app`, which owns nothing and so cannot switch RLS off. The few
-- operations that must cross tenants (key lookup before the tenant is known,
-- deleting a whole tenant) are SECURITY DEFINER functions owned by the migrating
-- role.

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'engram_app') THEN
    CREATE ROLE engram_app NOLOGIN NOBYPASSRLS;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;  -- another database of this cluster created it concurrently
END
$$;

DO $$
BEGIN
  EXECUTE format('GRANT engram_app TO %I', current_user);
EXCEPTION WHEN OTHERS THEN
  NULL;  -- already a member, or a superuser that needs no membership
END
$$;

CREATE FUNCTION engram_current_tenant() RETURNS text
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT NULLIF(current_setting('engram.tenant_id', true), '') $$;

CREATE FUNCTION engram_is_platform() RETURNS boolean
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT coalesce(current_setting('engram.platform', true), '') = 'on' $$;

CREATE TABLE tenants (
  id                       text PRIMARY KEY,
  display_name             text NOT NULL DEFAULT '',
  quota_requests_per_second integer NOT NULL DEFAULT 0 CHECK (quota_requests_per_second >= 0),
  quota_max_memories       bigint NOT NULL DEFAULT 0 CHECK (quota_max_memories >= 0),
  quota_max_content_bytes  integer NOT NULL DEFAULT 0 CHECK (quota_max_content_bytes >= 0),
  create_time              timestamptz NOT NULL DEFAULT now()
);

-- One row per tenant, locked by every audited write until commit. That lock makes
-- audit sequence numbers gapless and increasing in commit order, which is what
-- lets WatchTransitions resume from a cursor without ever skipping a transition.
CREATE TABLE tenant_state (
  tenant_id      text PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  audit_seq      bigint NOT NULL DEFAULT 0,
  live_memories  bigint NOT NULL DEFAULT 0
);

CREATE TABLE api_keys (
  tenant_id      text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id             text NOT NULL,
  display_name   text NOT NULL DEFAULT '',
  scopes         text[] NOT NULL,
  agent          text,
  secret_hash    bytea NOT NULL UNIQUE,
  secret_prefix  text NOT NULL DEFAULT '',
  expire_time    timestamptz,
  revoke_time    timestamptz,
  create_time    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);

CREATE TABLE memories (
  tenant_id          text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id                 uuid NOT NULL,
  space              text NOT NULL,
  session            text NOT NULL DEFAULT '',
  thread             text NOT NULL DEFAULT '',
  kind               text NOT NULL,
  content            text NOT NULL,
  structured_content jsonb,
  source             text NOT NULL DEFAULT '',
  agent              text NOT NULL DEFAULT '',
  confidence         double precision NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
  importance         double precision NOT NULL CHECK (importance >= 0 AND importance <= 1),
  evidence_level     text NOT NULL DEFAULT 'UNSPECIFIED',
  tags               text[] NOT NULL DEFAULT '{}',
  slot_key           text NOT NULL DEFAULT '',
  topic              text NOT NULL DEFAULT '',
  depends_on         uuid[] NOT NULL DEFAULT '{}',
  status             text NOT NULL CHECK (status IN ('PROPOSED', 'ACTIVE', 'PENDING_CONFIRMATION',
                       'REJECTED', 'RETRACTED', 'EXPIRED', 'SUPERSEDED')),
  create_time        timestamptz NOT NULL DEFAULT now(),
  update_time        timestamptz NOT NULL DEFAULT now(),
  expire_time        timestamptz,
  retract_time       timestamptz,
  retraction_reason  text NOT NULL DEFAULT '',
  content_hash       text NOT NULL,
  revision           bigint NOT NULL DEFAULT 1,
  superseded_by      uuid,
  validation_notes   text[] NOT NULL DEFAULT '{}',
  attributes         jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (tenant_id, id)
);

-- Dedup: identical content may be live only once per space.
CREATE UNIQUE INDEX memories_live_content ON memories (tenant_id, space, content_hash)
  WHERE status IN ('PROPOSED', 'ACTIVE', 'PENDING_CONFIRMATION');
CREATE INDEX memories_by_time ON memories (tenant_id, create_time DESC, id DESC);
CREATE INDEX memories_by_space_time ON memories (tenant_id, space, create_time DESC, id DESC);
CREATE INDEX memories_by_session ON memories (tenant_id, space, session) WHERE session <> '';
CREATE INDEX memories_due ON memories (tenant_id, expire_time)
  WHERE status = 'ACTIVE' AND expire_time IS NOT NULL;
CREATE INDEX memories_due_global ON memories (expire_time)
  WHERE status = 'ACTIVE' AND expire_time IS NOT NULL;
CREATE INDEX memories_live_slot ON memories (tenant_id, space, slot_key)
  WHERE status = 'ACTIVE' AND slot_key <> '';
CREATE INDEX memories_tags ON memories USING gin (tags);
CREATE INDEX memories_depends_on ON memories USING gin (depends_on);

CREATE TABLE memory_revisions (
  tenant_id    text NOT NULL,
  memory_id    uuid NOT NULL,
  revision     bigint NOT NULL,
  snapshot     jsonb NOT NULL,
  actor        text NOT NULL,
  create_time  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, memory_id, revision),
  FOREIGN KEY (tenant_id, memory_id) REFERENCES memories (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE audit_log (
  tenant_id    text NOT NULL,
  seq          bigint NOT NULL,
  action       text NOT NULL,
  memory_id    uuid,
  space        text NOT NULL DEFAULT '',
  from_status  text NOT NULL DEFAULT '',
  to_status    text NOT NULL DEFAULT '',
  actor        text NOT NULL,
  reason       text NOT NULL DEFAULT '',
  request_id   text NOT NULL DEFAULT '',
  details      jsonb NOT NULL DEFAULT '{}',
  create_time  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, seq)
);
CREATE INDEX audit_log_by_memory ON audit_log (tenant_id, memory_id, seq) WHERE memory_id IS NOT NULL;
CREATE INDEX audit_log_by_space ON audit_log (tenant_id, space, seq);

-- The audit log is append-only. UPDATE and TRUNCATE always fail; DELETE fails
-- except inside engram_delete_tenant(), which runs as the owning role.
CREATE FUNCTION engram_audit_log_guard() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE'
     AND current_setting('engram.audit_purge', true) = 'on'
     AND current_user <> 'engram_app' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION engram_audit_log_guard();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION engram_audit_log_guard();

-- Transactional outbox: every change that a derived index (vectors, lexical)
-- must follow is queued here in the same transaction as the change.
CREATE TABLE outbox (
  id            bigserial PRIMARY KEY,
  tenant_id     text NOT NULL,
  memory_id     uuid,
  op            text NOT NULL,
  payload       jsonb NOT NULL DEFAULT '{}',
  attempts      integer NOT NULL DEFAULT 0,
  available_at  timestamptz NOT NULL DEFAULT now(),
  create_time   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_ready ON outbox (available_at, id);
CREATE INDEX outbox_by_tenant ON outbox (tenant_id, id);

-- Idempotency: the first outcome of every write that carried a request_id.
CREATE TABLE idempotency (
  tenant_id    text NOT NULL,
  request_id   text NOT NULL,
  method       text NOT NULL,
  fingerprint  text NOT NULL,
  result       jsonb,
  create_time  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, request_id)
);
CREATE INDEX idempotency_age ON idempotency (create_time);

-- Validation policy of a tenant (space = '') or of one space.
CREATE TABLE policies (
  tenant_id    text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  space        text NOT NULL,
  policy       jsonb NOT NULL,
  etag         text NOT NULL,
  update_time  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, space)
);

-- Row-level security.
ALTER TABLE tenants ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenants FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tenants
  USING (engram_is_platform() OR id = engram_current_tenant())
  WITH CHECK (engram_is_platform());

ALTER TABLE tenant_state ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_state FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tenant_state
  USING (engram_is_platform() OR tenant_id = engram_current_tenant())
  WITH CHECK (engram_is_platform() OR tenant_id = engram_current_tenant());

ALTER TABLE api_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE api_keys FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON api_keys
  USING (engram_is_platform() OR tenant_id = engram_current_tenant())
  WITH CHECK (engram_is_platform() OR tenant_id = engram_current_tenant());

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['memories', 'memory_revisions', 'audit_log', 'outbox',
                           'idempotency', 'policies'] LOOP
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

-- Key lookup happens before the tenant is known, so it is the one read of
-- api_keys that crosses tenants: by exact secret hash, returning one row.
CREATE FUNCTION engram_authenticate(p_secret_hash bytea)
  RETURNS TABLE (tenant_id text, id text, scopes text[], agent text,
                 expire_time timestamptz, revoke_time timestamptz)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public
  SET engram.platform = 'on'
  AS $$
    SELECT k.tenant_id, k.id, k.scopes, k.agent, k.expire_time, k.revoke_time
      FROM public.api_keys k WHERE k.secret_hash = p_secret_hash
  $$;

-- Deletes every row a tenant owns, its audit log included, and reports counts.
CREATE FUNCTION engram_delete_tenant(p_tenant text) RETURNS jsonb
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public
  SET engram.platform = 'on'
  SET engram.audit_purge = 'on'
  AS $$
DECLARE
  counts jsonb := '{}';
  n bigint;
  t text;
BEGIN
  PERFORM set_config('engram.tenant_id', p_tenant, true);
  FOREACH t IN ARRAY ARRAY['memory_revisions', 'memories', 'audit_log', 'outbox',
                           'idempotency', 'policies', 'api_keys', 'tenant_state'] LOOP
    EXECUTE format('DELETE FROM public.%I WHERE tenant_id = $1', t) USING p_tenant;
    GET DIAGNOSTICS n = ROW_COUNT;
    counts := counts || jsonb_build_object(t, n);
  END LOOP;
  DELETE FROM public.tenants WHERE id = p_tenant;
  GET DIAGNOSTICS n = ROW_COUNT;
  counts := counts || jsonb_build_object('tenants', n);
  RETURN counts;
END
$$;

REVOKE ALL ON FUNCTION engram_delete_tenant(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION engram_authenticate(bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_delete_tenant(text) TO engram_app;
GRANT EXECUTE ON FUNCTION engram_authenticate(bytea) TO engram_app;

GRANT USAGE ON SCHEMA public TO engram_app;
GRANT SELECT, INSERT, UPDATE ON tenants, tenant_state, api_keys TO engram_app;
GRANT DELETE ON api_keys TO engram_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON memories, memory_revisions, outbox, idempotency,
  policies TO engram_app;
GRANT SELECT, INSERT ON audit_log TO engram_app;
GRANT USAGE, SELECT ON SEQUENCE outbox_id_seq TO engram_app;
