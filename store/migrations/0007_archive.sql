-- Consolidation, retention and archival. A memory is archived when it is
-- consolidated into a summary, outlives its category's retention period, is
-- over its agent's cap, or expired: it leaves every default search and is
-- kept whole (same id, content, tags, times, vector), restorable by id. A
-- memory is active when it is neither forgotten nor archived; the full-text
-- index, the per-space statistics and the vector index hold active memories
-- only, and the archive has a full-text index of its own for the searches
-- that ask for it.
ALTER TABLE memories ADD COLUMN archived_at INTEGER;
ALTER TABLE memories ADD COLUMN archive_reason TEXT
    CHECK (archive_reason IN ('consolidated', 'retention', 'over_cap', 'expired'));
ALTER TABLE memories ADD COLUMN archived_by TEXT;
-- The summary a consolidated memory went into.
ALTER TABLE memories ADD COLUMN consolidated_into TEXT;
-- When a memory was last brought back from the archive: maintenance
-- measures its age from then, so that the next run does not archive again
-- what its owner just restored.
ALTER TABLE memories ADD COLUMN restored_at INTEGER;

-- What each summary was made from, in order.
CREATE TABLE memory_sources (
    summary_id TEXT    NOT NULL REFERENCES memories (id),
    position   INTEGER NOT NULL,
    source_id  TEXT    NOT NULL REFERENCES memories (id),
    PRIMARY KEY (summary_id, position)
) WITHOUT ROWID;
CREATE INDEX memory_sources_source ON memory_sources (source_id);
CREATE TRIGGER memory_sources_no_change BEFORE UPDATE ON memory_sources BEGIN
    SELECT RAISE(ABORT, 'what a summary was made from never changes');
END;
CREATE TRIGGER memory_sources_no_delete BEFORE DELETE ON memory_sources BEGIN
    SELECT RAISE(ABORT, 'what a summary was made from never changes');
END;

-- The active index: a memory enters it when written or brought back, and
-- leaves it when forgotten or archived.
DROP TRIGGER memories_fts_insert;
DROP TRIGGER memories_fts_forget;
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories
WHEN new.forgotten_at IS NULL AND new.archived_at IS NULL BEGIN
    INSERT INTO memory_fts (rowid, content, tags, filters) VALUES (new.pk, new.content, new.tags, new.filters);
END;
CREATE TRIGGER memories_fts_leave AFTER UPDATE OF forgotten_at, archived_at ON memories
WHEN old.forgotten_at IS NULL AND old.archived_at IS NULL AND (new.forgotten_at IS NOT NULL OR new.archived_at IS NOT NULL) BEGIN
    INSERT INTO memory_fts (memory_fts, rowid, content, tags, filters) VALUES ('delete', old.pk, old.content, old.tags, old.filters);
END;
CREATE TRIGGER memories_fts_return AFTER UPDATE OF forgotten_at, archived_at ON memories
WHEN (old.forgotten_at IS NOT NULL OR old.archived_at IS NOT NULL) AND new.forgotten_at IS NULL AND new.archived_at IS NULL BEGIN
    INSERT INTO memory_fts (rowid, content, tags, filters) VALUES (new.pk, new.content, new.tags, new.filters);
END;

-- The per-space statistics count active memories.
DROP TRIGGER memories_space_insert;
DROP TRIGGER memories_space_forget;
CREATE TRIGGER memories_space_insert AFTER INSERT ON memories
WHEN new.forgotten_at IS NULL AND new.archived_at IS NULL BEGIN
    INSERT INTO memory_spaces (agent_id, shared, rows, tokens, gen) VALUES (new.agent_id, new.shared, 1, new.length, 1)
    ON CONFLICT (agent_id, shared) DO UPDATE SET rows = rows + 1, tokens = tokens + excluded.tokens, gen = gen + 1;
END;
CREATE TRIGGER memories_space_leave AFTER UPDATE OF forgotten_at, archived_at ON memories
WHEN old.forgotten_at IS NULL AND old.archived_at IS NULL AND (new.forgotten_at IS NOT NULL OR new.archived_at IS NOT NULL) BEGIN
    UPDATE memory_spaces SET rows = rows - 1, tokens = tokens - old.length, gen = gen + 1
    WHERE agent_id = old.agent_id AND shared = old.shared;
END;
CREATE TRIGGER memories_space_return AFTER UPDATE OF forgotten_at, archived_at ON memories
WHEN (old.forgotten_at IS NOT NULL OR old.archived_at IS NOT NULL) AND new.forgotten_at IS NULL AND new.archived_at IS NULL BEGIN
    INSERT INTO memory_spaces (agent_id, shared, rows, tokens, gen) VALUES (new.agent_id, new.shared, 1, new.length, 1)
    ON CONFLICT (agent_id, shared) DO UPDATE SET rows = rows + 1, tokens = tokens + excluded.tokens, gen = gen + 1;
END;

-- The archive's own index: archived memories that are not forgotten.
CREATE VIRTUAL TABLE memory_archive_fts USING fts5 (
    content, tags, filters,
    content = 'memories', content_rowid = 'pk',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memories_archive_enter AFTER UPDATE OF forgotten_at, archived_at ON memories
WHEN new.archived_at IS NOT NULL AND new.forgotten_at IS NULL AND NOT (old.archived_at IS NOT NULL AND old.forgotten_at IS NULL) BEGIN
    INSERT INTO memory_archive_fts (rowid, content, tags, filters) VALUES (new.pk, new.content, new.tags, new.filters);
END;
CREATE TRIGGER memories_archive_leave AFTER UPDATE OF forgotten_at, archived_at ON memories
WHEN old.archived_at IS NOT NULL AND old.forgotten_at IS NULL AND NOT (new.archived_at IS NOT NULL AND new.forgotten_at IS NULL) BEGIN
    INSERT INTO memory_archive_fts (memory_archive_fts, rowid, content, tags, filters) VALUES ('delete', old.pk, old.content, old.tags, old.filters);
END;

-- Partial indexes follow the active predicate; archived memories are found
-- by agent for listing, restoring and counting.
DROP INDEX memories_shared;
CREATE INDEX memories_shared ON memories (shared, agent_id) WHERE forgotten_at IS NULL AND archived_at IS NULL;
DROP INDEX memories_occurred;
CREATE INDEX memories_occurred ON memories (occurred_at) WHERE forgotten_at IS NULL AND archived_at IS NULL;
CREATE INDEX memories_archived ON memories (agent_id, archived_at) WHERE archived_at IS NOT NULL;
CREATE INDEX memories_consolidated_into ON memories (consolidated_into) WHERE consolidated_into IS NOT NULL;
