-- SQLite's 0044: the terms a text is indexed by changed ("C++", "C#",
-- ".NET" are terms of their own; a CJK run is its pairs of characters), so
-- every row's terms and every memory's length are written again, in Go
-- (refillTerms, which also counts each space's tokens again and sets these
-- guards back). Terms and length are otherwise written once: their guards
-- are off for this migration's transaction only.
ALTER TABLE memories DISABLE TRIGGER memories_immutable;
ALTER TABLE memories DISABLE TRIGGER memories_terms_once;
ALTER TABLE operation_log DISABLE TRIGGER operation_log_terms_once;

-- The words of a write answered "duplicate" are searched too (SQLite's
-- repeat_fts): a repeat keeps its terms as a memory does, written by the
-- store after its insert and by refillTerms for the repeats kept before.
ALTER TABLE memory_repeats ADD COLUMN terms tsvector;
-- No statistics on text, as 0035 ordered: ANALYZE would copy a repeat's
-- words into pg_statistic, where an erase cannot reach them.
ALTER TABLE memory_repeats ALTER COLUMN terms SET STATISTICS 0;
CREATE INDEX memory_repeats_terms ON memory_repeats USING gin (terms);
