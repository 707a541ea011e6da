-- Dedup's semantic tier (memory.MeaningKey): a memory's content words, cut
-- to their stems, as a set, with its values and marks. A paraphrase that
-- uses the same words in another order or form has the same key, so its
-- candidates come by index; memory.Restates decides.
ALTER TABLE memories ADD COLUMN meaning_key TEXT;
CREATE INDEX memories_meaning_key ON memories (agent_id, meaning_key);
