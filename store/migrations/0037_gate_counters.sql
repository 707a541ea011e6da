-- The rate limits' token buckets and the write budgets' counts move from
-- each server process into the database (issue 25): several `serve` nodes
-- on one database limit a caller together, a node's loss or restart loses
-- no count, and a caller cannot spread its writes over the nodes to pass a
-- limit. One row per caller and counter: a bucket is named after its tool
-- ('*' for all writes together) and holds the tokens left as of `at`; a
-- budget is named 'budget ' and its run, and holds the writes made in it.
-- expires_at is when the row no longer matters (a bucket full again, a
-- run over): such rows are deleted a few at a time by later admissions.
CREATE TABLE gate_counters (
    principal  TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    value      REAL    NOT NULL,
    at         INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (principal, name)
) WITHOUT ROWID;
CREATE INDEX gate_counters_expiry ON gate_counters (expires_at);
