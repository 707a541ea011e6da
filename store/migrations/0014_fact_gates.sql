-- Dedup and contradictions for organisational facts (seed 003, 12.3 and
-- 12.2.4), as memories have them since 0009 and 0010.
--
-- A fact's words key (memory.DedupKeys: its words with case, punctuation,
-- articles and the present of "to be" folded) finds the active fact of the
-- same category that already says what a new one says. Its claims (what it
-- states, hashed, with the value taken out, and that value) find the active
-- facts that state the same thing with another value. Both are of the
-- current version only: republishing replaces them, retracting removes them.
--
-- A contradiction between facts is never settled by the write: a fact binds
-- every agent, and who may retract which is a question of write access. It
-- is recorded open, for a human or an author with access to decide (the one
-- not kept is retracted).
ALTER TABLE snapshot ADD COLUMN words_key TEXT;
CREATE INDEX snapshot_words ON snapshot (words_key, category) WHERE retracted_at IS NULL;

CREATE TABLE fact_claims (
    claim   INTEGER NOT NULL,
    value   INTEGER NOT NULL,
    fact_id TEXT    NOT NULL REFERENCES snapshot (fact_id),
    PRIMARY KEY (claim, value, fact_id)
) WITHOUT ROWID;
CREATE INDEX fact_claims_fact ON fact_claims (fact_id);

CREATE TABLE fact_conflicts (
    id            TEXT    PRIMARY KEY,
    older_id      TEXT    NOT NULL REFERENCES snapshot (fact_id),
    older_version INTEGER NOT NULL,
    newer_id      TEXT    NOT NULL REFERENCES snapshot (fact_id),
    newer_version INTEGER NOT NULL,
    kind          TEXT    NOT NULL CHECK (kind IN ('negation', 'value', 'model')),
    slot          TEXT,
    older_value   TEXT,
    newer_value   TEXT,
    -- open: both stand; newer_wins: the older was retracted; older_wins:
    -- the newer was; both_hold: someone said both are true, or one changed
    -- so that they no longer clash.
    resolution    TEXT    NOT NULL CHECK (resolution IN ('open', 'newer_wins', 'older_wins', 'both_hold')),
    detected_at   INTEGER NOT NULL,
    detected_by   TEXT    NOT NULL,
    resolved_at   INTEGER,
    resolved_by   TEXT,
    reason        TEXT,
    -- 1: someone decided it (resolve_conflict); 0: found, or settled
    -- because a version no longer clashes. A decision that both hold
    -- outlasts republishing the same clash; a settlement does not.
    decided       INTEGER NOT NULL DEFAULT 0,
    UNIQUE (older_id, newer_id),
    CHECK ((resolution = 'open') = (resolved_at IS NULL))
);
CREATE INDEX fact_conflicts_open ON fact_conflicts (resolution, detected_at);
CREATE INDEX fact_conflicts_newer ON fact_conflicts (newer_id);
