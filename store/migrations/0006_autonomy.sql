-- The caller's autonomy, recorded with every write as --autonomy promises.
-- Facts, memories and block versions keep their author's in their author
-- columns. Notes keep their author's here, and so do the ledger events and
-- pending items promotion makes from a note (whoever's call commits them).
-- Forgetting or retracting a memory and publishing it keep the autonomy of
-- who did it beside forgotten_by and published_at. NULL for a human
-- (autonomy is an agent's) and for rows written before this migration.
ALTER TABLE notes ADD COLUMN autonomy TEXT;
ALTER TABLE events_memory ADD COLUMN autonomy TEXT;
ALTER TABLE pending_memory_events ADD COLUMN autonomy TEXT;
ALTER TABLE memories ADD COLUMN forgotten_autonomy TEXT;
ALTER TABLE memories ADD COLUMN published_autonomy TEXT;

-- An event's autonomy is as immutable as the rest of it.
DROP TRIGGER events_memory_immutable;
CREATE TRIGGER events_memory_immutable BEFORE UPDATE OF seq, event_id, bucket, operation, target_id,
    payload_json, raw_input, source_ref, agent_id, run_id, created_at, autonomy ON events_memory BEGIN
    SELECT RAISE(ABORT, 'events_memory rows are immutable; only applied may change');
END;
