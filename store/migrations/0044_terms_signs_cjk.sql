-- The terms a text is indexed by changed (internal/text Terms): "C++",
-- "C#", "F#", ".NET" and "Node.js" are terms of their own instead of "c"
-- and "net", and a run of Chinese, Japanese or Korean characters is its
-- overlapping pairs of characters instead of one term. The rows indexed
-- before hold the old terms, which a search now never asks for: each
-- full-text index is emptied and refilled with the rows it holds, as 0033
-- made them. A memory's length (its count of terms, which BM25 reads) and
-- its space's total are counted again by memory_length, which counts the
-- new terms; length is otherwise never changed, so its guard is lifted for
-- the update and set again as it was.
DROP TRIGGER memories_immutable;
UPDATE memories SET length = memory_length(content, tags) WHERE length <> memory_length(content, tags);
CREATE TRIGGER memories_immutable BEFORE UPDATE OF id, agent_id, namespace, category, content, tags, shared,
    created_at, occurred_at, published_from, filters, length ON memories BEGIN
    SELECT RAISE(ABORT, 'memory content and ownership are immutable');
END;
UPDATE memory_spaces SET tokens = coalesce((SELECT sum(m.length) FROM memories m
    WHERE m.agent_id = memory_spaces.agent_id AND m.shared = memory_spaces.shared
      AND m.forgotten_at IS NULL AND m.archived_at IS NULL), 0), gen = gen + 1;

INSERT INTO memory_fts (memory_fts) VALUES ('delete-all');
INSERT INTO memory_fts (rowid, content, tags, filters)
    SELECT pk, content, tags, filters FROM memories WHERE forgotten_at IS NULL AND archived_at IS NULL ORDER BY pk;

INSERT INTO memory_archive_fts (memory_archive_fts) VALUES ('delete-all');
INSERT INTO memory_archive_fts (rowid, content, tags, filters)
    SELECT pk, content, tags, filters FROM memories WHERE archived_at IS NOT NULL AND forgotten_at IS NULL ORDER BY pk;

INSERT INTO fact_fts (fact_fts) VALUES ('delete-all');
INSERT INTO fact_fts (rowid, content, tags)
    SELECT id, content, tags FROM operation_log WHERE operation_type = 'PUBLISH' ORDER BY id;

-- The words of a write answered "duplicate" (memory_repeats) are searched
-- too: a search for a word only a repeat holds finds the memory the repeat
-- was folded into, for the repeat's author (see store.repeatList). They
-- have an index of their own rather than terms added to the memory's: a
-- memory's index and length are its own text's, which BM25 and the space's
-- statistics read, and erasing a repeat must not rewrite its memory.
CREATE VIRTUAL TABLE repeat_fts USING fts5 (
    content, tags,
    content = 'memory_repeats', content_rowid = 'pk',
    tokenize = 'memory'
);
INSERT INTO repeat_fts (rowid, content, tags) SELECT pk, content, tags FROM memory_repeats ORDER BY pk;
CREATE TRIGGER memory_repeats_fts_insert AFTER INSERT ON memory_repeats BEGIN
    INSERT INTO repeat_fts (rowid, content, tags) VALUES (new.pk, new.content, new.tags);
END;
CREATE TRIGGER memory_repeats_fts_erase AFTER DELETE ON memory_repeats BEGIN
    INSERT INTO repeat_fts (repeat_fts, rowid, content, tags) VALUES ('delete', old.pk, old.content, old.tags);
END;
