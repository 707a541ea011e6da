package store_test

import (
	"context"
	"fmt"
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

// TestActiveTrendCountedBackEqualsScan: the trend of active memories,
// counted back from the kept counts through what the window saw, is the
// one a scan of every memory draws, on a store with memories written,
// forgotten, superseded, consolidated and restored before the window, in
// it and after its last step's end, for agents that kept memories and one
// whose memories all left before the window.
func TestActiveTrendCountedBackEqualsScan(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		emb := hashEmbedder("hash-32", 32)
		s := store.NewMemoryService(db, &emb)
		if _, err := s.Index.Load(context.Background()); err != nil {
			t.Fatal(err)
		}
		cara := memory.Identity{AgentID: "cara", Seniority: memory.SeniorityMid, Autonomy: memory.AutonomyFull}
		gone := remember(t, s, cara, memory.EntryWrite{Content: "cara's only memory, forgotten long ago"})
		if _, err := s.Forget(as(cara), gone.ID, "old"); err != nil {
			t.Fatal(err)
		}
		var early []memory.Entry
		for i := range 6 {
			early = append(early, remember(t, s, ann, memory.EntryWrite{Content: fmt.Sprintf("ann's early note number %d about the garden plan", i)}))
			remember(t, s, bob, memory.EntryWrite{Content: fmt.Sprintf("bob's early note number %d about the boat trip", i)})
			clk.Advance(10 * time.Minute)
		}
		if _, err := s.Forget(as(ann), early[0].ID, "before the window"); err != nil {
			t.Fatal(err)
		}
		clk.Advance(3 * time.Hour) // the window begins about here
		for i := range 5 {
			m := remember(t, s, ann, memory.EntryWrite{Content: fmt.Sprintf("ann's note %d in the window, on the kitchen", i)})
			switch i {
			case 1:
				if _, err := s.Forget(as(ann), m.ID, "in the window"); err != nil {
					t.Fatal(err)
				}
			case 3:
				if _, err := s.Forget(as(ann), early[1].ID, "an early one, in the window"); err != nil {
					t.Fatal(err)
				}
			}
			remember(t, s, bob, memory.EntryWrite{Content: fmt.Sprintf("bob's note %d in the window, on the harbour", i)})
			clk.Advance(50 * time.Minute)
		}
		remember(t, s, ann, memory.EntryWrite{Content: "The flight to Oslo is on Tuesday."})
		remember(t, s, ann, memory.EntryWrite{Content: "The flight to Oslo is on Wednesday."}) // supersedes the Tuesday one
		if _, err := consolidate(t, db, ann, "ann's early notes, in short", early[2].ID, early[3].ID); err != nil {
			t.Fatal(err)
		}
		clk.Advance(40 * time.Minute)
		if _, err := s.Restore(as(human), "ann", early[2].ID); err != nil {
			t.Fatal(err)
		}
		until := clk.Now()
		clk.Advance(2 * time.Hour) // after the last step's end
		remember(t, s, bob, memory.EntryWrite{Content: "bob's note written after the window"})
		if _, err := s.Forget(as(ann), early[4].ID, "after the window"); err != nil {
			t.Fatal(err)
		}

		for _, q := range []memory.TrendQuery{
			{Until: until, Step: time.Hour, Steps: 6},
			{Until: until, Step: 20 * time.Minute, Steps: 10},
			{Until: until.Add(-90 * time.Minute), Step: time.Hour, Steps: 2},
			{Until: clk.Now(), Step: 24 * time.Hour, Steps: 3},
		} {
			got, err := s.Trends(as(human), q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := db.ActiveTrendByScan(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) < 2 {
				t.Fatalf("the scan found %+v: the store is not what this test means", want)
			}
			if !slices.EqualFunc(got.Active, want, func(a, b memory.AgentCounts) bool {
				return a.AgentID == b.AgentID && slices.Equal(a.Counts, b.Counts)
			}) {
				t.Errorf("steps of %v until %v: counted back %+v, scanned %+v", q.Step, q.Until, got.Active, want)
			}
		}
	})
}

// TestTrendsRunAFixedNumberOfStatements: the statistics page's trends run
// as many statements for many agents as for two (the active trend used
// to ask once per agent), and still follow every agent.
func TestTrendsRunAFixedNumberOfStatements(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		s := store.NewMemoryService(db, nil)
		agents := func(from, to int) {
			for i := from; i < to; i++ {
				id := memory.Identity{AgentID: fmt.Sprintf("agent%02d", i), Seniority: memory.SeniorityMid, Autonomy: memory.AutonomyFull}
				remember(t, s, id, memory.EntryWrite{Content: fmt.Sprintf("agent %d keeps a note about project number %d", i, i)})
			}
		}
		q := memory.TrendQuery{Until: clk.Now().Add(time.Hour), Step: time.Hour, Steps: 4}
		statements := func() (int64, []memory.AgentCounts) {
			before := db.Statements()
			got, err := s.Trends(as(human), q)
			if err != nil {
				t.Fatal(err)
			}
			return db.Statements() - before, got.Active
		}
		agents(0, 2)
		two, active := statements()
		if len(active) != 2 {
			t.Fatalf("the trend of two agents follows %+v", active)
		}
		agents(2, 12)
		twelve, active := statements()
		if twelve != two {
			t.Errorf("the trends ran %d statements for two agents and %d for twelve", two, twelve)
		}
		if len(active) != 8 || active[0].Counts[3] != 1 {
			t.Errorf("the trend of twelve agents follows %+v, want the top 8 with a memory each", active)
		}
	})
}
