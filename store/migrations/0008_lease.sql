-- One maintenance run at a time per data directory, across processes: a
-- lease with a fencing token. A run acquires it when it is free (never held,
-- released, or expired: its holder crashed or stalled), which moves the
-- token on; it renews it as it goes, and every write of the run checks, in
-- its own transaction, that the token is still the lease's. A holder whose
-- lease expired and was taken over therefore cannot write, even if it does
-- not know yet. SQLite serialises the writers, so the token alone orders
-- them.
CREATE TABLE leases (
    name        TEXT    PRIMARY KEY,
    holder      TEXT    NOT NULL, -- who holds it, or last held it: a process and run
    token       INTEGER NOT NULL CHECK (token > 0),
    acquired_at INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL  -- released: the time it was released
) WITHOUT ROWID;

-- When each agent's memories were last maintained by a run that finished,
-- so that every process's scheduler runs an agent once per interval between
-- them, however short-lived each process is.
CREATE TABLE maintenance_runs (
    agent_id    TEXT    PRIMARY KEY,
    finished_at INTEGER NOT NULL,
    holder      TEXT    NOT NULL,
    token       INTEGER NOT NULL
) WITHOUT ROWID;
