-- Core memory blocks (issue 5): labelled texts an agent keeps in view and
-- rewrites itself. A personal block's scope is its owner's agent id; a shared
-- block's scope is '*'. A label names either one shared block or personal
-- blocks, never both (enforced by the store, which sees every agent's rows).
CREATE TABLE blocks (
    id          INTEGER PRIMARY KEY,
    scope       TEXT    NOT NULL,
    label       TEXT    NOT NULL,
    description TEXT    NOT NULL,
    value       TEXT    NOT NULL,
    char_limit  INTEGER NOT NULL CHECK (char_limit > 0),
    read_only   INTEGER NOT NULL DEFAULT 0,
    owner       TEXT    NOT NULL, -- '' for a shared block made by configuration
    writers     TEXT    NOT NULL DEFAULT '[]', -- JSON array of agent ids, '*' for every agent
    readers     TEXT    NOT NULL DEFAULT '[]', -- JSON array; empty: every agent
    version     INTEGER NOT NULL CHECK (version >= 1),
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL, -- unix nanoseconds, UTC; increasing per block
    updated_by  TEXT    NOT NULL,
    deleted_at  INTEGER,          -- set while the newest version is a deletion
    UNIQUE (scope, label)
);
CREATE INDEX blocks_label ON blocks (label);

-- Every version of every block, in full: the history an agent can list and
-- restore from. Append-only; blocks.version is always its newest version.
CREATE TABLE block_versions (
    block_id         INTEGER NOT NULL REFERENCES blocks (id),
    version          INTEGER NOT NULL CHECK (version >= 1),
    op               TEXT    NOT NULL CHECK (op IN ('create', 'append', 'replace', 'insert', 'rethink', 'delete', 'restore', 'configure')),
    value            TEXT    NOT NULL,
    description      TEXT    NOT NULL,
    char_limit       INTEGER NOT NULL,
    deleted          INTEGER NOT NULL DEFAULT 0,
    restored_from    INTEGER,
    author_agent_id  TEXT    NOT NULL,
    author_seniority TEXT,
    author_autonomy  TEXT,
    author_is_human  INTEGER NOT NULL DEFAULT 0,
    at               INTEGER NOT NULL,
    PRIMARY KEY (block_id, version)
) WITHOUT ROWID;
CREATE TRIGGER block_versions_no_update BEFORE UPDATE ON block_versions BEGIN
    SELECT RAISE(ABORT, 'block_versions is append-only');
END;
CREATE TRIGGER block_versions_no_delete BEFORE DELETE ON block_versions BEGIN
    SELECT RAISE(ABORT, 'block_versions is append-only');
END;
