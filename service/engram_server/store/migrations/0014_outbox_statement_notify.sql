-- One NOTIFY per inserting statement instead of one trigger call per outbox row:
-- a batch of a hundred proposals queues a hundred rows in one statement.
DROP TRIGGER outbox_notify ON outbox;
DROP FUNCTION engram_outbox_notify();

CREATE FUNCTION engram_outbox_notify() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('engram_outbox', tenant_id) FROM (SELECT DISTINCT tenant_id FROM new_rows) t;
  RETURN NULL;
END
$$;
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engram_outbox_notify();
