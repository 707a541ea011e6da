-- Erasure and garbage collection (seed 003, 12.7.5 and 12.10.2). Every
-- other path keeps deleting impossible: forgetting, retracting and editing
-- stay soft deletes and versions. An erase (a human's, by id, agent or
-- text) and gc (forgotten, expired and retracted memories past their grace
-- period) delete for good, and only inside their own transaction: it
-- inserts the one row of erase_permit first and deletes it before it
-- commits, and the no-delete triggers let a delete through only while that
-- row exists. (Triggers on main tables cannot see temporary tables, so the
-- permit is a main table that is empty outside those transactions.)
CREATE TABLE erase_permit (
    one INTEGER PRIMARY KEY CHECK (one = 1)
);

DROP TRIGGER memories_no_delete;
CREATE TRIGGER memories_no_delete BEFORE DELETE ON memories
WHEN NOT EXISTS (SELECT 1 FROM erase_permit) BEGIN
    SELECT RAISE(ABORT, 'memories are soft-deleted: set forgotten_at');
END;
DROP TRIGGER memory_sources_no_delete;
CREATE TRIGGER memory_sources_no_delete BEFORE DELETE ON memory_sources
WHEN NOT EXISTS (SELECT 1 FROM erase_permit) BEGIN
    SELECT RAISE(ABORT, 'what a summary was made from never changes');
END;
DROP TRIGGER events_memory_no_delete;
CREATE TRIGGER events_memory_no_delete BEFORE DELETE ON events_memory
WHEN NOT EXISTS (SELECT 1 FROM erase_permit) BEGIN
    SELECT RAISE(ABORT, 'events_memory is append-only');
END;
DROP TRIGGER block_versions_no_delete;
CREATE TRIGGER block_versions_no_delete BEFORE DELETE ON block_versions
WHEN NOT EXISTS (SELECT 1 FROM erase_permit) BEGIN
    SELECT RAISE(ABORT, 'block_versions is append-only');
END;
DROP TRIGGER operation_log_no_delete;
CREATE TRIGGER operation_log_no_delete BEFORE DELETE ON operation_log
WHEN NOT EXISTS (SELECT 1 FROM erase_permit) BEGIN
    SELECT RAISE(ABORT, 'operation_log is append-only');
END;

-- A memory deleted for good leaves the index it is in (external-content
-- FTS5 tables are told the old values) and, when active, its space's
-- search statistics, exactly as forgetting it would.
CREATE TRIGGER memories_fts_erase AFTER DELETE ON memories
WHEN old.forgotten_at IS NULL AND old.archived_at IS NULL BEGIN
    INSERT INTO memory_fts (memory_fts, rowid, content, tags, filters) VALUES ('delete', old.pk, old.content, old.tags, old.filters);
    UPDATE memory_spaces SET rows = rows - 1, tokens = tokens - old.length, gen = gen + 1
    WHERE agent_id = old.agent_id AND shared = old.shared;
END;
CREATE TRIGGER memories_archive_erase AFTER DELETE ON memories
WHEN old.archived_at IS NOT NULL AND old.forgotten_at IS NULL BEGIN
    INSERT INTO memory_archive_fts (memory_archive_fts, rowid, content, tags, filters) VALUES ('delete', old.pk, old.content, old.tags, old.filters);
END;

-- The audit of every erase and gc: who, when, why, what was asked for in a
-- form that reveals no content (a text searched for is kept as its
-- SHA-256), how many rows of each kind went, and a SHA-256 over the
-- erased items' references. Append-only, like the logs it accounts for.
CREATE TABLE erasures (
    id             INTEGER PRIMARY KEY,
    at             INTEGER NOT NULL,
    kind           TEXT    NOT NULL CHECK (kind IN ('erase', 'gc')),
    by_agent       TEXT    NOT NULL,
    by_human       INTEGER NOT NULL,
    reason         TEXT    NOT NULL,
    selector       TEXT    NOT NULL, -- JSON: ids (count and SHA-256), agent_id, contains_sha256; gc: grace
    counts         TEXT    NOT NULL, -- JSON {kind: rows}
    erased_sha256  TEXT    NOT NULL
);
CREATE TRIGGER erasures_no_update BEFORE UPDATE ON erasures BEGIN
    SELECT RAISE(ABORT, 'erasures is append-only');
END;
CREATE TRIGGER erasures_no_delete BEFORE DELETE ON erasures BEGIN
    SELECT RAISE(ABORT, 'erasures is append-only');
END;
