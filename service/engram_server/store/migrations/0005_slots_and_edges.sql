-- Slot-addressed supersession and the memory graph.
--
-- At most one ACTIVE memory holds a slot (`entity::attribute`) in a space. The
-- unique index makes that a database fact: two writers racing for a slot cannot
-- both win, the loser retries and supersedes the winner instead of silently
-- leaving two "current" answers.
DROP INDEX memories_live_slot;
CREATE UNIQUE INDEX memories_live_slot ON memories (tenant_id, space, slot_key)
  WHERE status = 'ACTIVE' AND slot_key <> '';
CREATE INDEX memories_slot_history ON memories (tenant_id, space, slot_key, create_time)
  WHERE slot_key <> '';

-- Directed, typed relations between memories of one tenant (SUPPORTS,
-- CONTRADICTS, SUPERSEDES, ABOUT, DERIVED_FROM, RELATED).
CREATE TABLE edges (
  tenant_id   text NOT NULL,
  id          uuid NOT NULL,
  source_id   uuid NOT NULL,
  target_id   uuid NOT NULL,
  kind        text NOT NULL,
  weight      double precision NOT NULL DEFAULT 1 CHECK (weight >= 0 AND weight <= 1),
  reason      text NOT NULL DEFAULT '',
  creator     text NOT NULL DEFAULT '',
  attributes  jsonb NOT NULL DEFAULT '{}',
  create_time timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, source_id) REFERENCES memories (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, target_id) REFERENCES memories (tenant_id, id) ON DELETE CASCADE,
  CHECK (source_id <> target_id)
);
CREATE INDEX edges_by_source ON edges (tenant_id, source_id, kind);
CREATE INDEX edges_by_target ON edges (tenant_id, target_id, kind);

ALTER TABLE edges ENABLE ROW LEVEL SECURITY;
ALTER TABLE edges FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON edges
  USING (tenant_id = (SELECT engram_current_tenant())
         OR (current_user <> 'engram_app' AND engram_is_platform()))
  WITH CHECK (tenant_id = (SELECT engram_current_tenant()));
GRANT SELECT, INSERT, UPDATE, DELETE ON edges TO engram_app;
