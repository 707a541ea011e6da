-- A name, a day or a code that a noun follows says which thing the noun
-- is, not a value stated of it (issue 22): "Ruby owns the IT budget" and
-- "Ruby owns the CI budget" are two budgets, "Kim runs the Monday standup"
-- and "the Friday standup" two standups, and neither superseded the other
-- but by the earlier rules. The claims stored beside memories and active
-- facts were hashed by those rules. All Go (refillClaims, as 0023): the
-- stored claims are deleted and hashed again by the rules as they are now.
SELECT 1;
