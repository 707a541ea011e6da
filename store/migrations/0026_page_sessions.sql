-- Review-page sign-ins (memory-mcp serve's /ui): the browser's cookie
-- carries a random session id, never the bearer token it was opened with,
-- and only the id's SHA-256 is kept, as for tokens. A session holds until
-- it expires, its person signs out (ended_at), or the token it was opened
-- with is revoked (credential_hash finds it in auth_tokens); every process
-- on the database reads the same rows, so each of these ends it everywhere.
-- Sessions keep no history: ended and expired rows are deleted.
CREATE TABLE page_sessions (
    id_hash         BLOB    PRIMARY KEY CHECK (length(id_hash) = 32),
    credential_hash BLOB    NOT NULL CHECK (length(credential_hash) = 32),
    agent_id        TEXT    NOT NULL,
    seniority       TEXT    NOT NULL,
    autonomy        TEXT    NOT NULL,
    is_human        INTEGER NOT NULL CHECK (is_human IN (0, 1)),
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    ended_at        INTEGER
) WITHOUT ROWID;

CREATE INDEX page_sessions_expiry ON page_sessions (expires_at);

-- Keys the server signs with that every process on the database must share
-- (the review page's forms: a form rendered by one process is sent to
-- another behind a balancer, or after a restart). Made once, at random,
-- by the first process that needs one; never changed.
CREATE TABLE signing_keys (
    name       TEXT    PRIMARY KEY,
    key        BLOB    NOT NULL CHECK (length(key) = 32),
    created_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TRIGGER signing_keys_fixed BEFORE UPDATE ON signing_keys
BEGIN
    SELECT RAISE(ABORT, 'a signing key never changes: forms signed with it would stop working');
END;
