package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// TestTrendsCountPerStep: memories written, forgotten and consolidated,
// and conflicts found and decided, each counted in the step it happened in;
// active memories as they stood at each step's end.
func TestTrendsCountPerStep(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		trendsCountPerStep(t, db, clk)
	})
}

func trendsCountPerStep(t *testing.T, db *store.DB, clk *storetest.Clock) {
	emb := hashEmbedder("hash-32", 32)
	s := store.NewMemoryService(db, &emb)
	if _, err := s.Index.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := remember(t, s, ann, memory.EntryWrite{Content: "ann wrote this before the window"})
	clk.Advance(2 * time.Hour) // step 0 begins
	remember(t, s, bob, memory.EntryWrite{Content: "bob's first memory"})
	clk.Advance(time.Hour) // step 1
	remember(t, s, ann, memory.EntryWrite{Content: "The flight to Oslo is on Tuesday."})
	b := remember(t, s, ann, memory.EntryWrite{Content: "The flight to Oslo is on Wednesday."}) // supersedes a
	clk.Advance(time.Hour)                                                                      // step 2
	if _, err := s.Forget(as(ann), before.ID, "old"); err != nil {
		t.Fatal(err)
	}
	c := remember(t, s, ann, memory.EntryWrite{Content: "ann's notes on the trip"})
	if _, err := consolidate(t, db, ann, "the trip, in short", b.ID, c.ID); err != nil {
		t.Fatal(err)
	}

	q := memory.TrendQuery{Until: clk.Now().Add(30 * time.Minute), Step: time.Hour, Steps: 3}
	got, err := s.Trends(as(human), q)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.ConflictsOpened, []int{0, 1, 0}) || !slices.Equal(got.ConflictsSettled, []int{0, 1, 0}) ||
		!slices.Equal(got.Consolidated, []int{0, 0, 2}) {
		t.Fatalf("per step: opened %v settled %v consolidated %v", got.ConflictsOpened, got.ConflictsSettled, got.Consolidated)
	}
	// ann: before (gone in step 2); a (superseded in step 1, when written);
	// b (step 1, consolidated in 2); c (step 2, consolidated); the summary.
	want := []memory.AgentCounts{{AgentID: "ann", Counts: []int{1, 2, 1}}, {AgentID: "bob", Counts: []int{1, 1, 1}}} // a tie now: by id
	if len(got.Active) != 2 {
		t.Fatalf("active = %+v", got.Active)
	}
	for i, w := range want {
		if got.Active[i].AgentID != w.AgentID || !slices.Equal(got.Active[i].Counts, w.Counts) {
			t.Errorf("active[%d] = %+v, want %+v", i, got.Active[i], w)
		}
	}
	if _, err := s.Trends(as(ann), q); memory.ErrorCode(err) != memory.EFORBIDDEN {
		t.Fatalf("an agent's trends: %v", err)
	}
	if _, err := s.Trends(as(human), memory.TrendQuery{Until: clk.Now(), Step: time.Hour}); memory.ErrorCode(err) != memory.EINVALID {
		t.Fatalf("no steps: %v", err)
	}
}
