-- The review page lists an agent's memories (or the shared space) in one
-- state, newest first, a page at a time, each next page keyed by the last
-- one's (created_at, id). memories_created (0030) gave the order but not
-- the state, so a page read each row it passed over to test it: a deep page
-- or a rare state (forgotten, one category) read most of the agent's rows,
-- content and all (2 s at 100k memories). These hold every column a
-- listing filters on, so the rows passed over are read from the index and
-- only a page's own rows from the table. memories_listing also covers what
-- memories_states (0030) gave the counts, and the id besides, which tells
-- the summaries among them without reading a row: it replaces both.
DROP INDEX memories_created;
DROP INDEX memories_states;
CREATE INDEX memories_listing ON memories (agent_id, shared, created_at, id,
    forgotten_at, archived_at, archive_reason, expires_at, category, namespace);
CREATE INDEX memories_shared_listing ON memories (created_at, id,
    forgotten_at, archived_at, archive_reason, expires_at, category, namespace) WHERE shared = 1;
