package main

import (
	"slices"
	"testing"
)

// Issue 22's promise through the binary, offline defaults: a memory that
// differs from an earlier one only in a number's separators, an -s noun
// of its own, an identifier, a capital that carries meaning or a
// function word that relates the same content words otherwise is stored
// as its own, and a search finds each of the two; a thousands separator,
// a shouted sentence and a change of case that means nothing are still
// repeats.
func TestDistinctMemoriesAreRememberedEndToEnd(t *testing.T) {
	ann := startIn(t, options{dataDir: t.TempDir(), args: []string{"--agent-id", "ann", "--approval", "off"}})
	type remembered struct {
		ID      string `json:"id"`
		Outcome string `json:"outcome"`
	}
	for _, p := range [][2]string{
		{"The ratio is 1,5.", "The ratio is 15."},
		{"We run version 1.10 of the client.", "We run version 1.1 of the client."},
		{"The news team meets on Monday.", "The new team meets on Monday."},
		{"The table is keyed by user_id.", "The table is keyed by user_ids."},
		{"IT handles it.", "it handles it."},
		{"The disk holds 5 Gb.", "The disk holds 5 GB."},
		// A name that is also a word, and two paths in each other's place.
		{"Pay Bill on Friday.", "Pay bill on Friday."},
		{"The mount points /opt/data at /mnt/disk.", "The mount points /mnt/disk at /opt/data."},
		{"Deploy scripts live in scripts/deploy/.", "Deploy scripts live in deploy/scripts/."},
		// The same content words, other function words: another statement.
		{"Mark reviews every PR before merge.", "Mark every PR for review before merge."},
		{"Frank is the on-call lead this week.", "Be frank with the on-call lead this week."},
		{"Go to the release review on Monday.", "Go release review is on Monday."},
		// The same words in an order that gives them other roles or
		// another scope, another voice, a camel-case name, a capital that
		// names.
		{"The client calls the server on startup.", "The server calls the client on startup."},
		{"Only admins can delete logs.", "Admins can only delete logs."},
		{"The user wants to be called Sam.", "The user wants to call Sam."},
		{"The helper in utils is named getURL.", "The helper in utils is named getUrl."},
		{"The NOT gate feeds the latch.", "The not gate feeds the latch."},
	} {
		var first, second remembered
		ann.ok("remember", map[string]any{"content": p[0]}, &first)
		ann.ok("remember", map[string]any{"content": p[1]}, &second)
		if first.Outcome != "stored" || second.Outcome != "stored" || second.ID == first.ID {
			t.Errorf("%q after %q: %+v after %+v, want both stored apart", p[1], p[0], second, first)
			continue
		}
		for i, id := range []string{first.ID, second.ID} {
			var sr searchResult
			ann.ok("search_memory", map[string]any{"query": p[i]}, &sr)
			if !slices.Contains(sr.ids(), id) {
				t.Errorf("search %q: %v, want %s among them", p[i], sr.ids(), id)
			}
		}
	}
	for _, p := range [][2]string{
		{"The budget is $1,000.", "The budget is $1000."},
		{"NEVER PUSH TO MAIN ON FRIDAYS.", "Never push to main on Fridays."},
		{"The staging database is Postgres 16.", "the staging database is postgres 16."},
		{"The upload limit is 10 MB.", "The upload limit is 10MB."},
		{"Alice manages the platform team.", "The platform team is managed by Alice."},
		{"After lunch Priya reviews pull requests.", "Priya reviews pull requests after lunch."},
		{"Do NOT restart the database.", "Do not restart the database."},
	} {
		var first, again remembered
		ann.ok("remember", map[string]any{"content": p[0]}, &first)
		ann.ok("remember", map[string]any{"content": p[1]}, &again)
		if first.Outcome != "stored" || again.Outcome != "duplicate" || again.ID != first.ID {
			t.Errorf("%q after %q: %+v, want a duplicate of %s", p[1], p[0], again, first.ID)
		}
	}
}
