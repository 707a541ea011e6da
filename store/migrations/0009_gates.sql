-- The write gates (seed 003's write path).

-- Idempotency keys. A mutating call that carries a key claims it in the
-- transaction of its first write, so the key is taken exactly when the
-- write commits; the call's result is added once it has one, for a repeat
-- to return. An expired key may be claimed again.
CREATE TABLE idempotency_keys (
    principal  TEXT    NOT NULL, -- agent:<id> or human:<id>: keys of different callers never collide
    key        TEXT    NOT NULL,
    tool       TEXT    NOT NULL,
    args_hash  TEXT    NOT NULL, -- SHA-256 of the tool and its arguments without the key
    result     TEXT,             -- the structured result, JSON; NULL until the call finished
    text       TEXT,
    error_code    TEXT,          -- a call that failed after it wrote: its error, which a repeat gets
    error_message TEXT,
    ref        TEXT,             -- what the call's first write wrote, when it says
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (principal, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- The write log: how each call of a tool that writes ended and which gate
-- decided, written in the call's own write transaction when it committed
-- and on its own otherwise. Metrics are read from it; lines older than 90
-- days are pruned as new ones come.
CREATE TABLE write_log (
    id         INTEGER PRIMARY KEY,
    at         INTEGER NOT NULL,
    principal  TEXT    NOT NULL,
    tool       TEXT    NOT NULL,
    outcome    TEXT    NOT NULL CHECK (outcome IN ('stored', 'duplicate', 'replayed', 'rejected', 'unchanged')),
    gate       TEXT,             -- the gate that decided an outcome other than stored
    reason     TEXT,             -- rejected: the error's code; duplicate: the tier that found it
    ref        TEXT,             -- the memory stored or found
    latency_ns INTEGER NOT NULL, -- from the call's admission to its log line
    gates      TEXT              -- JSON {gate: nanoseconds} spent in each gate
);
CREATE INDEX write_log_at ON write_log (at);
CREATE INDEX write_log_principal ON write_log (principal, at);

-- Dedup keys of a memory (memory.DedupKeys), and how often it was said
-- again: a repeat stores nothing and counts here.
ALTER TABLE memories ADD COLUMN exact_key TEXT;
ALTER TABLE memories ADD COLUMN words_key TEXT;
ALTER TABLE memories ADD COLUMN seen_count INTEGER NOT NULL DEFAULT 1;
ALTER TABLE memories ADD COLUMN last_seen_at INTEGER;
CREATE INDEX memories_exact_key ON memories (agent_id, exact_key);
CREATE INDEX memories_words_key ON memories (agent_id, words_key);
