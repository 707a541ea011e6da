-- The schema of the PostgreSQL engine: the SQLite schema after every
-- migration in store/migrations (through 0027), in one step, with the same
-- tables, columns, keys, checks and indexes, and the same guarantees as
-- triggers. Column types keep the SQLite engine's values exactly, so that
-- the store's Go code reads and writes both engines alike: every INTEGER is
-- bigint (times are unix nanoseconds, flags 0 or 1), REAL is double
-- precision, BLOB is bytea (vectors: little-endian float32s), TEXT is text.
-- A rowid key is an identity column the store may also set itself.
--
-- Where SQLite keeps an FTS5 index, a row here keeps its terms as a
-- tsvector (terms), written by the store from the same tokenizer the SQLite
-- engine indexes with (unicode61, diacritics removed, Porter stems), so that
-- both engines count the same terms and BM25 ranks alike; partial GIN
-- indexes take the place of the FTS5 tables and of the triggers that kept
-- them.

-- Refusals: each trigger names its message as its argument.
CREATE FUNCTION memory_mcp_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'restrict_violation';
END $$;

-- Deletes from a table that keeps history pass only inside an erase or gc
-- transaction, which holds the one row of erase_permit from its start to
-- just before its commit. Another transaction never sees that row (it is
-- uncommitted), so the permit is exactly that transaction's.
CREATE FUNCTION memory_mcp_refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM erase_permit) THEN
        RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN OLD;
END $$;

