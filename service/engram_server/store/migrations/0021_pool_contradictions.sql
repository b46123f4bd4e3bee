-- Pools: a publisher's trust also falls when what it published is contradicted
-- soon after publishing, that is when a conflict (EvidenceService) is opened
-- against the memory within the pool's quick-invalidation window.
--
-- A publication counts as quickly invalidated at most once (`quickly_invalidated`),
-- whichever comes first: contradicted, retracted or superseded within the window.
-- `pool_trust.contradicted_count` says how many of a publisher's quick
-- invalidations were contradictions.
--
-- Conflicts are opened through one insert (store/evidence.py), which also queues
-- the conflict in `pool_conflict_checks`. The queue's trigger runs deferred, at
-- commit, after the transaction's audit append took the tenant's lock: the lock
-- order of migration 0020 (tenant_state before publications and trust) holds.
-- (The conflicts table comes after this migration on a fresh database, so the
-- trigger cannot sit on it.)

ALTER TABLE publications ADD COLUMN quickly_invalidated boolean NOT NULL DEFAULT false;
ALTER TABLE pool_trust ADD COLUMN contradicted_count bigint NOT NULL DEFAULT 0;

CREATE TABLE pool_conflict_checks (
  tenant_id    text NOT NULL,
  conflict_id  uuid NOT NULL,
  PRIMARY KEY (tenant_id, conflict_id)
);
ALTER TABLE pool_conflict_checks ENABLE ROW LEVEL SECURITY;
ALTER TABLE pool_conflict_checks FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON pool_conflict_checks TO engram_app
  USING (tenant_id = (SELECT engram_current_tenant()))
  WITH CHECK (tenant_id = (SELECT engram_current_tenant()));
DO $$
BEGIN
  EXECUTE format('CREATE POLICY maintenance ON pool_conflict_checks TO %I '
                 'USING (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant())) '
                 'WITH CHECK (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant()))',
                 current_user);
END
$$;
GRANT SELECT, INSERT, UPDATE, DELETE ON pool_conflict_checks TO engram_app;

-- Counts a quick invalidation of one publication against its publisher, once.
CREATE FUNCTION engram_pool_quick_invalidation(p_tenant text, p_pool text, p_publication uuid,
                                               p_contradicted boolean) RETURNS void
  LANGUAGE plpgsql AS $$
DECLARE
  who text;
BEGIN
  UPDATE publications SET quickly_invalidated = true
   WHERE tenant_id = p_tenant AND pool_id = p_pool AND id = p_publication
     AND NOT quickly_invalidated
  RETURNING publisher INTO who;
  IF who IS NULL THEN
    RETURN;
  END IF;
  INSERT INTO pool_trust AS t (tenant_id, pool_id, principal, quickly_invalidated_count,
                               contradicted_count)
  VALUES (p_tenant, p_pool, who, 1, CASE WHEN p_contradicted THEN 1 ELSE 0 END)
  ON CONFLICT (tenant_id, pool_id, principal) DO UPDATE
     SET quickly_invalidated_count = t.quickly_invalidated_count + 1,
         contradicted_count = t.contradicted_count + EXCLUDED.contradicted_count,
         update_time = now();
END
$$;

-- A conflict was opened: each live publication of its memories published within
-- its pool's window counts a quick invalidation against its publisher. A memory
-- graded OFFICIAL is the reference the others are measured against, not the one
-- contradicted, so its publications are not counted.
CREATE FUNCTION engram_pool_conflict_opened() RETURNS trigger
  LANGUAGE plpgsql AS $$
DECLARE
  pub record;
BEGIN
  FOR pub IN
    SELECT p.pool_id, p.id
      FROM conflicts c
      JOIN publications p ON p.tenant_id = c.tenant_id AND p.memory_id = ANY(c.memory_ids)
      JOIN pools pl ON pl.tenant_id = p.tenant_id AND pl.id = p.pool_id
      JOIN memories m ON m.tenant_id = p.tenant_id AND m.id = p.memory_id
     WHERE c.tenant_id = NEW.tenant_id AND c.id = NEW.conflict_id
       AND p.state = 'PUBLISHED' AND NOT p.quickly_invalidated
       AND m.evidence_level <> 'OFFICIAL'
       AND clock_timestamp() - p.published_time <= pl.quick_window_seconds * interval '1 second'
     ORDER BY p.pool_id, p.id
       FOR UPDATE OF p
  LOOP
    PERFORM engram_pool_quick_invalidation(NEW.tenant_id, pub.pool_id, pub.id, true);
  END LOOP;
  DELETE FROM pool_conflict_checks
   WHERE tenant_id = NEW.tenant_id AND conflict_id = NEW.conflict_id;
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER pool_conflict_checks_opened AFTER INSERT ON pool_conflict_checks
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW
  EXECUTE FUNCTION engram_pool_conflict_opened();

-- As in 0020, but a retraction or supersession within the window counts through
-- engram_pool_quick_invalidation: not again for a publication already counted
-- (contradicted first).
CREATE OR REPLACE FUNCTION engram_pool_memory_changed() RETURNS trigger
  LANGUAGE plpgsql AS $$
DECLARE
  pub record;
  now_status text;
  now_evidence text;
  mem_space text;
  reason text;
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
        IF now_status IN ('RETRACTED', 'SUPERSEDED')
           AND pub.published_time IS NOT NULL
           AND clock_timestamp() - pub.published_time
               <= pub.quick_window_seconds * interval '1 second' THEN
          PERFORM engram_pool_quick_invalidation(pub.tenant_id, pub.pool_id, pub.id, false);
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
