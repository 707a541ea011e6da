-- The PostgreSQL twin of the SQLite schema's 0030 (see there for why).
-- A memory's page on the review page reads what it replaced and the write
-- log's lines that name it: without these, each is a scan of the whole
-- table (100k memories, 90 days of write log) for every page shown.
CREATE INDEX memories_superseded_by ON memories (superseded_by) WHERE superseded_by IS NOT NULL;
CREATE INDEX write_log_ref ON write_log (ref, at) WHERE ref IS NOT NULL;
-- The review page lists an agent's memories newest first, a page at a
-- time: walked in this order, a page reads its rows rather than sorting
-- all of the agent's (4 s at 100k memories without it).
CREATE INDEX memories_created ON memories (agent_id, shared, created_at);
-- Counting an agent's memories by category and state (memory_stats, the
-- page's counts, a listing's total) reads only these columns: covered by
-- the index, a count does not read the rows, whose content and vector make
-- most of the file.
CREATE INDEX memories_states ON memories (agent_id, shared, category, forgotten_at, archived_at, archive_reason, expires_at);

-- Rules a human marked "review only" on the review page, from the advice of
-- how many of the rule's held writes were approved: a high-risk write by
-- such a rule is applied and queued for review instead of held. The
-- configured risk tiers stay the baseline (a mark only relaxes high to
-- review); it is read by every process on the file at each high-risk call,
-- so they agree at once. Unmarking deletes the row; the write log keeps
-- both acts.
CREATE TABLE review_only_rules (
    rule      text    PRIMARY KEY,
    marked_by text    NOT NULL, -- human:<id>
    marked_at bigint  NOT NULL,
    reason    text    NOT NULL
);