-- SQLite's functions as the store's statements use them, so that one
-- statement serves both engines: json_each over a JSON array of strings or
-- numbers (lists of ids and tags, passed as one parameter) gives each
-- element's text as value; ->> with an integer index reads an element of an
-- integer pair kept as JSON text (the claims: [key, value]).
CREATE FUNCTION json_each(j text) RETURNS TABLE (value text) LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_array_elements_text(j::jsonb)
$$;
CREATE FUNCTION memory_mcp_json_int(j text, i integer) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT (j::jsonb ->> i)::bigint
$$;
CREATE OPERATOR ->> (LEFTARG = text, RIGHTARG = integer, FUNCTION = memory_mcp_json_int);
-- SQLite's scalar max and min of two numbers (NULL if either is).
CREATE FUNCTION max(a bigint, b bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE greatest(a, b) END
$$;
CREATE FUNCTION min(a bigint, b bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE least(a, b) END
$$;
CREATE FUNCTION max(a double precision, b double precision) RETURNS double precision LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE greatest(a, b) END
$$;
CREATE FUNCTION min(a double precision, b double precision) RETURNS double precision LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE least(a, b) END
$$;

-- The change feed: one row per committed mutation, in commit order. A
-- sequence hands out numbers in the order transactions ask, not the order
-- they commit, so a reader tailing seq > n could pass over a row that
-- commits later with a smaller number. The number is taken instead from
-- change_counter's one row, whose lock the transaction then holds until it
-- commits: numbers are given in commit order, and a rolled-back
-- transaction gives its number back. Each commit that wrote a change
-- notifies the channel memory_mcp_changes, a wake-up only: readers read the
-- table, so a lost notification loses nothing.
CREATE TABLE change_counter (
    one bigint PRIMARY KEY CHECK (one = 1),
    seq bigint NOT NULL
);
INSERT INTO change_counter (one, seq) VALUES (1, 0);

CREATE TABLE changes (
    seq  bigint PRIMARY KEY,
    kind text   NOT NULL,
    ref  text   NOT NULL,
    at   bigint NOT NULL
);
CREATE FUNCTION memory_mcp_change_seq() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE change_counter SET seq = seq + 1 WHERE one = 1 RETURNING seq INTO NEW.seq;
    RETURN NEW;
END $$;
CREATE TRIGGER changes_seq BEFORE INSERT ON changes FOR EACH ROW EXECUTE FUNCTION memory_mcp_change_seq();
CREATE FUNCTION memory_mcp_change_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('memory_mcp_changes', '');
    RETURN NULL;
END $$;
CREATE TRIGGER changes_notify AFTER INSERT ON changes FOR EACH STATEMENT EXECUTE FUNCTION memory_mcp_change_notify();
CREATE TRIGGER changes_no_delete BEFORE DELETE ON changes FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse_delete('the change feed is append-only');

CREATE TABLE erase_permit (
    one bigint PRIMARY KEY CHECK (one = 1)
);

-- Organisational facts: the append-only operation log and its snapshot.
CREATE TABLE operation_log (
    id               bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    operation_id     text   NOT NULL,
    fact_id          text   NOT NULL,
    operation_type   text   NOT NULL CHECK (operation_type IN ('PUBLISH', 'RETRACT')),
    content          text,
    category         text   NOT NULL CHECK (category IN ('core_policy', 'adr', 'procedure', 'convention', 'other')),
    tags             text   NOT NULL DEFAULT '[]',
    author_agent_id  text   NOT NULL,
    author_seniority text,
    author_autonomy  text,
    author_is_human  bigint NOT NULL DEFAULT 0,
    timestamp        bigint NOT NULL,
    version          bigint NOT NULL CHECK (version >= 1),
    reason           text,
    stamp            bytea,
    terms            tsvector, -- of content and tags, on PUBLISH rows (fact_fts)
    UNIQUE (fact_id, version),
    CHECK ((operation_type = 'PUBLISH') = (content IS NOT NULL))
);
CREATE INDEX operation_log_timestamp_fact ON operation_log (timestamp, fact_id);
CREATE INDEX operation_log_fact_timestamp ON operation_log (fact_id, timestamp, version);
CREATE INDEX operation_log_terms ON operation_log USING gin (terms) WHERE operation_type = 'PUBLISH';
CREATE TRIGGER operation_log_no_update BEFORE UPDATE OF id, operation_id, fact_id, operation_type, content, category, tags,
    author_agent_id, author_seniority, author_autonomy, author_is_human, timestamp, version, reason, terms ON operation_log
    FOR EACH ROW EXECUTE FUNCTION memory_mcp_refuse('operation_log is append-only');
CREATE TRIGGER operation_log_no_delete BEFORE DELETE ON operation_log FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse_delete('operation_log is append-only');
CREATE TRIGGER operation_log_stamp_once BEFORE UPDATE OF stamp ON operation_log FOR EACH ROW
    WHEN (OLD.stamp IS NOT NULL) EXECUTE FUNCTION memory_mcp_refuse('a provenance stamp is written once');

CREATE TABLE snapshot (
    fact_id          text   PRIMARY KEY,
    content          text   NOT NULL,
    category         text   NOT NULL CHECK (category IN ('core_policy', 'adr', 'procedure', 'convention', 'other')),
    tags             text   NOT NULL DEFAULT '[]',
    created_at       bigint NOT NULL,
    updated_at       bigint NOT NULL,
    retracted_at     bigint,
    version          bigint NOT NULL,
    content_op       bigint NOT NULL REFERENCES operation_log (id),
    author_agent_id  text   NOT NULL,
    author_seniority text,
    author_autonomy  text,
    author_is_human  bigint NOT NULL DEFAULT 0,
    words_key        text
);
CREATE INDEX snapshot_active ON snapshot (category, created_at) WHERE retracted_at IS NULL;
CREATE INDEX snapshot_words ON snapshot (words_key, category) WHERE retracted_at IS NULL;

CREATE TABLE fact_claims (
    claim   bigint NOT NULL,
    value   bigint NOT NULL,
    fact_id text   NOT NULL REFERENCES snapshot (fact_id),
    PRIMARY KEY (claim, value, fact_id)
);
CREATE INDEX fact_claims_fact ON fact_claims (fact_id);

CREATE TABLE fact_conflicts (
    id            text   PRIMARY KEY,
    older_id      text   NOT NULL REFERENCES snapshot (fact_id),
    older_version bigint NOT NULL,
    newer_id      text   NOT NULL REFERENCES snapshot (fact_id),
    newer_version bigint NOT NULL,
    kind          text   NOT NULL CHECK (kind IN ('negation', 'value', 'model')),
    slot          text,
    older_value   text,
    newer_value   text,
    resolution    text   NOT NULL CHECK (resolution IN ('open', 'newer_wins', 'older_wins', 'both_hold')),
    detected_at   bigint NOT NULL,
    detected_by   text   NOT NULL,
    resolved_at   bigint,
    resolved_by   text,
    reason        text,
    decided       bigint NOT NULL DEFAULT 0,
    UNIQUE (older_id, newer_id),
    CHECK ((resolution = 'open') = (resolved_at IS NULL))
);
CREATE INDEX fact_conflicts_open ON fact_conflicts (resolution, detected_at);
CREATE INDEX fact_conflicts_newer ON fact_conflicts (newer_id);
CREATE TRIGGER fact_conflicts_no_delete BEFORE DELETE ON fact_conflicts FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse_delete('conflicts are resolved, not deleted: resolve_conflict records the decision');

-- Agent memories.
CREATE TABLE memories (
    pk                 bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    id                 text   NOT NULL UNIQUE,
    agent_id           text   NOT NULL,
    namespace          text   NOT NULL,
    category           text   NOT NULL CHECK (category IN ('working', 'episodic', 'semantic', 'procedural', 'social')),
    content            text   NOT NULL,
    tags               text   NOT NULL DEFAULT '[]',
    confidence         double precision NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    source             text,
    shared             bigint NOT NULL DEFAULT 0 CHECK (shared IN (0, 1)),
    created_at         bigint NOT NULL,
    updated_at         bigint NOT NULL,
    occurred_at        bigint NOT NULL,
    expires_at         bigint,
    author_seniority   text,
    author_autonomy    text,
    author_is_human    bigint NOT NULL DEFAULT 0,
    published_from     text REFERENCES memories (id),
    published_at       bigint,
    forgotten_at       bigint,
    forgotten_by       text,
    forget_reason      text,
    embedding          bytea,
    embedder           text,
    filters            text   NOT NULL,
    length             bigint NOT NULL DEFAULT 0 CHECK (length >= 0),
    forgotten_autonomy text,
    published_autonomy text,
    archived_at        bigint,
    archive_reason     text CHECK (archive_reason IN ('consolidated', 'retention', 'over_cap', 'expired', 'superseded', 'merged')),
    archived_by        text,
    consolidated_into  text,
    restored_at        bigint,
    exact_key          text,
    words_key          text,
    seen_count         bigint NOT NULL DEFAULT 1,
    last_seen_at       bigint,
    superseded_by      text,
    stamp              bytea,
    meaning_key        text,
    terms              tsvector, -- of content and tags (memory_fts, memory_archive_fts)
    CHECK ((shared = 1) = (published_from IS NOT NULL)),
    CHECK ((embedding IS NULL) = (embedder IS NULL))
);
CREATE INDEX memories_owner ON memories (agent_id, shared, occurred_at);
CREATE INDEX memories_published_from ON memories (published_from) WHERE published_from IS NOT NULL;
CREATE INDEX memories_shared ON memories (shared, agent_id) WHERE forgotten_at IS NULL AND archived_at IS NULL;
CREATE INDEX memories_occurred ON memories (occurred_at) WHERE forgotten_at IS NULL AND archived_at IS NULL;
CREATE INDEX memories_archived ON memories (agent_id, archived_at) WHERE archived_at IS NOT NULL;
CREATE INDEX memories_consolidated_into ON memories (consolidated_into) WHERE consolidated_into IS NOT NULL;
CREATE INDEX memories_exact_key ON memories (agent_id, exact_key);
CREATE INDEX memories_words_key ON memories (agent_id, words_key);
CREATE INDEX memories_meaning_key ON memories (agent_id, meaning_key);
CREATE INDEX memories_shared_exact_key ON memories (exact_key) WHERE shared = 1;
CREATE INDEX memories_shared_words_key ON memories (words_key) WHERE shared = 1;
CREATE INDEX memories_shared_meaning_key ON memories (meaning_key) WHERE shared = 1;
-- The active index and the archive's (SQLite's memory_fts and memory_archive_fts).
CREATE INDEX memories_terms ON memories USING gin (terms) WHERE forgotten_at IS NULL AND archived_at IS NULL;
CREATE INDEX memories_archive_terms ON memories USING gin (terms) WHERE archived_at IS NOT NULL AND forgotten_at IS NULL;

CREATE TRIGGER memories_immutable BEFORE UPDATE OF id, agent_id, namespace, category, content, tags, shared,
    created_at, occurred_at, published_from, filters, length, terms ON memories
    FOR EACH ROW EXECUTE FUNCTION memory_mcp_refuse('memory content and ownership are immutable');
CREATE TRIGGER memories_no_delete BEFORE DELETE ON memories FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse_delete('memories are soft-deleted: set forgotten_at');
CREATE TRIGGER memories_stamp_once BEFORE UPDATE OF stamp ON memories FOR EACH ROW
    WHEN (OLD.stamp IS NOT NULL) EXECUTE FUNCTION memory_mcp_refuse('a provenance stamp is written once');

-- Search statistics per space, kept as SQLite's triggers keep them: active
-- memories only, a memory counting from its write or return until it is
-- forgotten, archived or erased.
CREATE TABLE memory_spaces (
    agent_id text   NOT NULL,
    shared   bigint NOT NULL,
    rows     bigint NOT NULL,
    tokens   bigint NOT NULL,
    gen      bigint NOT NULL,
    PRIMARY KEY (agent_id, shared)
);
CREATE FUNCTION memory_mcp_space_enter(agent text, sh bigint, len bigint) RETURNS void LANGUAGE sql AS $$
    INSERT INTO memory_spaces AS s (agent_id, shared, rows, tokens, gen) VALUES (agent, sh, 1, len, 1)
    ON CONFLICT (agent_id, shared) DO UPDATE SET rows = s.rows + 1, tokens = s.tokens + excluded.tokens, gen = s.gen + 1;
$$;
CREATE FUNCTION memory_mcp_space_leave(agent text, sh bigint, len bigint) RETURNS void LANGUAGE sql AS $$
    UPDATE memory_spaces SET rows = rows - 1, tokens = tokens - len, gen = gen + 1 WHERE agent_id = agent AND shared = sh;
$$;
CREATE FUNCTION memory_mcp_spaces() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    was boolean := TG_OP <> 'INSERT' AND OLD.forgotten_at IS NULL AND OLD.archived_at IS NULL;
    now_active boolean := TG_OP <> 'DELETE' AND NEW.forgotten_at IS NULL AND NEW.archived_at IS NULL;
BEGIN
    IF was AND NOT now_active THEN
        PERFORM memory_mcp_space_leave(OLD.agent_id, OLD.shared, OLD.length);
    ELSIF now_active AND NOT was THEN
        PERFORM memory_mcp_space_enter(NEW.agent_id, NEW.shared, NEW.length);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER memories_spaces_insert AFTER INSERT ON memories FOR EACH ROW EXECUTE FUNCTION memory_mcp_spaces();
CREATE TRIGGER memories_spaces_update AFTER UPDATE OF forgotten_at, archived_at ON memories FOR EACH ROW EXECUTE FUNCTION memory_mcp_spaces();
CREATE TRIGGER memories_spaces_delete AFTER DELETE ON memories FOR EACH ROW EXECUTE FUNCTION memory_mcp_spaces();

CREATE TABLE memory_sources (
    summary_id text   NOT NULL REFERENCES memories (id),
    position   bigint NOT NULL,
    source_id  text   NOT NULL REFERENCES memories (id),
    PRIMARY KEY (summary_id, position)
);
CREATE INDEX memory_sources_source ON memory_sources (source_id);
CREATE TRIGGER memory_sources_no_change BEFORE UPDATE ON memory_sources FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse('what a summary was made from never changes');
CREATE TRIGGER memory_sources_no_delete BEFORE DELETE ON memory_sources FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse_delete('what a summary was made from never changes');

CREATE TABLE memory_claims (
    agent_id  text   NOT NULL,
    claim     bigint NOT NULL,
    value     bigint NOT NULL,
    memory_pk bigint NOT NULL,
    PRIMARY KEY (agent_id, claim, value, memory_pk)
);

CREATE TABLE memory_conflicts (
    id          text   PRIMARY KEY,
    agent_id    text   NOT NULL,
    older_id    text   NOT NULL REFERENCES memories (id),
    newer_id    text   NOT NULL REFERENCES memories (id),
    kind        text   NOT NULL CHECK (kind IN ('negation', 'value', 'stated', 'model')),
    slot        text,
    older_value text,
    newer_value text,
    resolution  text   NOT NULL CHECK (resolution IN ('open', 'newer_wins', 'older_wins', 'both_hold')),
    detected_at bigint NOT NULL,
    detected_by text   NOT NULL,
    resolved_at bigint,
    resolved_by text,
    reason      text,
    UNIQUE (older_id, newer_id),
    CHECK ((resolution = 'open') = (resolved_at IS NULL))
);
CREATE INDEX memory_conflicts_agent ON memory_conflicts (agent_id, resolution, detected_at);
CREATE INDEX memory_conflicts_newer ON memory_conflicts (newer_id);
CREATE TRIGGER memory_conflicts_no_delete BEFORE DELETE ON memory_conflicts FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse_delete('conflicts are resolved, not deleted: resolve_conflict records the decision');

CREATE TABLE shared_repeats (
    copy_id   text NOT NULL,
    memory_id text NOT NULL,
    PRIMARY KEY (copy_id, memory_id)
);
CREATE INDEX shared_repeats_memory ON shared_repeats (memory_id);

-- The words of writes answered as repeats (SQLite's 0021).
CREATE TABLE memory_repeats (
    pk               bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    id               text   NOT NULL UNIQUE,
    memory_id        text   NOT NULL,
    agent_id         text   NOT NULL,
    tool             text   NOT NULL CHECK (tool IN ('remember', 'publish_memory')),
    from_id          text,
    content          text   NOT NULL,
    namespace        text   NOT NULL,
    category         text   NOT NULL,
    tags             text   NOT NULL,
    confidence       double precision,
    source           text,
    occurred_at      bigint,
    expires_at       bigint,
    tier             text   NOT NULL,
    said_at          bigint NOT NULL,
    author_seniority text,
    author_autonomy  text,
    author_is_human  bigint NOT NULL,
    stored_as        text,
    stamp            bytea
);
CREATE INDEX memory_repeats_memory ON memory_repeats (memory_id);
CREATE INDEX memory_repeats_agent ON memory_repeats (agent_id, said_at);
CREATE INDEX memory_repeats_said ON memory_repeats (said_at);
CREATE TRIGGER memory_repeats_immutable BEFORE UPDATE OF id, memory_id, agent_id, tool, from_id, content, namespace, category,
    tags, confidence, source, occurred_at, expires_at, tier, said_at, author_seniority, author_autonomy, author_is_human ON memory_repeats
    FOR EACH ROW EXECUTE FUNCTION memory_mcp_refuse('a repeat keeps the words as they were said');
CREATE TRIGGER memory_repeats_stamp_once BEFORE UPDATE OF stamp ON memory_repeats FOR EACH ROW
    WHEN (OLD.stamp IS NOT NULL) EXECUTE FUNCTION memory_mcp_refuse('a provenance stamp is written once');
CREATE TRIGGER memory_repeats_no_delete BEFORE DELETE ON memory_repeats FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse_delete('a repeat is removed only by erase or gc');

CREATE TABLE memory_vectors_next (
    pk        bigint PRIMARY KEY,
    embedder  text   NOT NULL,
    embedding bytea  NOT NULL
);
CREATE FUNCTION memory_mcp_vectors_next_erase() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM memory_vectors_next WHERE pk = OLD.pk;
    RETURN NULL;
END $$;
CREATE TRIGGER memory_vectors_next_erase AFTER DELETE ON memories FOR EACH ROW EXECUTE FUNCTION memory_mcp_vectors_next_erase();

-- Governed promotion: notes, the ledger, the pending queue, shared state.
CREATE TABLE notes (
    note_id      bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    agent_id     text   NOT NULL,
    run_id       text   NOT NULL,
    kind         text   NOT NULL CHECK (kind IN ('agent', 'tool_result')),
    text         text   NOT NULL,
    task_id      text,
    created_at   bigint NOT NULL,
    processed_at bigint,
    outcome_json text,
    autonomy     text
);
CREATE INDEX notes_unprocessed ON notes (agent_id, run_id, note_id) WHERE processed_at IS NULL;
CREATE TRIGGER notes_no_delete BEFORE DELETE ON notes FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse_delete('notes are kept: promotion records what it made of each (processed_at, outcome_json)');
CREATE TRIGGER notes_fixed BEFORE UPDATE OF note_id, agent_id, run_id, kind, text, task_id, created_at, autonomy ON notes
    FOR EACH ROW EXECUTE FUNCTION memory_mcp_refuse('a note never changes: write another');

CREATE TABLE events_memory (
    seq              bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    event_id         text   NOT NULL UNIQUE,
    bucket           text   NOT NULL,
    operation        text   NOT NULL,
    target_id        text   NOT NULL DEFAULT '',
    payload_json     text   NOT NULL,
    raw_input        text   NOT NULL,
    source_ref       text   NOT NULL,
    agent_id         text   NOT NULL,
    run_id           text   NOT NULL,
    created_at       bigint NOT NULL,
    applied          bigint NOT NULL DEFAULT 0,
    applied_at       bigint,
    projection_error text,
    autonomy         text,
    stamp            bytea
);
CREATE INDEX events_memory_target ON events_memory (bucket, target_id);
CREATE INDEX events_memory_unapplied ON events_memory (bucket, target_id) WHERE applied = 0;
CREATE TRIGGER events_memory_no_delete BEFORE DELETE ON events_memory FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse_delete('events_memory is append-only');
CREATE TRIGGER events_memory_immutable BEFORE UPDATE OF seq, event_id, bucket, operation, target_id,
    payload_json, raw_input, source_ref, agent_id, run_id, created_at, autonomy ON events_memory
    FOR EACH ROW EXECUTE FUNCTION memory_mcp_refuse('events_memory rows are immutable; only applied may change');
CREATE TRIGGER events_memory_stamp_once BEFORE UPDATE OF stamp ON events_memory FOR EACH ROW
    WHEN (OLD.stamp IS NOT NULL) EXECUTE FUNCTION memory_mcp_refuse('a provenance stamp is written once');

CREATE TABLE pending_memory_events (
    pending_id      bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    bucket          text   NOT NULL,
    note_kind       text   NOT NULL DEFAULT 'agent',
    request_json    text   NOT NULL,
    fingerprint     text   NOT NULL,
    raw_input       text   NOT NULL,
    note_id         bigint,
    agent_id        text   NOT NULL,
    run_id          text   NOT NULL,
    interpreter     text   NOT NULL DEFAULT '',
    reason          text   NOT NULL,
    candidates_json text   NOT NULL DEFAULT '[]',
    attempts        bigint NOT NULL DEFAULT 0,
    stale           bigint NOT NULL DEFAULT 0,
    status          text   NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'committed', 'dropped')),
    note_at         bigint NOT NULL,
    created_at      bigint NOT NULL,
    updated_at      bigint NOT NULL,
    resolution_json text,
    autonomy        text
);
CREATE INDEX pending_open ON pending_memory_events (bucket, stale, pending_id) WHERE status = 'open';
CREATE INDEX pending_fingerprint ON pending_memory_events (fingerprint) WHERE status = 'open';
CREATE TRIGGER pending_memory_events_no_delete BEFORE DELETE ON pending_memory_events FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse_delete('pending items are resolved, not deleted: bind or drop them with a reason');

