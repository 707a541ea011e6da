-- A scrub owed (store.DB.ScrubOwed): an erase or gc that removed rows writes
-- this one row in its own transaction, and only a scrub that completed
-- (the file rewritten, the write-ahead log emptied) deletes it. A scrub
-- that failed (another process kept reading, or the process died after
-- the commit) is then retried by the next erase, gc or server start,
-- whether or not that one removes anything.
CREATE TABLE scrub_owed (
    one     INTEGER PRIMARY KEY CHECK (one = 1),
    erasure INTEGER NOT NULL, -- the newest erasures row whose bytes may be in the files
    since   INTEGER NOT NULL  -- when the oldest scrub still owed was first owed (ns)
);

