-- The rate limits' buckets and the write budgets' counts, as SQLite's
-- 0037_gate_counters.sql (which says what they hold and why).
CREATE TABLE gate_counters (
    principal  text             NOT NULL,
    name       text             NOT NULL,
    value      double precision NOT NULL,
    at         bigint           NOT NULL,
    expires_at bigint           NOT NULL,
    PRIMARY KEY (principal, name)
);
CREATE INDEX gate_counters_expiry ON gate_counters (expires_at);