CREATE TABLE shared_plan (
    id         text   PRIMARY KEY,
    text       text   NOT NULL,
    version    bigint NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    event_id   text   NOT NULL
);

CREATE TABLE shared_issues (
    id                    text   PRIMARY KEY,
    text                  text   NOT NULL,
    text_key              text   NOT NULL,
    status                text   NOT NULL CHECK (status IN ('open', 'resolved')),
    kind                  text   NOT NULL DEFAULT 'issue' CHECK (kind IN ('issue', 'blocker')),
    reference_memory_json text   NOT NULL,
    close_reason          text,
    created_at            bigint NOT NULL,
    updated_at            bigint NOT NULL,
    closed_at             bigint,
    noted_at              bigint NOT NULL,
    event_id              text   NOT NULL
);
CREATE INDEX shared_issues_key ON shared_issues (text_key);

CREATE TABLE shared_constraints (
    id                    text   PRIMARY KEY,
    text                  text   NOT NULL,
    text_key              text   NOT NULL,
    status                text   NOT NULL CHECK (status IN ('active', 'invalidated')),
    reference_memory_json text   NOT NULL,
    close_reason          text,
    created_at            bigint NOT NULL,
    updated_at            bigint NOT NULL,
    closed_at             bigint,
    noted_at              bigint NOT NULL,
    event_id              text   NOT NULL
);
CREATE INDEX shared_constraints_key ON shared_constraints (text_key);

