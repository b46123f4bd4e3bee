-- What the commit leg of SearchDecisions / ExplainCode ranks (`decisions.ranking`):
-- one row per ingested commit that became (or joined) a decision, with the index
-- terms of its subject, body and trailers, changed paths, hunk context and the
-- names its diff added or removed, each
-- a space-separated list of analysed terms. The server keeps an in-memory BM25F
-- index per repository built from these rows and refreshed by `seq`, so it is a
-- cache of this table that any replica can rebuild.

CREATE TABLE decision_search_documents (
  tenant_id     text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  repository    text NOT NULL,
  sha           text NOT NULL,
  decision_id   uuid NOT NULL,
  commit_time   timestamptz NOT NULL,
  subject       text NOT NULL DEFAULT '',
  body          text NOT NULL DEFAULT '',
  paths         text NOT NULL DEFAULT '',
  code          text NOT NULL DEFAULT '',
  symbols       text NOT NULL DEFAULT '',
  seq           bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (tenant_id, repository, sha),
  FOREIGN KEY (tenant_id, decision_id) REFERENCES decisions (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX decision_search_documents_by_seq
  ON decision_search_documents (tenant_id, repository, seq);
CREATE INDEX decision_search_documents_by_decision
  ON decision_search_documents (tenant_id, decision_id);

ALTER TABLE decision_search_documents ENABLE ROW LEVEL SECURITY;
ALTER TABLE decision_search_documents FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON decision_search_documents TO engram_app
  USING (tenant_id = (SELECT engram_current_tenant()))
  WITH CHECK (tenant_id = (SELECT engram_current_tenant()));
DO $$
BEGIN
  EXECUTE format('CREATE POLICY maintenance ON decision_search_documents TO %I '
                 'USING (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant())) '
                 'WITH CHECK (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant()))',
                 current_user);
  EXECUTE format('GRANT USAGE, SELECT ON SEQUENCE %s TO engram_app',
                 pg_get_serial_sequence('decision_search_documents', 'seq'));
END
$$;
GRANT SELECT, INSERT, UPDATE, DELETE ON decision_search_documents TO engram_app;
