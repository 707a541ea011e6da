-- Bearer tokens of the HTTP server (memory-mcp serve): each maps to the
-- identity a request carrying it acts as. Only a SHA-256 of the token is
-- kept: a token is 256 random bits, so a fast hash is as safe as a slow one
-- against guessing, and a lookup by hash costs one index probe per request.
-- A revoked token keeps its row (who revoked it, when), so the list says
-- what was handed out and what was taken back; rows are never deleted.
CREATE TABLE auth_tokens (
    token_id   TEXT    PRIMARY KEY,
    hash       BLOB    NOT NULL UNIQUE CHECK (length(hash) = 32),
    agent_id   TEXT    NOT NULL,
    seniority  TEXT    NOT NULL,
    autonomy   TEXT    NOT NULL,
    is_human   INTEGER NOT NULL CHECK (is_human IN (0, 1)),
    label      TEXT    NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    created_by TEXT    NOT NULL,
    revoked_at INTEGER,
    revoked_by TEXT
) WITHOUT ROWID;

CREATE TRIGGER auth_tokens_no_delete BEFORE DELETE ON auth_tokens
BEGIN
    SELECT RAISE(ABORT, 'tokens are revoked, not deleted: set revoked_at');
END;

-- A token's identity and hash never change; only its revocation is written.
CREATE TRIGGER auth_tokens_fixed BEFORE UPDATE OF token_id, hash, agent_id, seniority, autonomy, is_human, created_at, created_by ON auth_tokens
BEGIN
    SELECT RAISE(ABORT, 'a token''s identity never changes: revoke it and add another');
END;
