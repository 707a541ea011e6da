-- No stored text in the column statistics. ANALYZE (autovacuum runs it on
-- its own) keeps sample values of each column in pg_statistic: the most
-- common values and histogram bounds of a text column, the most common
-- lexemes of a tsvector. Those are copies of what memories, notes, facts
-- and the rest say, outside the rows an erase deletes and the tables its
-- scrub rewrites, and ANALYZE of a table left empty keeps its old
-- statistics. So no column that can hold text is analyzed: its target is
-- 0. The store's queries find rows through their keys and indexes, which a
-- default estimate serves. A later migration that adds such a column sets
-- its target too (TestPostgresStatisticsKeepNoText checks every column).
DO $$
DECLARE
    c record;
BEGIN
    FOR c IN
        SELECT a.attrelid::regclass AS rel, quote_ident(a.attname) AS col
        FROM pg_attribute a
        JOIN pg_class r ON r.oid = a.attrelid
        WHERE r.relkind = 'r' AND r.relnamespace = current_schema()::regnamespace
          AND a.attnum > 0 AND NOT a.attisdropped
          AND a.atttypid IN ('text'::regtype, 'bytea'::regtype, 'tsvector'::regtype, 'json'::regtype, 'jsonb'::regtype)
    LOOP
        EXECUTE format('ALTER TABLE %s ALTER COLUMN %s SET STATISTICS 0', c.rel, c.col);
    END LOOP;
END $$;
