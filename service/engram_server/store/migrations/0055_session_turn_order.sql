-- Indexing reads each conversation turn's previous turn in its session (neighbour
-- context, services/indexing.py): the memory of the same space and session with
-- the greatest id below its own. With the id in the index that is a short
-- backward scan instead of a walk over the whole session. The index leads with
-- the columns of memories_by_session, which it replaces.
DROP INDEX memories_by_session;
CREATE INDEX memories_by_session ON memories (tenant_id, space, session, id) WHERE session <> '';
