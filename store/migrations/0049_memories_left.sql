-- When each agent's memories left search, for the statistics' trend of
-- active memories (issue 27): it starts from the memories active now
-- (memory_counts) and walks back through those written, forgotten or
-- archived within the window, never every memory. Written ones are read
-- from memories_listing alone; these two hold what the walk reads of the
-- forgotten and the archived, so that it reads no row of memories.
CREATE INDEX memories_forgotten ON memories (agent_id, shared, forgotten_at, created_at, archived_at)
    WHERE forgotten_at IS NOT NULL;
CREATE INDEX memories_archived_at ON memories (agent_id, shared, archived_at, created_at, forgotten_at)
    WHERE archived_at IS NOT NULL;
