-- The full-text indexes hold the terms the store's own rules make
-- (internal/text Terms: words without diacritics, stemmed by inflection
-- only), through the Go tokenizer "memory" registered on every connection
-- (store/bm25.go), instead of FTS5's Porter stemmer. Porter folds
-- derivations, so "international" found "internal" and "memorial"
-- "memory", while the query builder and every other text rule kept them
-- apart; and PostgreSQL's tsvector is written from the same Go terms, so
-- both engines index and search alike. The tokenizer of an FTS5 table is
-- fixed when it is made: each index is made again and refilled with the
-- rows it held (the triggers that keep it name it and stay as they are).
DROP TABLE memory_fts;
CREATE VIRTUAL TABLE memory_fts USING fts5 (
    content, tags, filters,
    content = 'memories', content_rowid = 'pk',
    tokenize = 'memory'
);
INSERT INTO memory_fts (rowid, content, tags, filters)
    SELECT pk, content, tags, filters FROM memories WHERE forgotten_at IS NULL AND archived_at IS NULL ORDER BY pk;

DROP TABLE memory_archive_fts;
CREATE VIRTUAL TABLE memory_archive_fts USING fts5 (
    content, tags, filters,
    content = 'memories', content_rowid = 'pk',
    tokenize = 'memory'
);
INSERT INTO memory_archive_fts (rowid, content, tags, filters)
    SELECT pk, content, tags, filters FROM memories WHERE archived_at IS NOT NULL AND forgotten_at IS NULL ORDER BY pk;

DROP TABLE fact_fts;
CREATE VIRTUAL TABLE fact_fts USING fts5 (
    content, tags,
    content = 'operation_log', content_rowid = 'id',
    tokenize = 'memory'
);
INSERT INTO fact_fts (rowid, content, tags)
    SELECT id, content, tags FROM operation_log WHERE operation_type = 'PUBLISH' ORDER BY id;
