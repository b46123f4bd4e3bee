-- Dedup scope per space policy (Policy.dedup_scope): identical live content is a
-- duplicate within the space (dedup_key ''), within one session ('session:<id>'),
-- or never ('off:<random>', a key of its own). Existing rows keep the space scope.
ALTER TABLE memories ADD COLUMN dedup_key text NOT NULL DEFAULT '';

CREATE UNIQUE INDEX memories_live_content_scoped
  ON memories (tenant_id, space, content_hash, dedup_key)
  WHERE status IN ('PROPOSED', 'ACTIVE', 'PENDING_CONFIRMATION');
DROP INDEX memories_live_content;
-- The write path recognises races on this index by its name.
ALTER INDEX memories_live_content_scoped RENAME TO memories_live_content;
