-- How many memories each space holds in each state, kept by the database
-- (issue 27): the review page and memory_stats showed counts per state,
-- category and namespace read with count(*) over every row of the agent on
-- each load (0.2-0.5 s at 100k memories). One row per agent, space
-- (personal or shared), category, namespace and kept state, moved by the
-- triggers below on every insert, every change of state and every delete
-- (an erasure deletes rows; a key whose count reaches 0 on a delete goes,
-- so no agent or namespace erased is left named here).
--
-- The kept state is memory.StateOf without the clock: forgotten, expired
-- (archived as such), consolidated, superseded (or merged), archived,
-- active. A memory whose expires_at has passed is expired by time, which no
-- trigger sees; the store counts those few live (memories_expiring) and
-- moves them from their kept state when it reads (store.countStates).
CREATE TABLE memory_counts (
    agent_id  TEXT    NOT NULL,
    shared    INTEGER NOT NULL,
    category  TEXT    NOT NULL,
    namespace TEXT    NOT NULL,
    state     TEXT    NOT NULL,
    n         INTEGER NOT NULL CHECK (n >= 0),
    PRIMARY KEY (agent_id, shared, category, namespace, state)
) WITHOUT ROWID;

INSERT INTO memory_counts (agent_id, shared, category, namespace, state, n)
SELECT agent_id, shared, category, namespace, CASE
        WHEN forgotten_at IS NOT NULL THEN 'forgotten'
        WHEN archive_reason = 'expired' THEN 'expired'
        WHEN archive_reason = 'consolidated' THEN 'consolidated'
        WHEN archive_reason IN ('superseded', 'merged') THEN 'superseded'
        WHEN archived_at IS NOT NULL THEN 'archived'
        ELSE 'active' END, count(*)
FROM memories GROUP BY 1, 2, 3, 4, 5;

CREATE TRIGGER memories_counts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memory_counts (agent_id, shared, category, namespace, state, n)
    VALUES (new.agent_id, new.shared, new.category, new.namespace, CASE
        WHEN new.forgotten_at IS NOT NULL THEN 'forgotten'
        WHEN new.archive_reason = 'expired' THEN 'expired'
        WHEN new.archive_reason = 'consolidated' THEN 'consolidated'
        WHEN new.archive_reason IN ('superseded', 'merged') THEN 'superseded'
        WHEN new.archived_at IS NOT NULL THEN 'archived'
        ELSE 'active' END, 1)
    ON CONFLICT (agent_id, shared, category, namespace, state) DO UPDATE SET n = n + 1;
END;

-- Space, category and namespace never change (memories_immutable): only
-- the state moves.
CREATE TRIGGER memories_counts_update AFTER UPDATE OF forgotten_at, archived_at, archive_reason ON memories
WHEN old.forgotten_at IS NOT new.forgotten_at OR old.archived_at IS NOT new.archived_at
    OR old.archive_reason IS NOT new.archive_reason BEGIN
    UPDATE memory_counts SET n = n - 1
    WHERE agent_id = old.agent_id AND shared = old.shared AND category = old.category AND namespace = old.namespace
    AND state = CASE
        WHEN old.forgotten_at IS NOT NULL THEN 'forgotten'
        WHEN old.archive_reason = 'expired' THEN 'expired'
        WHEN old.archive_reason = 'consolidated' THEN 'consolidated'
        WHEN old.archive_reason IN ('superseded', 'merged') THEN 'superseded'
        WHEN old.archived_at IS NOT NULL THEN 'archived'
        ELSE 'active' END;
    INSERT INTO memory_counts (agent_id, shared, category, namespace, state, n)
    VALUES (new.agent_id, new.shared, new.category, new.namespace, CASE
        WHEN new.forgotten_at IS NOT NULL THEN 'forgotten'
        WHEN new.archive_reason = 'expired' THEN 'expired'
        WHEN new.archive_reason = 'consolidated' THEN 'consolidated'
        WHEN new.archive_reason IN ('superseded', 'merged') THEN 'superseded'
        WHEN new.archived_at IS NOT NULL THEN 'archived'
        ELSE 'active' END, 1)
    ON CONFLICT (agent_id, shared, category, namespace, state) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER memories_counts_delete AFTER DELETE ON memories BEGIN
    UPDATE memory_counts SET n = n - 1
    WHERE agent_id = old.agent_id AND shared = old.shared AND category = old.category AND namespace = old.namespace
    AND state = CASE
        WHEN old.forgotten_at IS NOT NULL THEN 'forgotten'
        WHEN old.archive_reason = 'expired' THEN 'expired'
        WHEN old.archive_reason = 'consolidated' THEN 'consolidated'
        WHEN old.archive_reason IN ('superseded', 'merged') THEN 'superseded'
        WHEN old.archived_at IS NOT NULL THEN 'archived'
        ELSE 'active' END;
    DELETE FROM memory_counts
    WHERE agent_id = old.agent_id AND shared = old.shared AND category = old.category AND namespace = old.namespace AND n = 0;
END;

-- The memories a clock may have expired since the counts were kept: read
-- from this index alone, in a space, up to the time asked.
CREATE INDEX memories_expiring ON memories (agent_id, shared, expires_at, category, namespace,
    archived_at, archive_reason) WHERE expires_at IS NOT NULL AND forgotten_at IS NULL;

-- An erase deletes the erased memories' claims by memory; the claims were
-- keyed by agent and claim only, so the delete read every claim of the
-- store (0.8 s of the review page's erase confirmation at 100k memories,
-- 577k claims).
CREATE INDEX memory_claims_memory ON memory_claims (memory_pk);
