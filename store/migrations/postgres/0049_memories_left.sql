-- The PostgreSQL twin of the SQLite schema's 0049 (see there for why).
CREATE INDEX memories_forgotten ON memories (agent_id, shared, forgotten_at, created_at, archived_at)
    WHERE forgotten_at IS NOT NULL;
CREATE INDEX memories_archived_at ON memories (agent_id, shared, archived_at, created_at, forgotten_at)
    WHERE archived_at IS NOT NULL;
