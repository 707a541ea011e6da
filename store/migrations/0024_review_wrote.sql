-- A review of a promotion says what it wrote: the ledger events the call
-- committed, as JSON [{seq, bucket, operation, target_id, raw_input}], where
-- its arguments ({} for promote_notes) say nothing. NULL for every other
-- request.
ALTER TABLE approvals ADD COLUMN wrote TEXT;
