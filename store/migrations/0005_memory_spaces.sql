-- Search statistics per space (an agent's personal memories, an agent's
-- shared ones), kept by triggers: how many memories the full-text index holds
-- and their tokens, which give BM25 its N and mean length, and a generation
-- that moves on every change. A search counts inside the spaces it may read,
-- so another agent's private memories never move its scores.

-- Tokens of content and tags as the full-text index counts them, for the
-- mean document length of a space. memory_length is the Go function that
-- counts them on insert (store.indexedLength), registered on every connection.
ALTER TABLE memories ADD COLUMN length INTEGER NOT NULL DEFAULT 0 CHECK (length >= 0);
UPDATE memories SET length = memory_length(content, tags);

DROP TRIGGER memories_immutable;
CREATE TRIGGER memories_immutable BEFORE UPDATE OF id, agent_id, namespace, category, content, tags, shared,
    created_at, occurred_at, published_from, filters, length ON memories BEGIN
    SELECT RAISE(ABORT, 'memory content and ownership are immutable');
END;

CREATE TABLE memory_spaces (
    agent_id TEXT    NOT NULL,
    shared   INTEGER NOT NULL,
    rows     INTEGER NOT NULL,
    tokens   INTEGER NOT NULL,
    gen      INTEGER NOT NULL,
    PRIMARY KEY (agent_id, shared)
) WITHOUT ROWID;
INSERT INTO memory_spaces (agent_id, shared, rows, tokens, gen)
    SELECT agent_id, shared, count(*), sum(length), 1 FROM memories WHERE forgotten_at IS NULL GROUP BY agent_id, shared;

CREATE TRIGGER memories_space_insert AFTER INSERT ON memories WHEN new.forgotten_at IS NULL BEGIN
    INSERT INTO memory_spaces (agent_id, shared, rows, tokens, gen) VALUES (new.agent_id, new.shared, 1, new.length, 1)
    ON CONFLICT (agent_id, shared) DO UPDATE SET rows = rows + 1, tokens = tokens + excluded.tokens, gen = gen + 1;
END;
CREATE TRIGGER memories_space_forget AFTER UPDATE OF forgotten_at ON memories
WHEN old.forgotten_at IS NULL AND new.forgotten_at IS NOT NULL BEGIN
    UPDATE memory_spaces SET rows = rows - 1, tokens = tokens - old.length, gen = gen + 1
    WHERE agent_id = old.agent_id AND shared = old.shared;
END;

-- A period a search names (since, until, "in May 2023") is applied before
-- BM25 ranks anything, through this index (see store.bm25List).
CREATE INDEX memories_occurred ON memories (occurred_at) WHERE forgotten_at IS NULL;
