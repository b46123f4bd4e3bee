-- An open conflict closes itself (resolution OVERTAKEN, resolver "system") when one
-- of its memories stops being live by other means: retracted, expired, superseded
-- or rejected. A resolution that changes statuses itself sets its own resolution
-- afterwards in the same transaction, which wins.
CREATE FUNCTION engram_conflicts_overtaken() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  UPDATE conflicts
     SET state = 'RESOLVED', resolution = 'OVERTAKEN', resolver = 'system',
         resolution_note = format('%s became %s', NEW.id, NEW.status),
         resolve_time = clock_timestamp(), version = version + 1
   WHERE tenant_id = NEW.tenant_id AND state = 'OPEN' AND memory_ids @> ARRAY[NEW.id];
  RETURN NULL;
END
$$;
CREATE TRIGGER memories_conflicts_overtaken AFTER UPDATE OF status ON memories
  FOR EACH ROW
  WHEN (OLD.status IN ('ACTIVE', 'PENDING_CONFIRMATION')
        AND NEW.status IN ('RETRACTED', 'EXPIRED', 'SUPERSEDED', 'REJECTED'))
  EXECUTE FUNCTION engram_conflicts_overtaken();
