-- The PostgreSQL twin of the SQLite schema's 0040 (see there for why).
DROP INDEX memories_created;
DROP INDEX memories_states;
CREATE INDEX memories_listing ON memories (agent_id, shared, created_at, id,
    forgotten_at, archived_at, archive_reason, expires_at, category, namespace);
CREATE INDEX memories_shared_listing ON memories (created_at, id,
    forgotten_at, archived_at, archive_reason, expires_at, category, namespace) WHERE shared = 1;
