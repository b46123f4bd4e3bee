-- Pools: memory shared across agents and teams (PoolService), and groups of
-- agent identities (AdminService) that join pools as one member.
--
-- A publication shares a memory; it never copies it. The memory stays in its home
-- space and every read of a pool joins the live row, so a retraction, supersession
-- or expiry there reaches every pool at once. The deferred triggers at the end
-- also withdraw its publications, move the pool's slots and queue the sync and
-- topic events in the transaction that changed the memory.
--
-- Events: `pool_events` is each pool's log, numbered by `pool_state.seq`. The
-- counter row is locked by the transaction that appends until it commits, so a
-- pool's sequence numbers are gapless and increase in commit order: "everything
-- after cursor N" is complete, which SyncPool and SubscribeTopic rely on.
--
-- Lock order (every writer follows it, so they cannot deadlock): memory rows,
-- then pool, member and group rows, then the tenant's `tenant_state` row (taken
-- by the audit append), then publications, slots, trust and the pool's counter.
-- No pool table has a foreign key to `pools` (an insert would share-lock the pool
-- row after `tenant_state`); DeletePool deletes their rows itself.

CREATE TABLE principal_groups (
  tenant_id     text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id            text NOT NULL,
  display_name  text NOT NULL DEFAULT '',
  description   text NOT NULL DEFAULT '',
  create_time   timestamptz NOT NULL DEFAULT now(),
  update_time   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);

CREATE TABLE principal_group_members (
  tenant_id    text NOT NULL,
  group_id     text NOT NULL,
  principal    text NOT NULL,
  added_by     text NOT NULL DEFAULT '',
  create_time  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, group_id, principal),
  FOREIGN KEY (tenant_id, group_id) REFERENCES principal_groups (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX principal_group_members_by_principal ON principal_group_members (tenant_id, principal);

CREATE TABLE pools (
  tenant_id           text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id                  text NOT NULL,
  display_name        text NOT NULL,
  description         text NOT NULL DEFAULT '',
  gate                jsonb NOT NULL DEFAULT '{}',
  default_visibility  text NOT NULL DEFAULT 'POOL'
                        CHECK (default_visibility IN ('POOL', 'CONTRIBUTORS', 'TENANT')),
  initial_trust       double precision NOT NULL DEFAULT 0.5
                        CHECK (initial_trust >= 0 AND initial_trust <= 1),
  quick_window_seconds double precision NOT NULL DEFAULT 86400 CHECK (quick_window_seconds > 0),
  labels              jsonb NOT NULL DEFAULT '{}',
  creator             text NOT NULL,
  revision            bigint NOT NULL DEFAULT 1,
  create_request_id   text,
  create_time         timestamptz NOT NULL DEFAULT now(),
  update_time         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX pools_create_request ON pools (tenant_id, create_request_id)
  WHERE create_request_id IS NOT NULL;

-- The pool's event counter (see the header).
CREATE TABLE pool_state (
  tenant_id  text NOT NULL,
  pool_id    text NOT NULL,
  seq        bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, pool_id)
);

-- role: 1 READER, 2 WRITER, 3 OWNER. `id` is derived from the principal, so a
-- member removed and added again keeps its name (and finds its trust record).
CREATE TABLE pool_members (
  tenant_id    text NOT NULL,
  pool_id      text NOT NULL,
  id           text NOT NULL,
  principal    text NOT NULL,
  role         smallint NOT NULL CHECK (role BETWEEN 1 AND 3),
  added_by     text NOT NULL DEFAULT '',
  create_time  timestamptz NOT NULL DEFAULT now(),
  update_time  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, pool_id, id),
  UNIQUE (tenant_id, pool_id, principal)
);
CREATE INDEX pool_members_by_principal ON pool_members (tenant_id, principal);

-- `slot` is the memory's slot key, or `memories/{id}` for a memory without one.
CREATE TABLE publications (
  tenant_id        text NOT NULL,
  pool_id          text NOT NULL,
  id               uuid NOT NULL,
  memory_id        uuid NOT NULL,
  publisher        text NOT NULL,
  state            text NOT NULL
                     CHECK (state IN ('PUBLISHED', 'PENDING_REVIEW', 'REJECTED', 'WITHDRAWN')),
  visibility       text NOT NULL CHECK (visibility IN ('POOL', 'CONTRIBUTORS', 'TENANT')),
  topic            text NOT NULL DEFAULT '',
  slot_key         text NOT NULL DEFAULT '',
  slot             text NOT NULL,
  utility          double precision NOT NULL DEFAULT 0,
  findings         jsonb NOT NULL DEFAULT '[]',
  reviewer         text NOT NULL DEFAULT '',
  review_note      text NOT NULL DEFAULT '',
  withdraw_reason  text NOT NULL DEFAULT '',
  confirmed        boolean NOT NULL DEFAULT false,
  published_time   timestamptz,
  create_time      timestamptz NOT NULL DEFAULT now(),
  update_time      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, pool_id, id)
);
-- A memory has at most one live (published or held) publication per pool.
CREATE UNIQUE INDEX publications_live ON publications (tenant_id, pool_id, memory_id)
  WHERE state IN ('PUBLISHED', 'PENDING_REVIEW');
