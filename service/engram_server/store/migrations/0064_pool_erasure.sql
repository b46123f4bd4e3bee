-- A purge is a hard delete, in pools too. A purged memory's publications used to
-- keep its slot key and topic (on the publication, in the pool's slots and in
-- every entry of the pool's log about that slot or channel), so a key such as
-- `zebulon.ng::employer` outlived the erasure of the memory that held it.
--
-- Now, when a memory is deleted, each of its publications forgets the memory's
-- slot key, topic and review note. The slot (and the topic channel) is renamed,
-- in the publications, the slots and the log, to a label no one can read back:
-- `erased:` and the HMAC-SHA256 of the name under a key of the pool's own
-- (`pools.erasure_key`, random, never shown), unless another publication of the
-- pool whose memory still exists uses the same name (then the name is still held
-- by a live memory and is not erased data). A slot of an unslotted memory is
-- named after the memory (`memories/{id}`), which quotes nothing; it stays.
--
-- SyncPool then sends the REMOVE of the erased slot under the label, with the
-- removed memory's name as `old_memory.name`: a follower deletes the slot that
-- holds that memory (it learnt which from the ADD). A key per pool means the same
-- key erased in two pools gets two unrelated labels, and the label of a key
-- cannot be computed by anyone without the pool's key (no dictionary of likely
-- keys helps). The server can: a later publication of the same slot key
-- continues the erased slot's version, and SubscribeTopic and SyncPool find an
-- erased channel's events for a caller that names the channel.

ALTER TABLE pools ADD COLUMN erasure_key bytea NOT NULL
  DEFAULT decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex');

-- The purge trigger finds every publication of a memory, withdrawn ones included.
CREATE INDEX publications_by_memory ON publications (tenant_id, memory_id);

-- RFC 2104 HMAC over SHA-256 (pgcrypto is not assumed to be installed).
CREATE FUNCTION engram_hmac_sha256(p_key bytea, p_message bytea) RETURNS bytea
  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  k bytea := p_key;
  inner_pad bytea;
  outer_pad bytea;
BEGIN
  IF length(k) > 64 THEN
    k := sha256(k);
  END IF;
  k := k || decode(repeat('00', 64 - length(k)), 'hex');
  inner_pad := k;
  outer_pad := k;
  FOR i IN 0..63 LOOP
    inner_pad := set_byte(inner_pad, i, get_byte(k, i) # 54);   -- 0x36
    outer_pad := set_byte(outer_pad, i, get_byte(k, i) # 92);   -- 0x5c
  END LOOP;
  RETURN sha256(outer_pad || sha256(inner_pad || p_message));
END
$$;

-- The label an erased slot key or topic of a pool goes by.
CREATE FUNCTION engram_pool_erased_label(p_tenant text, p_pool text, p_name text) RETURNS text
  LANGUAGE sql STABLE AS $$
  SELECT 'erased:' || encode(engram_hmac_sha256(p.erasure_key, convert_to(p_name, 'UTF8')), 'hex')
    FROM pools p WHERE p.tenant_id = p_tenant AND p.id = p_pool
$$;

-- Renames a slot of a pool everywhere it is written, unless a publication of a
-- memory that still exists holds it.
CREATE FUNCTION engram_pool_erase_slot(p_tenant text, p_pool text, p_slot text) RETURNS void
  LANGUAGE plpgsql AS $$
DECLARE
  label text;
BEGIN
  IF p_slot LIKE 'erased:%' OR p_slot LIKE 'memories/%' THEN
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM publications q
               JOIN memories m ON m.tenant_id = q.tenant_id AND m.id = q.memory_id
              WHERE q.tenant_id = p_tenant AND q.pool_id = p_pool AND q.slot = p_slot) THEN
    RETURN;
  END IF;
  label := engram_pool_erased_label(p_tenant, p_pool, p_slot);
  IF label IS NULL THEN
    RETURN;  -- the pool is being deleted
  END IF;
  -- Erased before (and used again since): the older label row's version was
  -- carried over when the slot came back, so the renamed row replaces it.
  DELETE FROM pool_slots WHERE tenant_id = p_tenant AND pool_id = p_pool AND slot = label;
  UPDATE pool_slots SET slot = label
   WHERE tenant_id = p_tenant AND pool_id = p_pool AND slot = p_slot;
  UPDATE publications SET slot = label
   WHERE tenant_id = p_tenant AND pool_id = p_pool AND slot = p_slot;
  UPDATE pool_events SET slot = label
   WHERE tenant_id = p_tenant AND pool_id = p_pool AND kind = 'slot' AND slot = p_slot;
END
$$;

-- The same for a topic channel.
CREATE FUNCTION engram_pool_erase_topic(p_tenant text, p_pool text, p_topic text) RETURNS void
  LANGUAGE plpgsql AS $$
DECLARE
  label text;
BEGIN
  IF p_topic = '' OR p_topic LIKE 'erased:%' THEN
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM publications q
               JOIN memories m ON m.tenant_id = q.tenant_id AND m.id = q.memory_id
              WHERE q.tenant_id = p_tenant AND q.pool_id = p_pool AND q.topic = p_topic) THEN
    RETURN;
  END IF;
  label := engram_pool_erased_label(p_tenant, p_pool, p_topic);
  IF label IS NULL THEN
    RETURN;
  END IF;
  UPDATE pool_slots SET topic = label
   WHERE tenant_id = p_tenant AND pool_id = p_pool AND topic = p_topic;
  UPDATE pool_events SET topic = label
   WHERE tenant_id = p_tenant AND pool_id = p_pool AND topic = p_topic;
