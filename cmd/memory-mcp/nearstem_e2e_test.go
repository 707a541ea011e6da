package main

import (
	"slices"
	"testing"
)

// The repro, as a user meets it through the binary with the offline
// defaults: a memory that differs from an earlier one by a word sharing its
// first five letters is stored, not answered "duplicate", and a search by
// that word finds it; a restatement of it is still a repeat.
func TestNearStemWordIsRememberedEndToEnd(t *testing.T) {
	ann := startIn(t, options{dataDir: t.TempDir(), args: []string{"--agent-id", "ann", "--approval", "off"}})
	type remembered struct {
		ID      string `json:"id"`
		Outcome string `json:"outcome"`
	}
	var first, second, again remembered
	ann.ok("remember", map[string]any{"content": "Ann works on the internal API."}, &first)
	ann.ok("remember", map[string]any{"content": "Ann works on the international API."}, &second)
	if first.Outcome != "stored" || second.Outcome != "stored" || second.ID == first.ID {
		t.Fatalf("second memory: %+v after %+v, want stored apart", second, first)
	}
	var sr searchResult
	ann.ok("search_memory", map[string]any{"query": "international"}, &sr)
	if !slices.Contains(sr.ids(), second.ID) {
		t.Fatalf("search international: %v, want %s among them", sr.ids(), second.ID)
	}
	ann.ok("remember", map[string]any{"content": "Ann is working on the international API."}, &again)
	if again.Outcome != "duplicate" || again.ID != second.ID {
		t.Fatalf("a restatement: %+v, want a duplicate of %s", again, second.ID)
	}
}
