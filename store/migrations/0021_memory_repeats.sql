-- A write answered "duplicate" stores no memory, and dedup can be wrong
-- ("internal API" and "international API"): the words the caller sent are
-- kept here, one row per repeat, with the memory they were taken to repeat,
-- so that they can be read back and stored as their own memory after all
-- (remember or publish_memory with not_a_repeat_of, or the review page).
--
-- tool is the tool answered: remember (the row holds the write's arguments,
-- so that it can be made again) or publish_memory (from_id is the personal
-- memory whose publish was answered; content is its words as they were).
-- stored_as is the memory the words were stored as after all. A row holds a
-- caller's words: erase and gc remove it with its memory, and an erase by
-- text finds it; no other path deletes it. Its covered columns carry a
-- provenance stamp (repeat/v1) as a memory's do.
CREATE TABLE memory_repeats (
    pk               INTEGER PRIMARY KEY,
    id               TEXT    NOT NULL UNIQUE,   -- rep-<12 hex>
    memory_id        TEXT    NOT NULL,          -- the memory it was answered a repeat of
    agent_id         TEXT    NOT NULL,          -- who said it
    tool             TEXT    NOT NULL CHECK (tool IN ('remember', 'publish_memory')),
    from_id          TEXT,                      -- publish_memory: the memory published
    content          TEXT    NOT NULL,
    namespace        TEXT    NOT NULL,
    category         TEXT    NOT NULL,
    tags             TEXT    NOT NULL,          -- JSON list
    confidence       REAL,                      -- as sent; NULL: none given
    source           TEXT,
    occurred_at      INTEGER,                   -- as sent; NULL: none given
    expires_at       INTEGER,
    tier             TEXT    NOT NULL,
    said_at          INTEGER NOT NULL,
    author_seniority TEXT,
    author_autonomy  TEXT,
    author_is_human  INTEGER NOT NULL,
    stored_as        TEXT,
    stamp            BLOB
);
CREATE INDEX memory_repeats_memory ON memory_repeats (memory_id);
CREATE INDEX memory_repeats_agent ON memory_repeats (agent_id, said_at);
CREATE INDEX memory_repeats_said ON memory_repeats (said_at);

CREATE TRIGGER memory_repeats_immutable BEFORE UPDATE OF id, memory_id, agent_id, tool, from_id, content, namespace, category,
    tags, confidence, source, occurred_at, expires_at, tier, said_at, author_seniority, author_autonomy, author_is_human
    ON memory_repeats BEGIN
    SELECT RAISE(ABORT, 'a repeat keeps the words as they were said');
END;
CREATE TRIGGER memory_repeats_stamp_once BEFORE UPDATE OF stamp ON memory_repeats WHEN old.stamp IS NOT NULL BEGIN
    SELECT RAISE(ABORT, 'a provenance stamp is written once');
END;
CREATE TRIGGER memory_repeats_no_delete BEFORE DELETE ON memory_repeats
WHEN NOT EXISTS (SELECT 1 FROM erase_permit) BEGIN
    SELECT RAISE(ABORT, 'a repeat is removed only by erase or gc');
END;