END
$$;

-- What a pool keeps of one deleted memory: its publications, without its slot
-- key, topic or review note, and its slot and channel under their labels.
CREATE FUNCTION engram_pool_forget_memory(p_tenant text, p_memory uuid) RETURNS void
  LANGUAGE plpgsql AS $$
DECLARE
  pub record;
BEGIN
  FOR pub IN
    SELECT p.pool_id, p.id, p.slot, p.topic FROM publications p
     WHERE p.tenant_id = p_tenant AND p.memory_id = p_memory
     ORDER BY p.pool_id, p.id
       FOR UPDATE
  LOOP
    UPDATE publications SET slot_key = '', topic = '', review_note = ''
     WHERE tenant_id = p_tenant AND pool_id = pub.pool_id AND id = pub.id;
    PERFORM engram_pool_erase_slot(p_tenant, pub.pool_id, pub.slot);
    PERFORM engram_pool_erase_topic(p_tenant, pub.pool_id, pub.topic);
  END LOOP;
END
$$;

CREATE FUNCTION engram_pool_memory_deleted() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  -- Runs at commit after memories_pool_delete (triggers of one event fire in
  -- name order), so the withdrawal and the slot's REMOVE are already written.
  PERFORM engram_pool_forget_memory(OLD.tenant_id, OLD.id);
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER memories_pool_erase AFTER DELETE ON memories
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW
  EXECUTE FUNCTION engram_pool_memory_deleted();

-- As in 0022, with one change: a slot that comes back after it was erased
-- continues the erased slot's version, so a follower that keeps the highest
-- version it saw per slot never takes the new value for an old one.
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
  base bigint;
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
    base := cur.version;
    IF base IS NULL AND p_slot NOT LIKE 'memories/%' THEN
      SELECT ps.version INTO base FROM pool_slots ps
       WHERE ps.tenant_id = p_tenant AND ps.pool_id = p_pool AND ps.audience = aud
         AND ps.slot = engram_pool_erased_label(p_tenant, p_pool, p_slot);
    END IF;
    base := coalesce(base, 0);
    s := engram_pool_next_seq(p_tenant, p_pool);
    INSERT INTO pool_slots AS ps (tenant_id, pool_id, audience, slot, publication_id, memory_id,
                                  revision, topic, version)
    VALUES (p_tenant, p_pool, aud, p_slot, want.publication_id, want.memory_id, want.revision,
            coalesce(want.topic, ''), base + 1)
    ON CONFLICT (tenant_id, pool_id, audience, slot) DO UPDATE
       SET publication_id = EXCLUDED.publication_id, memory_id = EXCLUDED.memory_id,
           revision = EXCLUDED.revision, topic = EXCLUDED.topic, version = ps.version + 1;
    INSERT INTO pool_events (tenant_id, pool_id, seq, kind, audience, slot, op, old_memory,
                             new_memory, old_revision, new_revision, publication_id, version,
                             topic)
    VALUES (p_tenant, p_pool, s, 'slot', aud, p_slot, op, cur.memory_id, want.memory_id,
            cur.revision, want.revision,
            coalesce(want.publication_id, cur.publication_id), base + 1,
            coalesce(want.topic, cur.topic, ''));
    PERFORM pg_notify('engram_pool', p_tenant || '/' || p_pool);
  END LOOP;
  RETURN displaced;
END
$$;

-- What pools kept of memories deleted without this trigger (purged before this
-- migration): forgotten now. Returns how many memories it found.
CREATE FUNCTION engram_pool_forget_purged() RETURNS integer
  LANGUAGE plpgsql AS $$
DECLARE
  gone record;
  n integer := 0;
BEGIN
  FOR gone IN
    SELECT DISTINCT p.tenant_id, p.memory_id FROM publications p
     WHERE NOT EXISTS (SELECT 1 FROM memories m
                        WHERE m.tenant_id = p.tenant_id AND m.id = p.memory_id)
       AND (p.slot_key <> '' OR p.topic <> '' OR p.review_note <> ''
            OR (p.slot NOT LIKE 'erased:%' AND p.slot NOT LIKE 'memories/%'))
  LOOP
    PERFORM engram_pool_forget_memory(gone.tenant_id, gone.memory_id);
    n := n + 1;
  END LOOP;
  RETURN n;
END
$$;

DO $$
BEGIN
  PERFORM set_config('engram.platform', 'on', true);
  PERFORM engram_pool_forget_purged();
  PERFORM set_config('engram.platform', '', true);
END
$$;
