-- Contradictions between an agent's memories (seed 003, 12.2.4). Each
-- personal memory's claims (memory.ClaimKeys: what it states, hashed, as a
-- key with its value or polarity taken out, and that value) are kept beside
-- it, so that a new memory finds by index the ones that claim the same key
-- with another value, and only those. A contradiction found, or stated by
-- the writer (remember's supersedes), is a conflict: either the newer memory
-- superseded the older one, which is then archived with reason
-- 'superseded' and a pointer to it (out of search, recallable, restorable),
-- or both stand and the conflict is open for review.
--
-- A repeat that only adds tags is merged: stored as a new memory carrying
-- both's tags, which replaces the first (archive reason 'merged', the same
-- pointer).
--
-- The Go step of this migration adds 'superseded' and 'merged' to the archive reasons
-- the memories table accepts (a CHECK constraint, which SQLite can only
-- widen by rewriting the table's schema text) and fills the claims of the
-- memories already stored.
ALTER TABLE memories ADD COLUMN superseded_by TEXT;

CREATE TABLE memory_claims (
    agent_id  TEXT    NOT NULL,
    claim     INTEGER NOT NULL,
    value     INTEGER NOT NULL,
    -- No foreign key: a statement checking one keeps a statement journal,
    -- and opening it makes the full-text index write out at once what it
    -- holds for the commit (a fifth of a write, measured). Erase and gc
    -- delete a memory's claims with it.
    memory_pk INTEGER NOT NULL,
    PRIMARY KEY (agent_id, claim, value, memory_pk)
) WITHOUT ROWID;

CREATE TABLE memory_conflicts (
    id          TEXT    PRIMARY KEY,
    agent_id    TEXT    NOT NULL,
    older_id    TEXT    NOT NULL REFERENCES memories (id),
    newer_id    TEXT    NOT NULL REFERENCES memories (id),
    kind        TEXT    NOT NULL CHECK (kind IN ('negation', 'value', 'stated', 'model')),
    slot        TEXT,
    older_value TEXT,
    newer_value TEXT,
    -- open: both stand; newer_wins: the older was superseded; older_wins:
    -- the newer was; both_hold: someone said both are true.
    resolution  TEXT    NOT NULL CHECK (resolution IN ('open', 'newer_wins', 'older_wins', 'both_hold')),
    detected_at INTEGER NOT NULL,
    detected_by TEXT    NOT NULL, -- the principal whose write found it
    resolved_at INTEGER,
    resolved_by TEXT,
    reason      TEXT,
    UNIQUE (older_id, newer_id),
    CHECK ((resolution = 'open') = (resolved_at IS NULL))
);
CREATE INDEX memory_conflicts_agent ON memory_conflicts (agent_id, resolution, detected_at);
CREATE INDEX memory_conflicts_newer ON memory_conflicts (newer_id);
