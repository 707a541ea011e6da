-- The terms a row is searched by are written by the store, from the same
-- Go terms SQLite's FTS5 indexes through its "memory" tokenizer (SQLite's
-- 0033): in the statement right after the row's insert, so that each
-- insert is one statement on both engines. They are written once, as a
-- provenance stamp is: set while still NULL, never changed after.
DROP TRIGGER memories_immutable ON memories;
CREATE TRIGGER memories_immutable BEFORE UPDATE OF id, agent_id, namespace, category, content, tags, shared,
    created_at, occurred_at, published_from, filters, length ON memories
    FOR EACH ROW EXECUTE FUNCTION memory_mcp_refuse('memory content and ownership are immutable');
CREATE TRIGGER memories_terms_once BEFORE UPDATE OF terms ON memories FOR EACH ROW
    WHEN (OLD.terms IS NOT NULL) EXECUTE FUNCTION memory_mcp_refuse('memory content and ownership are immutable');

DROP TRIGGER operation_log_no_update ON operation_log;
CREATE TRIGGER operation_log_no_update BEFORE UPDATE OF id, operation_id, fact_id, operation_type, content, category, tags,
    author_agent_id, author_seniority, author_autonomy, author_is_human, timestamp, version, reason ON operation_log
    FOR EACH ROW EXECUTE FUNCTION memory_mcp_refuse('operation_log is append-only');
CREATE TRIGGER operation_log_terms_once BEFORE UPDATE OF terms ON operation_log FOR EACH ROW
    WHEN (OLD.terms IS NOT NULL) EXECUTE FUNCTION memory_mcp_refuse('operation_log is append-only');
