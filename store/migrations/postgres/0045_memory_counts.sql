-- The PostgreSQL twin of the SQLite schema's 0045 (see there for why): one
-- row per key, moved by an upsert, never one hot row for all. Two writers
-- of one key wait on each other (or the second retries, serializable),
-- but they already did: each remember or forget numbers its change in
-- change_counter's one row, and an active memory's insert moves its
-- agent's memory_spaces row. The count adds no order between writers that
-- they did not have.
CREATE TABLE memory_counts (
    agent_id  text   COLLATE "C" NOT NULL,
    shared    bigint NOT NULL,
    category  text   COLLATE "C" NOT NULL,
    namespace text   COLLATE "C" NOT NULL,
    state     text   COLLATE "C" NOT NULL,
    n         bigint NOT NULL CHECK (n >= 0),
    PRIMARY KEY (agent_id, shared, category, namespace, state)
);
-- No sampled values an erasure would not reach (0035): an agent's id and a
-- namespace are erased with the agent's memories.
ALTER TABLE memory_counts ALTER COLUMN agent_id SET STATISTICS 0, ALTER COLUMN category SET STATISTICS 0,
    ALTER COLUMN namespace SET STATISTICS 0, ALTER COLUMN state SET STATISTICS 0;

-- memory.StateOf without the clock.
CREATE FUNCTION memory_mcp_kept_state(forgotten_at bigint, archived_at bigint, reason text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE
        WHEN forgotten_at IS NOT NULL THEN 'forgotten'
        WHEN reason = 'expired' THEN 'expired'
        WHEN reason = 'consolidated' THEN 'consolidated'
        WHEN reason IN ('superseded', 'merged') THEN 'superseded'
        WHEN archived_at IS NOT NULL THEN 'archived'
        ELSE 'active' END;
$$;

INSERT INTO memory_counts (agent_id, shared, category, namespace, state, n)
SELECT agent_id, shared, category, namespace, memory_mcp_kept_state(forgotten_at, archived_at, archive_reason), count(*)
FROM memories GROUP BY 1, 2, 3, 4, 5;

CREATE FUNCTION memory_mcp_counts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    was text;
    now_in text;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        was := memory_mcp_kept_state(OLD.forgotten_at, OLD.archived_at, OLD.archive_reason);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        now_in := memory_mcp_kept_state(NEW.forgotten_at, NEW.archived_at, NEW.archive_reason);
    END IF;
    IF was IS NOT DISTINCT FROM now_in THEN
        RETURN NULL;
    END IF;
    IF was IS NOT NULL THEN
        UPDATE memory_counts SET n = n - 1 WHERE agent_id = OLD.agent_id AND shared = OLD.shared
            AND category = OLD.category AND namespace = OLD.namespace AND state = was;
        IF TG_OP = 'DELETE' THEN
            DELETE FROM memory_counts WHERE agent_id = OLD.agent_id AND shared = OLD.shared
                AND category = OLD.category AND namespace = OLD.namespace AND n = 0;
        END IF;
    END IF;
    IF now_in IS NOT NULL THEN
        INSERT INTO memory_counts AS c (agent_id, shared, category, namespace, state, n)
        VALUES (NEW.agent_id, NEW.shared, NEW.category, NEW.namespace, now_in, 1)
        ON CONFLICT (agent_id, shared, category, namespace, state) DO UPDATE SET n = c.n + 1;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER memories_counts_insert AFTER INSERT ON memories FOR EACH ROW EXECUTE FUNCTION memory_mcp_counts();
CREATE TRIGGER memories_counts_update AFTER UPDATE OF forgotten_at, archived_at, archive_reason ON memories
    FOR EACH ROW EXECUTE FUNCTION memory_mcp_counts();
CREATE TRIGGER memories_counts_delete AFTER DELETE ON memories FOR EACH ROW EXECUTE FUNCTION memory_mcp_counts();

CREATE INDEX memories_expiring ON memories (agent_id, shared, expires_at, category, namespace,
    archived_at, archive_reason) WHERE expires_at IS NOT NULL AND forgotten_at IS NULL;

-- An erase deletes the erased memories' claims by memory; the claims were
-- keyed by agent and claim only, so the delete read every claim of the
-- store (0.8 s of the review page's erase confirmation at 100k memories,
-- 577k claims).
CREATE INDEX memory_claims_memory ON memory_claims (memory_pk);
