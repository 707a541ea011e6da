-- Agent memories (seeds 001/004). One row per memory: a personal memory
-- (shared = 0) belongs to agent_id alone; publishing copies it into the shared
-- space as a new row (shared = 1) that points back at its original. Nothing is
-- deleted: forgetting or retracting sets forgotten_at with who and why.
CREATE TABLE memories (
    pk               INTEGER PRIMARY KEY, -- the full-text index's rowid
    id               TEXT    NOT NULL UNIQUE,
    agent_id         TEXT    NOT NULL,
    namespace        TEXT    NOT NULL,
    category         TEXT    NOT NULL CHECK (category IN ('working', 'episodic', 'semantic', 'procedural', 'social')),
    content          TEXT    NOT NULL,
    tags             TEXT    NOT NULL DEFAULT '[]',
    confidence       REAL    NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    source           TEXT,
    shared           INTEGER NOT NULL DEFAULT 0 CHECK (shared IN (0, 1)),
    created_at       INTEGER NOT NULL, -- unix nanoseconds, UTC
    updated_at       INTEGER NOT NULL,
    occurred_at      INTEGER NOT NULL, -- when the remembered event happened
    expires_at       INTEGER,
    author_seniority TEXT,
    author_autonomy  TEXT,
    author_is_human  INTEGER NOT NULL DEFAULT 0,
    published_from   TEXT REFERENCES memories (id), -- shared copies: the personal original
    published_at     INTEGER,
    forgotten_at     INTEGER,
    forgotten_by     TEXT,
    forget_reason    TEXT,
    embedding        BLOB, -- little-endian float32s, made by embedder
    embedder         TEXT,
    -- Tokens for the full-text index naming the memory's space, namespace,
    -- category and tags, so that a search filters inside FTS5 instead of
    -- joining every match (see store/filter.go).
    filters          TEXT    NOT NULL,
    CHECK ((shared = 1) = (published_from IS NOT NULL)),
    CHECK ((embedding IS NULL) = (embedder IS NULL))
);
CREATE INDEX memories_owner ON memories (agent_id, shared, occurred_at);
CREATE INDEX memories_shared ON memories (shared, agent_id) WHERE forgotten_at IS NULL;
CREATE INDEX memories_published_from ON memories (published_from) WHERE published_from IS NOT NULL;

-- BM25 over content and tags (the filters column has weight 0 in ranking).
-- Forgotten memories leave the index (the row stays), so a search never pays
-- for them.
CREATE VIRTUAL TABLE memory_fts USING fts5 (
    content, tags, filters,
    content = 'memories', content_rowid = 'pk',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories WHEN new.forgotten_at IS NULL BEGIN
    INSERT INTO memory_fts (rowid, content, tags, filters) VALUES (new.pk, new.content, new.tags, new.filters);
END;
CREATE TRIGGER memories_fts_forget AFTER UPDATE OF forgotten_at ON memories
WHEN old.forgotten_at IS NULL AND new.forgotten_at IS NOT NULL BEGIN
    INSERT INTO memory_fts (memory_fts, rowid, content, tags, filters) VALUES ('delete', old.pk, old.content, old.tags, old.filters);
END;
-- Content and ownership never change after the write; only the vector, the
-- soft-delete columns and updated_at do.
CREATE TRIGGER memories_immutable BEFORE UPDATE OF id, agent_id, namespace, category, content, tags, shared,
    created_at, occurred_at, published_from, filters ON memories BEGIN
    SELECT RAISE(ABORT, 'memory content and ownership are immutable');
END;
CREATE TRIGGER memories_no_delete BEFORE DELETE ON memories BEGIN
    SELECT RAISE(ABORT, 'memories are soft-deleted: set forgotten_at');
END;
