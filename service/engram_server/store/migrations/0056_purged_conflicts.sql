-- A purge is a hard delete: a conflict that names a purged memory goes with it.
-- Left behind it stayed open for good (its memory can no longer be read, so it
-- could not be resolved either), and it kept the purged memory's id and the
-- reason it was opened with. A conflict of three or more memories goes too: what
-- it recorded was a disagreement with the memory that is gone.
CREATE FUNCTION engram_forget_purged_conflicts() RETURNS trigger
  LANGUAGE plpgsql
  SET search_path = pg_catalog, public
  AS $$
BEGIN
  -- One array of the purged ids, probed once through the GIN index on memory_ids.
  DELETE FROM conflicts c
   WHERE c.memory_ids && ARRAY(SELECT p.id FROM purged p)
     AND c.tenant_id IN (SELECT DISTINCT p.tenant_id FROM purged p);
  RETURN NULL;
END
$$;
CREATE TRIGGER memories_forget_purged_conflicts AFTER DELETE ON memories
  REFERENCING OLD TABLE AS purged
  FOR EACH STATEMENT EXECUTE FUNCTION engram_forget_purged_conflicts();