CREATE INDEX publications_live_by_memory ON publications (tenant_id, memory_id)
  WHERE state IN ('PUBLISHED', 'PENDING_REVIEW');
CREATE INDEX publications_by_pool_time ON publications (tenant_id, pool_id, create_time DESC, id DESC);
CREATE INDEX publications_slot ON publications (tenant_id, pool_id, slot, published_time DESC)
  WHERE state = 'PUBLISHED';

-- What each slot of a pool holds, per audience: `readers` see POOL and TENANT
-- publications, `contributors` (writers and owners) every publication. A row
-- stays after its slot empties, keeping the slot's version.
CREATE TABLE pool_slots (
  tenant_id       text NOT NULL,
  pool_id         text NOT NULL,
  audience        text NOT NULL CHECK (audience IN ('readers', 'contributors')),
  slot            text NOT NULL,
  publication_id  uuid,
  memory_id       uuid,
  revision        bigint,
  topic           text NOT NULL DEFAULT '',
  version         bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, pool_id, audience, slot)
);

-- The pool's log. kind 'slot': a slot delta for one audience (op ADD, REPLACE,
-- REMOVE; old and new memory). kind 'topic': a publication event on its topic
-- channel (event PUBLISHED, WITHDRAWN, REPLACED) with the publication's
-- visibility at the time.
CREATE TABLE pool_events (
  tenant_id       text NOT NULL,
  pool_id         text NOT NULL,
  seq             bigint NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('slot', 'topic')),
  audience        text NOT NULL DEFAULT '',
  slot            text NOT NULL DEFAULT '',
  op              text NOT NULL DEFAULT '',
  old_memory      uuid,
  new_memory      uuid,
  publication_id  uuid,
  version         bigint NOT NULL DEFAULT 0,
  topic           text NOT NULL DEFAULT '',
  event           text NOT NULL DEFAULT '',
  visibility      text NOT NULL DEFAULT '',
  create_time     timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, pool_id, seq)
);
CREATE INDEX pool_events_slots ON pool_events (tenant_id, pool_id, audience, slot, seq)
  WHERE kind = 'slot';
CREATE INDEX pool_events_topics ON pool_events (tenant_id, pool_id, topic, seq)
  WHERE kind = 'topic';

-- The counts behind each publisher's trust in a pool (kept per principal).
CREATE TABLE pool_trust (
  tenant_id                  text NOT NULL,
  pool_id                    text NOT NULL,
  principal                  text NOT NULL,
  published_count            bigint NOT NULL DEFAULT 0,
  used_count                 bigint NOT NULL DEFAULT 0,
  confirmed_count            bigint NOT NULL DEFAULT 0,
  quickly_invalidated_count  bigint NOT NULL DEFAULT 0,
  update_time                timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, pool_id, principal)
);

-- Row-level security, as in 0013: the server role sees its transaction's tenant,
-- the owner role (SECURITY DEFINER maintenance) may act platform-wide.
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['principal_groups', 'principal_group_members', 'pools', 'pool_state',
                           'pool_members', 'publications', 'pool_slots', 'pool_events',
                           'pool_trust'] LOOP
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

-- The next number of a pool's log; locks the pool's counter until commit.
CREATE FUNCTION engram_pool_next_seq(p_tenant text, p_pool text) RETURNS bigint
  LANGUAGE sql AS $$
  INSERT INTO pool_state AS s (tenant_id, pool_id, seq) VALUES (p_tenant, p_pool, 1)
  ON CONFLICT (tenant_id, pool_id) DO UPDATE SET seq = s.seq + 1
  RETURNING s.seq
$$;

-- Appends a topic event for a publication (its topic and visibility as they are).
CREATE FUNCTION engram_pool_topic_event(p_tenant text, p_pool text, p_publication uuid,
                                        p_event text) RETURNS bigint
  LANGUAGE plpgsql AS $$
DECLARE
  s bigint;
