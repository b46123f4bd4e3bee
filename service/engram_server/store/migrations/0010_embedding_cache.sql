-- Embedding cache: the vector of every distinct text a tenant has embedded, per
-- model, so duplicates and re-indexing never run the model twice. It is kept per
-- tenant on purpose: with one shared cache a tenant could tell from the latency
-- of its own writes that another tenant had already stored the same text.
CREATE TABLE embedding_cache (
  tenant_id     text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  model         text NOT NULL,
  content_hash  text NOT NULL,
  -- float32 little-endian, unit length; the dimension is length / 4.
  vector        bytea NOT NULL CHECK (length(vector) > 0 AND length(vector) % 4 = 0),
  create_time   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, model, content_hash)
);
-- Float noise does not compress; skip the attempt for vectors large enough to TOAST.
ALTER TABLE embedding_cache ALTER COLUMN vector SET STORAGE EXTERNAL;

ALTER TABLE embedding_cache ENABLE ROW LEVEL SECURITY;
ALTER TABLE embedding_cache FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON embedding_cache
  USING (tenant_id = (SELECT engram_current_tenant())
         OR (current_user <> 'engram_app' AND engram_is_platform()))
  WITH CHECK (tenant_id = (SELECT engram_current_tenant()));

GRANT SELECT, INSERT, UPDATE, DELETE ON embedding_cache TO engram_app;
