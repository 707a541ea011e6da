-- Text sorts bytewise, as SQLite's does. PostgreSQL only: SQLite compares
-- text with memcmp (BINARY) already, so it has no 0042.
--
-- A column without a collation of its own sorts and compares by the
-- database's, which is whatever the cluster or CREATE DATABASE chose: under
-- a language collation (en_US.UTF-8, ICU's en-US) 'B' sorts after 'a' and
-- '_' before '1', so ids, keyset pages and ties would come in another order
-- than on SQLite. Every text column of the store's tables is made COLLATE
-- "C" (bytewise on UTF-8: code point order), whatever the database's
-- default; expressions over a column and parameters compared with one take
-- its collation. Indexes on these columns are rebuilt, once. A later
-- migration declares its text columns COLLATE "C" itself
-- (TestPostgresSortsBytewise checks every column).
-- PostgreSQL refuses to change a column a trigger's WHEN or UPDATE OF
-- names, so each table's own triggers are dropped around its change and
-- made again as they were (pg_get_triggerdef).
DO $$
DECLARE
    t record;
    def text;
BEGIN
    FOR t IN
        SELECT a.attrelid AS rel,
               string_agg(format('ALTER COLUMN %I TYPE %s COLLATE "C"', a.attname, format_type(a.atttypid, a.atttypmod)), ', ') AS alters,
               (SELECT array_agg(pg_get_triggerdef(g.oid) ORDER BY g.tgname) FROM pg_trigger g
                WHERE g.tgrelid = a.attrelid AND NOT g.tgisinternal) AS triggers,
               (SELECT array_agg(format('DROP TRIGGER %I ON %s', g.tgname, a.attrelid::regclass)) FROM pg_trigger g
                WHERE g.tgrelid = a.attrelid AND NOT g.tgisinternal) AS drops
        FROM pg_attribute a
        JOIN pg_class r ON r.oid = a.attrelid
        WHERE r.relnamespace = current_schema()::regnamespace
          AND r.relkind IN ('r', 'p') AND NOT r.relispartition
          AND r.relname <> 'schema_migrations' -- locked by the migration that runs this
          AND a.attnum > 0 AND NOT a.attisdropped
          AND a.atttypid IN ('text'::regtype, 'varchar'::regtype, 'bpchar'::regtype)
          AND a.attcollation <> '"C"'::regcollation
        GROUP BY a.attrelid
    LOOP
        FOREACH def IN ARRAY coalesce(t.drops, '{}') LOOP
            EXECUTE def;
        END LOOP;
        EXECUTE format('ALTER TABLE %s %s', t.rel::regclass, t.alters);
        FOREACH def IN ARRAY coalesce(t.triggers, '{}') LOOP
            EXECUTE def;
        END LOOP;
    END LOOP;
END $$;
