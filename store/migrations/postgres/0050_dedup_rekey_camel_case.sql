-- Case kept in two more places (issue 22): an identifier in camel case
-- ("getURL" is not "getUrl", a program tells them apart) and a word of
-- emphasis in capitals after a determiner, which names a thing ("the NOT
-- gate" is not "the not gate"; "do NOT restart" still is "do not
-- restart"). The exact, words and meaning keys of memories, and the words
-- key of facts, that hold such words were derived by the earlier rules.
-- All Go (rekeyDedup, as 0048): every key derived again by the rules as
-- they are now. The claims are unchanged.
SELECT 1;
