package main

import (
	"strings"
	"testing"
)

// TestReviewsOnlyWhatChangedSharedState: an agent's promotion is queued
// for a human's review only when it committed something to the shared
// state, and the review says what: the events and the notes they came
// from, where the arguments of promote_notes are {}. A note ignored as
// hedged, one left waiting in the pending queue, and a promote_notes with
// nothing to promote queue none.
func TestReviewsOnlyWhatChangedSharedState(t *testing.T) {
	s := startIn(t, options{args: []string{"--agent-id", "ann", "--seniority", "mid"}})
	reviews := func() []map[string]any {
		t.Helper()
		var l struct{ Approvals []map[string]any }
		s.ok("list_approvals", map[string]any{}, &l)
		return l.Approvals
	}
	s.ok("write_note", map[string]any{"content": "maybe the cache is too small, not sure", "promote": true}, nil) // ignored: hedged
	s.ok("promote_notes", map[string]any{}, nil)                                                                  // nothing to promote
	if r := reviews(); len(r) != 0 {
		t.Fatalf("reviews of promotions that changed nothing: %v", r)
	}
	s.ok("write_note", map[string]any{"content": "issue: flaky auth test times out on CI"}, nil)
	s.ok("write_note", map[string]any{"content": "issue: flaky upload test times out on CI"}, nil)
	s.ok("promote_notes", map[string]any{}, nil)
	r := reviews()
	if len(r) != 1 || r[0]["tool"] != "promote_notes" || r[0]["arguments"] != "{}" {
		t.Fatalf("reviews after two issues were committed: %v", r)
	}
	wrote, _ := r[0]["wrote"].([]any)
	if len(wrote) != 2 || get(wrote, 0, "bucket") != "issues" || get(wrote, 1, "raw_input") != "issue: flaky upload test times out on CI" {
		t.Fatalf("the review says it wrote %v, want both issues with their notes", wrote)
	}
	res := s.call("list_approvals", map[string]any{})
	if !strings.Contains(text(res), "wrote event") || !strings.Contains(text(res), "flaky upload test") {
		t.Fatalf("list_approvals does not say what was written:\n%s", text(res))
	}
	var out struct{ Outcomes []struct{ Status string } }
	s.ok("write_note", map[string]any{"content": "fixed: the flaky test", "promote": true}, &out) // two issues fit: it waits
	if len(out.Outcomes) != 1 || out.Outcomes[0].Status != "pending" {
		t.Fatalf("a note naming either of two issues: %+v", out)
	}
	if r := reviews(); len(r) != 1 {
		t.Fatalf("a note left in the pending queue queued a review: %v", r)
	}
}
