-- What a merge import brought in, kept for good, as SQLite's
-- 0039_import_origins.sql (which says what it holds and why).
CREATE TABLE import_origins (
    origin      text   PRIMARY KEY,
    imported_by text   NOT NULL,
    imported_at bigint NOT NULL
);
CREATE TRIGGER import_origins_no_delete BEFORE DELETE ON import_origins FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse_delete('an import origin is kept: it stops a later import bringing back what the store let go');
