-- Almost no memory depends on another: index only those that do (an empty array
-- still costs a GIN entry per row, on every write). Lookups say
-- `depends_on <> '{}'` so that the planner can use it.
DROP INDEX memories_depends_on;
CREATE INDEX memories_depends_on ON memories USING gin (depends_on) WHERE depends_on <> '{}';