CREATE TABLE shared_decisions (
    id                    text   PRIMARY KEY,
    text                  text   NOT NULL,
    text_key              text   NOT NULL,
    status                text   NOT NULL CHECK (status IN ('active', 'superseded')),
    reference_memory_json text   NOT NULL,
    close_reason          text,
    created_at            bigint NOT NULL,
    updated_at            bigint NOT NULL,
    closed_at             bigint,
    noted_at              bigint NOT NULL,
    event_id              text   NOT NULL
);
CREATE INDEX shared_decisions_key ON shared_decisions (text_key);

CREATE TABLE shared_results (
    id         text   PRIMARY KEY,
    task_id    text   NOT NULL DEFAULT '',
    text       text   NOT NULL,
    text_key   text   NOT NULL,
    created_at bigint NOT NULL,
    event_id   text   NOT NULL
);
CREATE INDEX shared_results_key ON shared_results (text_key, task_id);

CREATE TABLE shared_task_state (
    id         text   PRIMARY KEY,
    state      text   NOT NULL,
    text       text   NOT NULL DEFAULT '',
    version    bigint NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    event_id   text   NOT NULL
);

CREATE TABLE shared_learnings (
    id         text   PRIMARY KEY,
    text       text   NOT NULL,
    text_key   text   NOT NULL,
    created_at bigint NOT NULL,
    event_id   text   NOT NULL
);
CREATE INDEX shared_learnings_key ON shared_learnings (text_key);

