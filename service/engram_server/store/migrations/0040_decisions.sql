-- Decisions mined from git history (DecisionsService).
--
-- `decisions` holds one row per decision, keyed inside a repository by its
-- sha-free identity (normalised title + author time), so re-ingesting a rebased or
-- squashed history finds the same rows. Each decision is backed by a memory of
-- kind DECISION (the memory carries the lifecycle status, the audit trail and the
-- recall index); deleting that memory (a purge of the space) deletes the decision.
-- `decision_anchors` are the pointers into the code; `decision_commits` records
-- every commit a client sent (what it became, or why it held no decision), so
-- re-sending it costs nothing; `decision_file_changes` keeps each commit's
-- zero-context hunks and renames per file, which carry anchors forward to the
-- lines a client asks about at a later revision.

CREATE TABLE decisions (
  tenant_id      text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id             uuid NOT NULL,
  repository     text NOT NULL,
  identity       text NOT NULL,
  space          text NOT NULL,
  memory_id      uuid NOT NULL,
  title          text NOT NULL,
  statement      text NOT NULL DEFAULT '',
  rationale      text NOT NULL DEFAULT '',
  question       text NOT NULL DEFAULT '',
  alternatives   jsonb NOT NULL DEFAULT '[]',
  evidence       jsonb NOT NULL DEFAULT '[]',
  commits        text[] NOT NULL DEFAULT '{}',
  decision_time  timestamptz NOT NULL,
  author         text NOT NULL DEFAULT '',
  tags           text[] NOT NULL DEFAULT '{}',
  origin         text NOT NULL DEFAULT 'commit_message',
  superseded_by  uuid,
  expectations   text[] NOT NULL DEFAULT '{}',
  outcome        text NOT NULL DEFAULT 'UNSPECIFIED',
  outcomes       jsonb NOT NULL DEFAULT '[]',
  create_time    timestamptz NOT NULL DEFAULT now(),
  update_time    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id),
  UNIQUE (tenant_id, repository, identity),
  FOREIGN KEY (tenant_id, memory_id) REFERENCES memories (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX decisions_by_time ON decisions (tenant_id, decision_time DESC, id DESC);
CREATE INDEX decisions_by_repository_time
  ON decisions (tenant_id, repository, decision_time DESC, id DESC);
CREATE INDEX decisions_by_memory ON decisions (tenant_id, memory_id);
CREATE INDEX decisions_by_outcome ON decisions (tenant_id, outcome) WHERE outcome <> 'UNSPECIFIED';

CREATE TABLE decision_anchors (
  tenant_id    text NOT NULL,
  decision_id  uuid NOT NULL,
  repository   text NOT NULL,
  -- "C" collation: a btree then serves `path LIKE 'dir/%'` prefix searches.
  path         text COLLATE "C" NOT NULL,
  start_line   integer NOT NULL DEFAULT 0 CHECK (start_line >= 0),
  end_line     integer NOT NULL DEFAULT 0 CHECK (end_line >= start_line),
  symbol       text NOT NULL DEFAULT '',
  commit_sha   text NOT NULL DEFAULT '',
  PRIMARY KEY (tenant_id, decision_id, path, start_line, end_line, symbol),
  FOREIGN KEY (tenant_id, decision_id) REFERENCES decisions (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX decision_anchors_by_path ON decision_anchors (tenant_id, repository, path);

CREATE TABLE decision_commits (
  tenant_id     text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  repository    text NOT NULL,
  sha           text NOT NULL,
  parents       text[] NOT NULL DEFAULT '{}',
  author_time   timestamptz NOT NULL,
  commit_time   timestamptz NOT NULL,
  disposition   text NOT NULL CHECK (disposition IN ('DECISION', 'NO_DECISION')),
  decision_id   uuid,
  reason        text NOT NULL DEFAULT '',
  ingest_time   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, repository, sha),
  FOREIGN KEY (tenant_id, decision_id) REFERENCES decisions (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX decision_commits_by_decision ON decision_commits (tenant_id, decision_id)
  WHERE decision_id IS NOT NULL;

CREATE TABLE decision_file_changes (
  tenant_id    text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  repository   text NOT NULL,
  sha          text NOT NULL,
  path         text COLLATE "C" NOT NULL,
  old_path     text COLLATE "C" NOT NULL DEFAULT '',
  change_type  text NOT NULL,
  commit_time  timestamptz NOT NULL,
  -- [[old_start, old_count, new_start, new_count], ...] in file order.
  hunks        jsonb NOT NULL DEFAULT '[]',
  PRIMARY KEY (tenant_id, repository, sha, path)
);
CREATE INDEX decision_file_changes_by_path
  ON decision_file_changes (tenant_id, repository, path, commit_time);
CREATE INDEX decision_file_changes_renames
  ON decision_file_changes (tenant_id, repository, old_path) WHERE old_path <> '';

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['decisions', 'decision_anchors', 'decision_commits',
                           'decision_file_changes'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    -- As in 0013: the server role sees the transaction's tenant only; the owner
    -- role (SECURITY DEFINER maintenance such as tenant deletion) may act
    -- platform-wide.
    EXECUTE format('CREATE POLICY tenant_isolation ON %I TO engram_app '
                   'USING (tenant_id = (SELECT engram_current_tenant())) '
                   'WITH CHECK (tenant_id = (SELECT engram_current_tenant()))', t);
    EXECUTE format('CREATE POLICY maintenance ON %I TO %I '
                   'USING (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant())) '
                   'WITH CHECK (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant()))',
                   t, current_user);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO engram_app', t);
  END LOOP;
END
$$;
