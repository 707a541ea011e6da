-- An exact import (a memory-mcp export into an empty store) is recorded as
-- the provenance of what it wrote: who imported which file (its path as
-- given and the SHA-256 of its bytes), in what format, when, how many
-- records of each kind (JSON), and the span of memory pks it wrote with
-- the latest creation time among them. An exact import goes only into an
-- empty store, so a memory is the import's when its pk is in the span and
-- it was created no later than that time (a pk that erase freed and a later
-- write took again is not, unless the clocks of the two stores disagree).
-- The record is stamped like the rows (provenance.go) and is not part of
-- an export: it says where this store's copy came from, not what the
-- memory means.
CREATE TABLE imports (
    id                     INTEGER PRIMARY KEY AUTOINCREMENT,
    imported_at            INTEGER NOT NULL,
    imported_by            TEXT    NOT NULL,
    file                   TEXT    NOT NULL,
    sha256                 TEXT    NOT NULL,
    format                 TEXT    NOT NULL,
    kinds                  TEXT    NOT NULL,
    first_memory_pk        INTEGER,
    last_memory_pk         INTEGER,
    last_memory_created_at INTEGER,
    stamp                  BLOB
);
CREATE TRIGGER imports_immutable BEFORE UPDATE OF id, imported_at, imported_by, file, sha256, format, kinds,
    first_memory_pk, last_memory_pk, last_memory_created_at ON imports BEGIN
    SELECT RAISE(ABORT, 'an import record is kept as written');
END;
CREATE TRIGGER imports_no_delete BEFORE DELETE ON imports
WHEN NOT EXISTS (SELECT 1 FROM erase_permit) BEGIN
    SELECT RAISE(ABORT, 'an import record is kept: it is the provenance of the rows it wrote');
END;