-- Core memory blocks and their history.
CREATE TABLE blocks (
    id          bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    scope       text   NOT NULL,
    label       text   NOT NULL,
    description text   NOT NULL,
    value       text   NOT NULL,
    char_limit  bigint NOT NULL CHECK (char_limit > 0),
    read_only   bigint NOT NULL DEFAULT 0,
    owner       text   NOT NULL,
    writers     text   NOT NULL DEFAULT '[]',
    readers     text   NOT NULL DEFAULT '[]',
    version     bigint NOT NULL CHECK (version >= 1),
    created_at  bigint NOT NULL,
    updated_at  bigint NOT NULL,
    updated_by  text   NOT NULL,
    deleted_at  bigint,
    UNIQUE (scope, label)
);
CREATE INDEX blocks_label ON blocks (label);

CREATE TABLE block_versions (
    block_id         bigint NOT NULL REFERENCES blocks (id),
    version          bigint NOT NULL CHECK (version >= 1),
    op               text   NOT NULL CHECK (op IN ('create', 'append', 'replace', 'insert', 'rethink', 'delete', 'restore', 'configure')),
    value            text   NOT NULL,
    description      text   NOT NULL,
    char_limit       bigint NOT NULL,
    deleted          bigint NOT NULL DEFAULT 0,
    restored_from    bigint,
    author_agent_id  text   NOT NULL,
    author_seniority text,
    author_autonomy  text,
    author_is_human  bigint NOT NULL DEFAULT 0,
    at               bigint NOT NULL,
    stamp            bytea,
    PRIMARY KEY (block_id, version)
);
CREATE TRIGGER block_versions_no_update BEFORE UPDATE OF block_id, version, op, value, description, char_limit, deleted,
    restored_from, author_agent_id, author_seniority, author_autonomy, author_is_human, at ON block_versions
    FOR EACH ROW EXECUTE FUNCTION memory_mcp_refuse('block_versions is append-only');
