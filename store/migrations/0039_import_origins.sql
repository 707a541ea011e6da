-- What a merge import (an import into a store that holds memory) brought
-- in, kept for good: one row per thing imported (a memory or fact of an
-- export, an item of another tool's file), claimed in the transaction of
-- the write it became, whatever that write's outcome (stored, a duplicate
-- of what was there, held for approval). A later import of the same thing
-- finds its row and writes nothing, however long after: an import never
-- brings back what the store has since forgotten, superseded or refused,
-- as an idempotency key, which expires, could not promise. origin is a
-- keyed hash (under the provenance key) of what names the thing, so that
-- the table holds no text of it, nor the id of what it became (an erase
-- need not reach it).
CREATE TABLE import_origins (
    origin      TEXT    PRIMARY KEY,
    imported_by TEXT    NOT NULL,
    imported_at INTEGER NOT NULL
);
CREATE TRIGGER import_origins_no_delete BEFORE DELETE ON import_origins
WHEN NOT EXISTS (SELECT 1 FROM erase_permit) BEGIN
    SELECT RAISE(ABORT, 'an import origin is kept: it stops a later import bringing back what the store let go');
END;
