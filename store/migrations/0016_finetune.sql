-- Fine-tuned embedding adapters (finetune/, seed 001's fine-tuning
-- pipeline). An adapter's weights are a checkpoint file in the data
-- directory; the database says which adapters exist, which one is in force
-- over each base embedder, and what every run found.

-- Every adapter deployed once, by base embedder and version. A checkpoint is
-- read only if its SHA-256 is the one recorded here.
CREATE TABLE embedder_adapters (
    base_embedder TEXT    NOT NULL,
    version       INTEGER NOT NULL CHECK (version >= 1),
    file          TEXT    NOT NULL, -- in the data directory's adapters folder
    sha256        TEXT    NOT NULL,
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (base_embedder, version)
) WITHOUT ROWID;

-- Deploys and rollbacks, append-only. Replayed as a stack (a deploy pushes
-- its version, a rollback pops one), the top is the adapter in force over
-- a base and the one below it what the next rollback returns to; an empty
-- stack is the base embedder alone.
CREATE TABLE embedder_deployments (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    base_embedder TEXT    NOT NULL,
    action        TEXT    NOT NULL CHECK (action IN ('deploy', 'rollback')),
    version       INTEGER NOT NULL, -- in force from now; 0: no adapter
    at            INTEGER NOT NULL,
    by_agent_id   TEXT    NOT NULL
);
CREATE INDEX embedder_deployments_base ON embedder_deployments (base_embedder, seq);
CREATE TRIGGER embedder_deployments_no_change BEFORE UPDATE ON embedder_deployments BEGIN
    SELECT RAISE(ABORT, 'embedder_deployments is append-only');
END;
CREATE TRIGGER embedder_deployments_no_delete BEFORE DELETE ON embedder_deployments BEGIN
    SELECT RAISE(ABORT, 'embedder_deployments is append-only');
END;

-- What each run found (figures only, never stored text), newest last.
CREATE TABLE finetune_runs (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    base_embedder TEXT    NOT NULL,
    outcome       TEXT    NOT NULL,
    version       INTEGER, -- the adapter the run made, if any
    started_at    INTEGER NOT NULL,
    finished_at   INTEGER NOT NULL,
    by_agent_id   TEXT    NOT NULL,
    memories      INTEGER NOT NULL, -- active memories when it ran, for the scheduled retrain
    report        TEXT    NOT NULL  -- JSON
);

-- Vectors made for a deployment before it lands: a run writes them here a
-- batch at a time, and the deployment swaps them into memories in its one
-- transaction, so that a run stopped at any point leaves every stored
-- vector as it was. A memory erased meanwhile takes its staged vector with
-- it.
CREATE TABLE memory_vectors_next (
    pk        INTEGER PRIMARY KEY, -- memories.pk
    embedder  TEXT    NOT NULL,
    embedding BLOB    NOT NULL
);
CREATE TRIGGER memory_vectors_next_erase AFTER DELETE ON memories BEGIN
    DELETE FROM memory_vectors_next WHERE pk = old.pk;
END;
