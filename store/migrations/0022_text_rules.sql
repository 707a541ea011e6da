-- The English text rules moved to one package (internal/text) and changed:
-- stems fold inflection only, never a shared prefix, and contradictions'
-- words fold through the same stemmer. The Go step derives again every key
-- derived from a text by them: a memory's dedup keys, the claims of every
-- memory and of every active fact, and a fact's words key. It keys only
-- what the migrations applied before it made: one that lands after it
-- keys what it adds by the rules as they are then.
SELECT 1;
