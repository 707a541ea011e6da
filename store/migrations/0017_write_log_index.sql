-- The write log is written by every write and read by the metrics: its
-- index by caller made every write pay for one view of it (a caller's own
-- metrics), which now reads the window's lines by time and keeps its own.
DROP INDEX write_log_principal;