BEGIN
  s := engram_pool_next_seq(p_tenant, p_pool);
  INSERT INTO pool_events (tenant_id, pool_id, seq, kind, publication_id, topic, event, visibility,
                           new_memory)
  SELECT p_tenant, p_pool, s, 'topic', p.id, p.topic, p_event, p.visibility, p.memory_id
    FROM publications p WHERE p.tenant_id = p_tenant AND p.pool_id = p_pool AND p.id = p_publication;
  PERFORM pg_notify('engram_pool', p_tenant || '/' || p_pool);
  RETURN s;
END
$$;

-- Brings one slot of a pool up to date for both audiences: its holder is the
-- latest published publication of the slot whose memory is ACTIVE (CONTRIBUTORS
-- publications only for the contributors' audience). Appends a slot delta for
-- each audience whose holder (or the holder's revision) changed. Returns, for
-- the readers' audience, the publication it replaced or removed, if any.
CREATE FUNCTION engram_pool_slot_sync(p_tenant text, p_pool text, p_slot text) RETURNS uuid
  LANGUAGE plpgsql AS $$
DECLARE
  aud text;
  want record;
  cur record;
  op text;
  s bigint;
  displaced uuid;
BEGIN
  FOREACH aud IN ARRAY ARRAY['readers', 'contributors'] LOOP
    SELECT p.id AS publication_id, p.memory_id, p.topic, m.revision INTO want
      FROM publications p
      JOIN memories m ON m.tenant_id = p.tenant_id AND m.id = p.memory_id
     WHERE p.tenant_id = p_tenant AND p.pool_id = p_pool AND p.slot = p_slot
       AND p.state = 'PUBLISHED' AND m.status = 'ACTIVE'
       AND (aud = 'contributors' OR p.visibility <> 'CONTRIBUTORS')
     ORDER BY p.published_time DESC, p.id DESC
     LIMIT 1;
    SELECT ps.publication_id, ps.memory_id, ps.revision, ps.version, ps.topic INTO cur
      FROM pool_slots ps
     WHERE ps.tenant_id = p_tenant AND ps.pool_id = p_pool AND ps.audience = aud
       AND ps.slot = p_slot
       FOR UPDATE;
    IF want.publication_id IS NULL AND cur.memory_id IS NULL THEN
      CONTINUE;
    END IF;
    IF want.publication_id IS NOT NULL AND cur.memory_id IS NOT NULL
       AND want.publication_id = cur.publication_id AND want.revision = cur.revision THEN
      CONTINUE;
    END IF;
    op := CASE WHEN cur.memory_id IS NULL THEN 'ADD'
               WHEN want.publication_id IS NULL THEN 'REMOVE'
               ELSE 'REPLACE' END;
    IF aud = 'readers' AND cur.publication_id IS DISTINCT FROM want.publication_id THEN
      displaced := cur.publication_id;
    END IF;
    s := engram_pool_next_seq(p_tenant, p_pool);
    INSERT INTO pool_slots AS ps (tenant_id, pool_id, audience, slot, publication_id, memory_id,
                                  revision, topic, version)
    VALUES (p_tenant, p_pool, aud, p_slot, want.publication_id, want.memory_id, want.revision,
            coalesce(want.topic, ''), 1)
    ON CONFLICT (tenant_id, pool_id, audience, slot) DO UPDATE
       SET publication_id = EXCLUDED.publication_id, memory_id = EXCLUDED.memory_id,
           revision = EXCLUDED.revision, topic = EXCLUDED.topic, version = ps.version + 1;
    INSERT INTO pool_events (tenant_id, pool_id, seq, kind, audience, slot, op, old_memory,
                             new_memory, publication_id, version, topic)
    VALUES (p_tenant, p_pool, s, 'slot', aud, p_slot, op, cur.memory_id, want.memory_id,
            coalesce(want.publication_id, cur.publication_id), coalesce(cur.version, 0) + 1,
            coalesce(want.topic, cur.topic, ''));
    PERFORM pg_notify('engram_pool', p_tenant || '/' || p_pool);
  END LOOP;
  RETURN displaced;
END
$$;

-- A published memory changed in its home space. Runs deferred, at commit, after
-- the change's own audit append took the tenant's lock: a memory no longer
-- ACTIVE (retracted, superseded, expired, purged) withdraws its live
-- publications (counting a quick invalidation against the publisher when it
-- came within the pool's window); a revision moves the slots it holds; a grade
-- raised to CORROBORATED or OFFICIAL confirms its publications.
CREATE FUNCTION engram_pool_memory_changed() RETURNS trigger
  LANGUAGE plpgsql AS $$
DECLARE
  pub record;
  now_status text;
  now_evidence text;
  mem_space text;
  reason text;
  quick boolean;
  s bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM publications
                  WHERE tenant_id = OLD.tenant_id AND memory_id = OLD.id
                    AND state IN ('PUBLISHED', 'PENDING_REVIEW')) THEN
    RETURN NULL;
  END IF;
  SELECT m.status, m.evidence_level, m.space INTO now_status, now_evidence, mem_space
    FROM memories m WHERE m.tenant_id = OLD.tenant_id AND m.id = OLD.id;
  reason := CASE WHEN now_status IS NULL THEN 'memory purged'
                 ELSE 'memory ' || lower(now_status) END;
  FOR pub IN
    SELECT p.*, pl.quick_window_seconds
      FROM publications p JOIN pools pl ON pl.tenant_id = p.tenant_id AND pl.id = p.pool_id
     WHERE p.tenant_id = OLD.tenant_id AND p.memory_id = OLD.id
       AND p.state IN ('PUBLISHED', 'PENDING_REVIEW')
     ORDER BY p.pool_id
       FOR UPDATE OF p
  LOOP
    IF now_status IS DISTINCT FROM 'ACTIVE' THEN
      UPDATE publications SET state = 'WITHDRAWN', withdraw_reason = reason,
             update_time = clock_timestamp()
       WHERE tenant_id = pub.tenant_id AND pool_id = pub.pool_id AND id = pub.id;
      UPDATE tenant_state SET audit_seq = audit_seq + 1 WHERE tenant_id = pub.tenant_id
        RETURNING audit_seq INTO s;
      INSERT INTO audit_log (tenant_id, seq, action, memory_id, space, actor, reason, details)
      VALUES (pub.tenant_id, s, 'PUBLICATION', pub.memory_id, coalesce(mem_space, ''),
              'engram', reason,
              jsonb_build_object('pool', 'pools/' || pub.pool_id,
                                 'publication', 'pools/' || pub.pool_id || '/publications/' || pub.id,
                                 'event', 'withdrawn'));
      PERFORM pg_notify('engram_audit', pub.tenant_id);
      IF pub.state = 'PUBLISHED' THEN
        PERFORM engram_pool_topic_event(pub.tenant_id, pub.pool_id, pub.id, 'WITHDRAWN');
        quick := now_status IN ('RETRACTED', 'SUPERSEDED')
                 AND pub.published_time IS NOT NULL
                 AND clock_timestamp() - pub.published_time
                     <= pub.quick_window_seconds * interval '1 second';
        IF quick THEN
          INSERT INTO pool_trust AS t (tenant_id, pool_id, principal, quickly_invalidated_count)
          VALUES (pub.tenant_id, pub.pool_id, pub.publisher, 1)
          ON CONFLICT (tenant_id, pool_id, principal) DO UPDATE
             SET quickly_invalidated_count = t.quickly_invalidated_count + 1,
                 update_time = now();
        END IF;
      END IF;
    ELSIF pub.state = 'PUBLISHED' AND NOT pub.confirmed
          AND now_evidence IN ('CORROBORATED', 'OFFICIAL') THEN
      UPDATE publications SET confirmed = true
       WHERE tenant_id = pub.tenant_id AND pool_id = pub.pool_id AND id = pub.id;
      INSERT INTO pool_trust AS t (tenant_id, pool_id, principal, confirmed_count)
      VALUES (pub.tenant_id, pub.pool_id, pub.publisher, 1)
      ON CONFLICT (tenant_id, pool_id, principal) DO UPDATE
         SET confirmed_count = t.confirmed_count + 1, update_time = now();
    END IF;
    IF pub.state = 'PUBLISHED' THEN
      PERFORM engram_pool_slot_sync(pub.tenant_id, pub.pool_id, pub.slot);
    END IF;
  END LOOP;
  -- The index payload lists the memory's pools: refresh it.
  INSERT INTO outbox (tenant_id, memory_id, op) VALUES (OLD.tenant_id, OLD.id, 'upsert');
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER memories_pool_update AFTER UPDATE ON memories
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW
  WHEN (OLD.status = 'ACTIVE' AND (NEW.status <> 'ACTIVE' OR NEW.revision <> OLD.revision
        OR NEW.evidence_level <> OLD.evidence_level))
  EXECUTE FUNCTION engram_pool_memory_changed();

CREATE CONSTRAINT TRIGGER memories_pool_delete AFTER DELETE ON memories
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW
  WHEN (OLD.status = 'ACTIVE')
  EXECUTE FUNCTION engram_pool_memory_changed();
