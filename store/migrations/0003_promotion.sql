-- Governed promotion (seed 002): private notes -> ledger -> shared buckets.

-- Working memory: notes private to one agent and one run. No schema beyond
-- kind and size; processed_at and the outcome are set when promotion took it.
CREATE TABLE notes (
    note_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id     TEXT    NOT NULL,
    run_id       TEXT    NOT NULL,
    kind         TEXT    NOT NULL CHECK (kind IN ('agent', 'tool_result')),
    text         TEXT    NOT NULL,
    task_id      TEXT,
    created_at   INTEGER NOT NULL,
    processed_at INTEGER,
    outcome_json TEXT
);
CREATE INDEX notes_unprocessed ON notes (agent_id, run_id, note_id) WHERE processed_at IS NULL;

-- The ledger: every committed canonical write, recorded before it is
-- projected. applied says whether the projection succeeded; a failed one
-- leaves the event here to be replayed.
CREATE TABLE events_memory (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id         TEXT    NOT NULL UNIQUE,
    bucket           TEXT    NOT NULL,
    operation        TEXT    NOT NULL,
    target_id        TEXT    NOT NULL DEFAULT '',
    payload_json     TEXT    NOT NULL,
    raw_input        TEXT    NOT NULL,
    source_ref       TEXT    NOT NULL, -- matched target, candidates, reason, provenance
    agent_id         TEXT    NOT NULL,
    run_id           TEXT    NOT NULL,
    created_at       INTEGER NOT NULL,
    applied          INTEGER NOT NULL DEFAULT 0,
    applied_at       INTEGER,
    projection_error TEXT
);
CREATE INDEX events_memory_target ON events_memory (bucket, target_id);
-- Writes to a target whose event failed to project wait until replay applies it.
CREATE INDEX events_memory_unapplied ON events_memory (bucket, target_id) WHERE applied = 0;
-- Events are immutable; only their projection state may change.
CREATE TRIGGER events_memory_no_delete BEFORE DELETE ON events_memory BEGIN
    SELECT RAISE(ABORT, 'events_memory is append-only');
END;
CREATE TRIGGER events_memory_immutable BEFORE UPDATE OF seq, event_id, bucket, operation, target_id,
    payload_json, raw_input, source_ref, agent_id, run_id, created_at ON events_memory BEGIN
    SELECT RAISE(ABORT, 'events_memory rows are immutable; only applied may change');
END;

-- Writes that matter but could not be committed safely yet. A stale item is
-- retried no more and waits, still visible, for a curator: it used up its
-- automatic retries, or no retry could ever settle it. Items are retried
-- when their bucket changes.
CREATE TABLE pending_memory_events (
    pending_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    bucket          TEXT    NOT NULL,
    note_kind       TEXT    NOT NULL DEFAULT 'agent',
    request_json    TEXT    NOT NULL,
    fingerprint     TEXT    NOT NULL,
    raw_input       TEXT    NOT NULL,
    note_id         INTEGER,
    agent_id        TEXT    NOT NULL,
    run_id          TEXT    NOT NULL,
    interpreter     TEXT    NOT NULL DEFAULT '',
    reason          TEXT    NOT NULL,
    candidates_json TEXT    NOT NULL DEFAULT '[]',
    attempts        INTEGER NOT NULL DEFAULT 0,
    stale           INTEGER NOT NULL DEFAULT 0,
    status          TEXT    NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'committed', 'dropped')),
    note_at         INTEGER NOT NULL, -- when the note was written: fuzzy binds see only rows live then
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    resolution_json TEXT
);
CREATE INDEX pending_open ON pending_memory_events (bucket, stale, pending_id) WHERE status = 'open';
CREATE INDEX pending_fingerprint ON pending_memory_events (fingerprint) WHERE status = 'open';

-- Canonical shared state: projections of the ledger, rebuilt by replay.
-- Every row names the event that last changed it.
CREATE TABLE shared_plan (
    id         TEXT    PRIMARY KEY,
    text       TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    event_id   TEXT    NOT NULL
);

-- The three tracked buckets share one shape: a lifecycle status, the
-- reference memory that lets later notes find the row again, and noted_at,
-- when the note that created the row was written (a vague note can only mean
-- a row whose origin it could have known). An issue also keeps the kind it
-- was reported as when it was recorded or reopened (a blocker: note or a
-- blocked-by sentence makes a blocker), so that "the earlier blocker" can
-- name the one blocker there is; it is derived from the reporting event, so
-- replay reproduces it.
CREATE TABLE shared_issues (
    id                    TEXT    PRIMARY KEY,
    text                  TEXT    NOT NULL,
    text_key              TEXT    NOT NULL,
    status                TEXT    NOT NULL CHECK (status IN ('open', 'resolved')),
    kind                  TEXT    NOT NULL DEFAULT 'issue' CHECK (kind IN ('issue', 'blocker')),
    reference_memory_json TEXT    NOT NULL,
    close_reason          TEXT,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL,
    closed_at             INTEGER,
    noted_at              INTEGER NOT NULL,
    event_id              TEXT    NOT NULL
);
CREATE INDEX shared_issues_key ON shared_issues (text_key);

CREATE TABLE shared_constraints (
    id                    TEXT    PRIMARY KEY,
    text                  TEXT    NOT NULL,
    text_key              TEXT    NOT NULL,
    status                TEXT    NOT NULL CHECK (status IN ('active', 'invalidated')),
    reference_memory_json TEXT    NOT NULL,
    close_reason          TEXT,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL,
    closed_at             INTEGER,
    noted_at              INTEGER NOT NULL,
    event_id              TEXT    NOT NULL
);
CREATE INDEX shared_constraints_key ON shared_constraints (text_key);

CREATE TABLE shared_decisions (
    id                    TEXT    PRIMARY KEY,
    text                  TEXT    NOT NULL,
    text_key              TEXT    NOT NULL,
    status                TEXT    NOT NULL CHECK (status IN ('active', 'superseded')),
    reference_memory_json TEXT    NOT NULL,
    close_reason          TEXT,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL,
    closed_at             INTEGER,
    noted_at              INTEGER NOT NULL,
    event_id              TEXT    NOT NULL
);
CREATE INDEX shared_decisions_key ON shared_decisions (text_key);

CREATE TABLE shared_results (
    id         TEXT    PRIMARY KEY, -- result_<ledger seq>
    task_id    TEXT    NOT NULL DEFAULT '',
    text       TEXT    NOT NULL,
    text_key   TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    event_id   TEXT    NOT NULL
);
CREATE INDEX shared_results_key ON shared_results (text_key, task_id);

CREATE TABLE shared_task_state (
    id         TEXT    PRIMARY KEY, -- the task id
    state      TEXT    NOT NULL,
    text       TEXT    NOT NULL DEFAULT '',
    version    INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    event_id   TEXT    NOT NULL
);

CREATE TABLE shared_learnings (
    id         TEXT    PRIMARY KEY, -- learning_<ledger seq>
    text       TEXT    NOT NULL,
    text_key   TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    event_id   TEXT    NOT NULL
);
CREATE INDEX shared_learnings_key ON shared_learnings (text_key);
