-- A memory's page on the review page reads what it replaced and the write
-- log's lines that name it: without these, each is a scan of the whole
-- table (100k memories, 90 days of write log) for every page shown.
CREATE INDEX memories_superseded_by ON memories (superseded_by) WHERE superseded_by IS NOT NULL;
CREATE INDEX write_log_ref ON write_log (ref, at) WHERE ref IS NOT NULL;