CREATE TRIGGER block_versions_no_delete BEFORE DELETE ON block_versions FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse_delete('block_versions is append-only');
CREATE TRIGGER block_versions_stamp_once BEFORE UPDATE OF stamp ON block_versions FOR EACH ROW
    WHEN (OLD.stamp IS NOT NULL) EXECUTE FUNCTION memory_mcp_refuse('a provenance stamp is written once');

-- Maintenance: the lease with its fencing token, and the last run per agent.
CREATE TABLE leases (
    name        text   PRIMARY KEY,
    holder      text   NOT NULL,
    token       bigint NOT NULL CHECK (token > 0),
    acquired_at bigint NOT NULL,
    expires_at  bigint NOT NULL
);

CREATE TABLE maintenance_runs (
    agent_id    text   PRIMARY KEY,
    finished_at bigint NOT NULL,
    holder      text   NOT NULL,
    token       bigint NOT NULL
);

-- The write gates: idempotency keys, the write log, approvals.
CREATE TABLE idempotency_keys (
    principal     text   NOT NULL,
    key           text   NOT NULL,
    tool          text   NOT NULL,
    args_hash     text   NOT NULL,
    result        text,
    text          text,
    error_code    text,
    error_message text,
    ref           text,
    created_at    bigint NOT NULL,
    expires_at    bigint NOT NULL,
    PRIMARY KEY (principal, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

CREATE TABLE write_log (
    id         bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    at         bigint NOT NULL,
    principal  text   NOT NULL,
    tool       text   NOT NULL,
    outcome    text   NOT NULL CHECK (outcome IN ('stored', 'duplicate', 'merged', 'replayed', 'rejected', 'unchanged', 'held')),
    gate       text,
    reason     text,
    ref        text,
    latency_ns bigint NOT NULL,
    gates      text
);
CREATE INDEX write_log_at ON write_log (at);

CREATE TABLE approvals (
    id              text   PRIMARY KEY,
    kind            text   NOT NULL CHECK (kind IN ('hold', 'review')),
    tier            text   NOT NULL CHECK (tier IN ('low', 'medium', 'high')),
    rule            text   NOT NULL,
    principal       text   NOT NULL,
    identity        text   NOT NULL,
    tool            text   NOT NULL,
    args            text   NOT NULL,
    idempotency_key text,
    status          text   NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'expired', 'failed')),
    created_at      bigint NOT NULL,
    expires_at      bigint,
    decided_by      text,
    decided_at      bigint,
    reason          text,
    ref             text,
    error_code      text,
    error_message   text,
    wrote           text
);
CREATE INDEX approvals_created ON approvals (created_at);
CREATE INDEX approvals_principal ON approvals (principal, created_at);
CREATE INDEX approvals_pending ON approvals (expires_at) WHERE status = 'pending' AND kind = 'hold';
CREATE TRIGGER approvals_no_delete BEFORE DELETE ON approvals FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse_delete('approval requests are decided, not deleted: approve or reject them');
CREATE TRIGGER approvals_fixed BEFORE UPDATE OF id, kind, tier, rule, principal, identity, tool, args, idempotency_key, created_at, expires_at ON approvals
    FOR EACH ROW EXECUTE FUNCTION memory_mcp_refuse('an approval request never changes: its caller asks again');

