-- The dedup keys tell apart more (issue 22: "no different memory is
-- answered duplicate"): case where it carries meaning ("IT" / "it",
-- "5 Gb" / "5 GB", "MAX_RETRIES"), a number's separators ("1,5" / "15",
-- "1.10" / "1.1"), an -s noun of its own ("news" / "new") and an
-- identifier ("user_id" / "user_ids"). The exact, words and meaning keys
-- stored beside memories, and the words key of every fact, were derived by
-- the earlier rules: a repeat would miss the stored memory it repeats. All
-- Go (rekeyDedup): every key derived again by the rules as they are now.
-- The claims are unchanged.
SELECT 1;
