-- The contradiction rules read more claims from a memory's words (issue
-- 22, part 3): a channel name ("#ops-alerts"), an email address and a room
-- code ("4B") are one value each; "is broken" denies "works"; "can't stand"
-- is "dislikes"; a charge ("Priya is the owner of the billing service") is
-- given up by handing it over; hyphenated verbs and "nobody" fold as other
-- words do. The claims stored beside memories and active facts were hashed
-- by the earlier rules, so a new memory would miss the stored ones it
-- contradicts. All Go, as 0023 (refillClaims): the stored claims are
-- deleted and hashed again by the rules as they are now.
SELECT 1;
