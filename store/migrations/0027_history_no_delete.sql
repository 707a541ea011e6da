-- Every table that keeps history refuses a delete, as the design says:
-- notes (what agents wrote, which promotion read), the pending queue (what
-- waits for a curator, and what was decided of it), approvals (who asked
-- for what, who decided), and the conflicts between memories and between
-- facts (what clashed, and who settled it) had no trigger, so a stray
-- DELETE could drop the record silently. As for the tables of 0012, only
-- erase and gc delete, inside their own transaction while it holds the
-- one row of erase_permit.
CREATE TRIGGER notes_no_delete BEFORE DELETE ON notes
WHEN NOT EXISTS (SELECT 1 FROM erase_permit) BEGIN
    SELECT RAISE(ABORT, 'notes are kept: promotion records what it made of each (processed_at, outcome_json)');
END;
CREATE TRIGGER pending_memory_events_no_delete BEFORE DELETE ON pending_memory_events
WHEN NOT EXISTS (SELECT 1 FROM erase_permit) BEGIN
    SELECT RAISE(ABORT, 'pending items are resolved, not deleted: bind or drop them with a reason');
END;
CREATE TRIGGER approvals_no_delete BEFORE DELETE ON approvals
WHEN NOT EXISTS (SELECT 1 FROM erase_permit) BEGIN
    SELECT RAISE(ABORT, 'approval requests are decided, not deleted: approve or reject them');
END;
CREATE TRIGGER memory_conflicts_no_delete BEFORE DELETE ON memory_conflicts
WHEN NOT EXISTS (SELECT 1 FROM erase_permit) BEGIN
    SELECT RAISE(ABORT, 'conflicts are resolved, not deleted: resolve_conflict records the decision');
END;
CREATE TRIGGER fact_conflicts_no_delete BEFORE DELETE ON fact_conflicts
WHEN NOT EXISTS (SELECT 1 FROM erase_permit) BEGIN
    SELECT RAISE(ABORT, 'conflicts are resolved, not deleted: resolve_conflict records the decision');
END;

-- What a note said, and who wrote it when, never changes; promotion
-- writes only its outcome.
CREATE TRIGGER notes_fixed BEFORE UPDATE OF note_id, agent_id, run_id, kind, text, task_id, created_at, autonomy ON notes
BEGIN
    SELECT RAISE(ABORT, 'a note never changes: write another');
END;

-- A held write is a request holding its caller's identity and arguments:
-- what is applied on approval is what was asked, never an edit of it.
CREATE TRIGGER approvals_fixed BEFORE UPDATE OF id, kind, tier, rule, principal, identity, tool, args, idempotency_key, created_at, expires_at ON approvals
BEGIN
    SELECT RAISE(ABORT, 'an approval request never changes: its caller asks again');
END;
