-- Dedup and contradictions for publish_memory (seed 003, 12.3 and 12.2.4),
-- as remember has them since 0009, 0010 and 0018, over the shared space:
-- every agent's shared copies, not one agent's memories.
--
-- A shared copy carries the dedup keys of what it says, and these partial
-- indexes find the shared copies with a key whatever agent published them
-- (the keys' other indexes lead with the agent). Its claims are kept in
-- memory_claims under the agent id '*shared', which no agent's id can be (an
-- id begins with a letter or a digit), so that the claims of the shared
-- space come by the same index as an agent's.
--
-- A conflict between shared copies is recorded open in memory_conflicts,
-- its id beginning 'scf_', with agent_id the publisher whose publish found
-- it; only a human decides it. The Go step fills the keys and claims of the
-- shared copies published before.
CREATE INDEX memories_shared_exact_key ON memories (exact_key) WHERE shared = 1;
CREATE INDEX memories_shared_words_key ON memories (words_key) WHERE shared = 1;
CREATE INDEX memories_shared_meaning_key ON memories (meaning_key) WHERE shared = 1;

-- A publish answered "duplicate" is recorded against the shared copy it
-- repeats: when that copy's publisher retracts it, the statement stays
-- shared as the copy of the earliest repeat still held.
CREATE TABLE shared_repeats (
    copy_id   TEXT NOT NULL, -- the shared copy a publish repeated
    memory_id TEXT NOT NULL, -- the personal memory whose publish it answered
    PRIMARY KEY (copy_id, memory_id)
) WITHOUT ROWID;
CREATE INDEX shared_repeats_memory ON shared_repeats (memory_id);
