-- Risk tiers and human approval (seed 003, 12.6).

-- An approval request: a high-risk write held until a human approves it
-- (kind hold: not applied; approving applies it as its caller), or a
-- medium-risk write applied and queued for a human's review (kind review:
-- the decision is a verdict only). A hold no one decides by expires_at
-- expires, unapplied.
CREATE TABLE approvals (
    id              TEXT    PRIMARY KEY,
    kind            TEXT    NOT NULL CHECK (kind IN ('hold', 'review')),
    tier            TEXT    NOT NULL CHECK (tier IN ('low', 'medium', 'high')),
    rule            TEXT    NOT NULL, -- the classification rule that gave the tier
    principal       TEXT    NOT NULL, -- agent:<id> or human:<id>, as the gates name callers
    identity        TEXT    NOT NULL, -- JSON memory.Identity: the caller a held write is applied as
    tool            TEXT    NOT NULL,
    args            TEXT    NOT NULL, -- the call's arguments without its key, canonical JSON
    idempotency_key TEXT,             -- the call's key, whose record a decision updates
    status          TEXT    NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'expired', 'failed')),
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER,          -- holds only
    decided_by      TEXT,
    decided_at      INTEGER,
    reason          TEXT,             -- the decision's reason
    ref             TEXT,             -- what the write wrote
    error_code      TEXT,             -- how a held write failed, or why it was never applied
    error_message   TEXT
);
CREATE INDEX approvals_created ON approvals (created_at);
CREATE INDEX approvals_principal ON approvals (principal, created_at);
CREATE INDEX approvals_pending ON approvals (expires_at) WHERE status = 'pending' AND kind = 'hold';

-- The write log learns the outcome held: a call held for approval, its
-- line's ref the approval. SQLite cannot change a CHECK, so the table is
-- made again with its rows.
ALTER TABLE write_log RENAME TO write_log_old;
CREATE TABLE write_log (
    id         INTEGER PRIMARY KEY,
    at         INTEGER NOT NULL,
    principal  TEXT    NOT NULL,
    tool       TEXT    NOT NULL,
    outcome    TEXT    NOT NULL CHECK (outcome IN ('stored', 'duplicate', 'merged', 'replayed', 'rejected', 'unchanged', 'held')),
    gate       TEXT,             -- the gate that decided an outcome other than stored
    reason     TEXT,             -- rejected: the error's code; duplicate: the tier that found it; held: the risk tier
    ref        TEXT,             -- the memory stored or found; held: the approval
    latency_ns INTEGER NOT NULL, -- from the call's admission to its log line
    gates      TEXT              -- JSON {gate: nanoseconds} spent in each gate
);
INSERT INTO write_log (id, at, principal, tool, outcome, gate, reason, ref, latency_ns, gates)
    SELECT id, at, principal, tool, outcome, gate, reason, ref, latency_ns, gates FROM write_log_old;
DROP TABLE write_log_old;
CREATE INDEX write_log_at ON write_log (at);
CREATE INDEX write_log_principal ON write_log (principal, at);
