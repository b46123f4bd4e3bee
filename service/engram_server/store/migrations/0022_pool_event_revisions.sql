-- Pools: a slot delta records the revisions of what the slot held before and
-- holds after, so SyncPool sends `old_memory` as it was then (the memory at that
-- revision, from memory_revisions), not as it is now. Earlier events have none
-- (NULL): they are sent as the memory is now.

ALTER TABLE pool_events
  ADD COLUMN old_revision bigint,
  ADD COLUMN new_revision bigint;

-- As in 0020, recording both revisions in the slot delta.
CREATE OR REPLACE FUNCTION engram_pool_slot_sync(p_tenant text, p_pool text, p_slot text)
  RETURNS uuid
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
                             new_memory, old_revision, new_revision, publication_id, version,
                             topic)
    VALUES (p_tenant, p_pool, s, 'slot', aud, p_slot, op, cur.memory_id, want.memory_id,
            cur.revision, want.revision,
            coalesce(want.publication_id, cur.publication_id), coalesce(cur.version, 0) + 1,
            coalesce(want.topic, cur.topic, ''));
    PERFORM pg_notify('engram_pool', p_tenant || '/' || p_pool);
  END LOOP;
  RETURN displaced;
END
$$;
