-- A purge of a decision space deletes its decisions (their memories), but the
-- commit records without a decision (NO_DECISION, with the reason the commit held
-- none) and the per-file change records (paths, renames, hunks) are kept per
-- repository, not per space, so they outlived it. Each now records the space it
-- was ingested for, and a purge of that space deletes them (services/lifecycle.py).
--
-- Existing rows: a commit that became a decision takes that decision's space; the
-- other rows of a repository whose decisions all live in one space take that
-- space. Rows still without one (a repository with no decision left, or with
-- decisions in several spaces) are deleted by a purge of the repository's
-- default space, or of a space that held its last decisions.

ALTER TABLE decision_commits ADD COLUMN space text;
ALTER TABLE decision_file_changes ADD COLUMN space text;
CREATE INDEX decision_commits_by_space ON decision_commits (tenant_id, space);
CREATE INDEX decision_file_changes_by_space ON decision_file_changes (tenant_id, space);

DO $$
BEGIN
  PERFORM set_config('engram.platform', 'on', true);
  UPDATE decision_commits c SET space = d.space
    FROM decisions d
   WHERE d.tenant_id = c.tenant_id AND d.id = c.decision_id;
  WITH single AS (
    SELECT tenant_id, repository, min(space) AS space FROM decisions
     GROUP BY tenant_id, repository HAVING count(DISTINCT space) = 1
  )
  UPDATE decision_commits c SET space = single.space
    FROM single
   WHERE c.space IS NULL AND c.tenant_id = single.tenant_id
     AND c.repository = single.repository;
  WITH single AS (
    SELECT tenant_id, repository, min(space) AS space FROM decisions
     GROUP BY tenant_id, repository HAVING count(DISTINCT space) = 1
  )
  UPDATE decision_file_changes f SET space = single.space
    FROM single
   WHERE f.space IS NULL AND f.tenant_id = single.tenant_id
     AND f.repository = single.repository;
  PERFORM set_config('engram.platform', '', true);
END
$$;