-- Erasure's audit, and the scrub an erase owes.
CREATE TABLE erasures (
    id            bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    at            bigint NOT NULL,
    kind          text   NOT NULL CHECK (kind IN ('erase', 'gc')),
    by_agent      text   NOT NULL,
    by_human      bigint NOT NULL,
    reason        text   NOT NULL,
    selector      text   NOT NULL,
    counts        text   NOT NULL,
    erased_sha256 text   NOT NULL
);
CREATE TRIGGER erasures_no_update BEFORE UPDATE ON erasures FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse('erasures is append-only');
CREATE TRIGGER erasures_no_delete BEFORE DELETE ON erasures FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse('erasures is append-only');

CREATE TABLE scrub_owed (
    one     bigint PRIMARY KEY CHECK (one = 1),
    erasure bigint NOT NULL,
    since   bigint NOT NULL
);

-- Provenance: which key stamps this database's rows.
CREATE TABLE provenance_key (
    one         bigint PRIMARY KEY CHECK (one = 1),
    fingerprint bytea  NOT NULL,
    created_at  bigint NOT NULL,
    complete    bytea
);

-- Bearer tokens, review-page sessions, shared signing keys.
CREATE TABLE auth_tokens (
    token_id   text   PRIMARY KEY,
    hash       bytea  NOT NULL UNIQUE CHECK (octet_length(hash) = 32),
    agent_id   text   NOT NULL,
    seniority  text   NOT NULL,
    autonomy   text   NOT NULL,
    is_human   bigint NOT NULL CHECK (is_human IN (0, 1)),
    label      text   NOT NULL DEFAULT '',
    created_at bigint NOT NULL,
    created_by text   NOT NULL,
    revoked_at bigint,
    revoked_by text
);
CREATE TRIGGER auth_tokens_no_delete BEFORE DELETE ON auth_tokens FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse('tokens are revoked, not deleted: set revoked_at');
CREATE TRIGGER auth_tokens_fixed BEFORE UPDATE OF token_id, hash, agent_id, seniority, autonomy, is_human, created_at, created_by ON auth_tokens
    FOR EACH ROW EXECUTE FUNCTION memory_mcp_refuse('a token''s identity never changes: revoke it and add another');

