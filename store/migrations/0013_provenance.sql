-- Provenance integrity (seed 003, 12.4.5). Every memory, fact operation,
-- promotion ledger event and block version carries a stamp: HMAC-SHA256,
-- keyed by the data directory's provenance key, over a canonical encoding of
-- the row's columns that never change after it is written (store/provenance.go
-- lists them per table). A row written before this migration, or by a store
-- given no key, has none; `memory-mcp verify --trust-unstamped` stamps such
-- rows, and a stamp once written never changes.
ALTER TABLE memories ADD COLUMN stamp BLOB;
ALTER TABLE operation_log ADD COLUMN stamp BLOB;
ALTER TABLE events_memory ADD COLUMN stamp BLOB;
ALTER TABLE block_versions ADD COLUMN stamp BLOB;

-- The fact log and block history refused every update; now an update that
-- sets only the stamp passes, and the stamp trigger below lets it through
-- once, from none.
DROP TRIGGER operation_log_no_update;
CREATE TRIGGER operation_log_no_update BEFORE UPDATE OF id, operation_id, fact_id, operation_type, content, category, tags,
    author_agent_id, author_seniority, author_autonomy, author_is_human, timestamp, version, reason ON operation_log BEGIN
    SELECT RAISE(ABORT, 'operation_log is append-only');
END;
DROP TRIGGER block_versions_no_update;
CREATE TRIGGER block_versions_no_update BEFORE UPDATE OF block_id, version, op, value, description, char_limit, deleted,
    restored_from, author_agent_id, author_seniority, author_autonomy, author_is_human, at ON block_versions BEGIN
    SELECT RAISE(ABORT, 'block_versions is append-only');
END;

CREATE TRIGGER memories_stamp_once BEFORE UPDATE OF stamp ON memories WHEN old.stamp IS NOT NULL BEGIN
    SELECT RAISE(ABORT, 'a provenance stamp is written once');
END;
CREATE TRIGGER operation_log_stamp_once BEFORE UPDATE OF stamp ON operation_log WHEN old.stamp IS NOT NULL BEGIN
    SELECT RAISE(ABORT, 'a provenance stamp is written once');
END;
CREATE TRIGGER events_memory_stamp_once BEFORE UPDATE OF stamp ON events_memory WHEN old.stamp IS NOT NULL BEGIN
    SELECT RAISE(ABORT, 'a provenance stamp is written once');
END;
CREATE TRIGGER block_versions_stamp_once BEFORE UPDATE OF stamp ON block_versions WHEN old.stamp IS NOT NULL BEGIN
    SELECT RAISE(ABORT, 'a provenance stamp is written once');
END;

-- Which key stamps this database's rows, as HMAC-SHA256(key, a fixed
-- text): a process given another key (another key file, or an environment
-- key that differs from the file's) is refused instead of stamping rows
-- that every other process would then report as tampered.
-- complete is HMAC-SHA256(key, another fixed text), written once every row
-- of the four tables carries a stamp (at once for a database that had no
-- rows, after --trust-unstamped for one upgraded): from then on a row
-- without a stamp was written or changed behind the store's back, and
-- verify reports it as mismatched. Only a holder of the key can write it.
CREATE TABLE provenance_key (
    one         INTEGER PRIMARY KEY CHECK (one = 1),
    fingerprint BLOB    NOT NULL,
    created_at  INTEGER NOT NULL,
    complete    BLOB
);
