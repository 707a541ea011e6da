package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// TestRecentDistillations: an agent's newest task records, newest first,
// archived ones included; forgotten, expired, untagged and other agents'
// memories are not.
func TestRecentDistillations(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) { recentDistillations(t, openDB) })
}

// recentDistillations holds RecentDistillations on the store open opens.
func recentDistillations(t *testing.T, open opener) {
	s, db, _ := memoriesOn(t, open, nil)
	record := func(who memory.Identity, content string) memory.Entry {
		return remember(t, s, who, memory.EntryWrite{Content: content, Category: memory.CategoryEpisodic, Tags: []string{memory.DistillationTag}})
	}
	r1 := record(ann, "Task T-1 finished.")
	r2 := record(ann, "Task T-2 failed.")
	r3 := record(ann, "Task T-3 finished.")
	record(bob, "Task B-1 finished.")
	remember(t, s, ann, memory.EntryWrite{Content: "Task T-5 is not a record: untagged."})
	remember(t, s, ann, memory.EntryWrite{Content: "Task T-6 expires.", Tags: []string{memory.DistillationTag},
		ExpiresAt: time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)}) // the clock passes it below
	gone := record(ann, "Task T-4 was cancelled.")
	if _, err := s.Forget(as(ann), gone.ID, "recorded twice"); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(context.Background(), func(tx *store.Tx) error {
		l, _, err := tx.AcquireLease(context.Background(), store.LeaseMaintenance, "test", time.Minute)
		if err != nil {
			return err
		}
		_, err = tx.Archive(context.Background(), l, "ann", []string{r2.ID}, memory.ArchiveRetention)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for range 60 {
		db.Now.Now() // past T-6's expiry
	}
	read := func(n int) []string {
		var got []memory.Entry
		if err := db.View(context.Background(), func(tx *store.Tx) (err error) {
			got, err = tx.RecentDistillations(context.Background(), "ann", n)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range got {
			ids = append(ids, e.ID)
		}
		return ids
	}
	if got, want := read(5), []string{r3.ID, r2.ID, r1.ID}; !slices.Equal(got, want) {
		t.Errorf("recent distillations = %v, want %v", got, want)
	}
	if got := read(2); !slices.Equal(got, []string{r3.ID, r2.ID}) {
		t.Errorf("the newest 2 = %v", got)
	}
	if got := read(0); len(got) != 0 {
		t.Errorf("none asked, got %v", got)
	}
}
