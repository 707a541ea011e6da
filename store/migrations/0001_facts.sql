-- The change feed: one row per committed mutation, in commit order. Processes
-- sharing this file tail it to refresh in-memory indexes and notify clients.
CREATE TABLE changes (
    seq  INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT    NOT NULL,
    ref  TEXT    NOT NULL,
    at   INTEGER NOT NULL
);

-- Organisational facts (seed 000): an append-only operation log ...
CREATE TABLE operation_log (
    id                INTEGER PRIMARY KEY,
    operation_id      TEXT    NOT NULL, -- a UUID: unique by construction, not worth an index on every write
    fact_id           TEXT    NOT NULL,
    operation_type    TEXT    NOT NULL CHECK (operation_type IN ('PUBLISH', 'RETRACT')),
    content           TEXT,
    category          TEXT    NOT NULL CHECK (category IN ('core_policy', 'adr', 'procedure', 'convention', 'other')),
    tags              TEXT    NOT NULL DEFAULT '[]',
    author_agent_id   TEXT    NOT NULL,
    author_seniority  TEXT,
    author_autonomy   TEXT,
    author_is_human   INTEGER NOT NULL DEFAULT 0,
    timestamp         INTEGER NOT NULL, -- unix nanoseconds, UTC; non-decreasing per fact
    version           INTEGER NOT NULL CHECK (version >= 1),
    reason            TEXT,
    UNIQUE (fact_id, version),
    CHECK ((operation_type = 'PUBLISH') = (content IS NOT NULL))
);
-- Seed 000 names three log indexes: fact_id (served by UNIQUE (fact_id, version)),
-- timestamp and (timestamp, fact_id) (one index serves both).
CREATE INDEX operation_log_timestamp_fact ON operation_log (timestamp, fact_id);
-- Serves snapshot_at: per fact, the newest version at or before a time, from the index alone.
CREATE INDEX operation_log_fact_timestamp ON operation_log (fact_id, timestamp, version);

-- ... and the snapshot it materialises: the current state of every fact.
CREATE TABLE snapshot (
    fact_id          TEXT    PRIMARY KEY,
    content          TEXT    NOT NULL, -- last published content, kept on retraction
    category         TEXT    NOT NULL CHECK (category IN ('core_policy', 'adr', 'procedure', 'convention', 'other')),
    tags             TEXT    NOT NULL DEFAULT '[]',
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    retracted_at     INTEGER,
    version          INTEGER NOT NULL,
    content_op       INTEGER NOT NULL REFERENCES operation_log (id), -- the PUBLISH row holding content
    author_agent_id  TEXT    NOT NULL,
    author_seniority TEXT,
    author_autonomy  TEXT,
    author_is_human  INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
-- Seed 000's category and active-facts indexes, as one partial index: every
-- category read (listing, core policies) is over active facts.
CREATE INDEX snapshot_active ON snapshot (category, created_at) WHERE retracted_at IS NULL;

-- Full-text index over every published version. The log is append-only, so
-- the index only grows, and any version (current or as of a past time) can be
-- searched by joining on its log row.
CREATE VIRTUAL TABLE fact_fts USING fts5 (
    content, tags,
    content = 'operation_log', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER operation_log_fts AFTER INSERT ON operation_log
WHEN new.operation_type = 'PUBLISH' BEGIN
    INSERT INTO fact_fts (rowid, content, tags) VALUES (new.id, new.content, new.tags);
END;
-- The log is append-only: refuse edits and deletes at the lowest level.
CREATE TRIGGER operation_log_no_update BEFORE UPDATE ON operation_log BEGIN
    SELECT RAISE(ABORT, 'operation_log is append-only');
END;
CREATE TRIGGER operation_log_no_delete BEFORE DELETE ON operation_log BEGIN
    SELECT RAISE(ABORT, 'operation_log is append-only');
END;
