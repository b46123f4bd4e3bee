-- The commit leg's sixth field: the lines a commit added to documentation (a
-- changelog entry, a README section, a man page's option text), analysed like
-- the others. Rows written before it have none; reprocessing a commit fills it.
ALTER TABLE decision_search_documents ADD COLUMN docs text NOT NULL DEFAULT '';