CREATE TABLE page_sessions (
    id_hash         bytea  PRIMARY KEY CHECK (octet_length(id_hash) = 32),
    credential_hash bytea  NOT NULL CHECK (octet_length(credential_hash) = 32),
    agent_id        text   NOT NULL,
    seniority       text   NOT NULL,
    autonomy        text   NOT NULL,
    is_human        bigint NOT NULL CHECK (is_human IN (0, 1)),
    created_at      bigint NOT NULL,
    expires_at      bigint NOT NULL,
    ended_at        bigint
);
CREATE INDEX page_sessions_expiry ON page_sessions (expires_at);

CREATE TABLE signing_keys (
    name       text   PRIMARY KEY,
    key        bytea  NOT NULL CHECK (octet_length(key) = 32),
    created_at bigint NOT NULL
);
CREATE TRIGGER signing_keys_fixed BEFORE UPDATE ON signing_keys FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse('a signing key never changes: forms signed with it would stop working');

-- Fine-tuned embedding adapters, their deployments and runs.
CREATE TABLE embedder_adapters (
    base_embedder text   NOT NULL,
    version       bigint NOT NULL CHECK (version >= 1),
    file          text   NOT NULL,
    sha256        text   NOT NULL,
    created_at    bigint NOT NULL,
    PRIMARY KEY (base_embedder, version)
);

CREATE TABLE embedder_deployments (
    seq           bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    base_embedder text   NOT NULL,
    action        text   NOT NULL CHECK (action IN ('deploy', 'rollback')),
    version       bigint NOT NULL,
    at            bigint NOT NULL,
    by_agent_id   text   NOT NULL
);
CREATE INDEX embedder_deployments_base ON embedder_deployments (base_embedder, seq);
CREATE TRIGGER embedder_deployments_no_change BEFORE UPDATE ON embedder_deployments FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse('embedder_deployments is append-only');
CREATE TRIGGER embedder_deployments_no_delete BEFORE DELETE ON embedder_deployments FOR EACH ROW
    EXECUTE FUNCTION memory_mcp_refuse('embedder_deployments is append-only');

CREATE TABLE finetune_runs (
    seq           bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    base_embedder text   NOT NULL,
    outcome       text   NOT NULL,
    version       bigint,
    started_at    bigint NOT NULL,
    finished_at   bigint NOT NULL,
    by_agent_id   text   NOT NULL,
    memories      bigint NOT NULL,
    report        text   NOT NULL
);
