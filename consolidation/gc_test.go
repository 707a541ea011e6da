package consolidation_test

import (
	"context"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// gc purges past the grace period, one maintenance run at a time, and only
// a human purges other agents' memories.
// SQLite only until erase runs on PostgreSQL (issue 24, the erasure work):
// gc purges through erase's steps.
func TestCollectHoldsTheLease(t *testing.T) {
	f := newFixture(t)
	old := f.remember(ann, memory.EntryWrite{Content: "the old printer code is 4471"})
	if _, err := f.mem.Forget(as(ann), old.ID, ""); err != nil {
		t.Fatal(err)
	}
	f.clk.Advance(31 * 24 * time.Hour)
	if _, err := f.svc.Collect(as(ann), "", 30*24*time.Hour); memory.ErrorCode(err) != memory.EFORBIDDEN {
		t.Fatalf("an agent purging every agent's: %v", err)
	}
	other := f.other()
	l := take(t, other, "memory-mcp consolidate, pid 4242 on elsewhere")
	c, err := f.svc.Collect(as(ann), "ann", 30*24*time.Hour)
	if err != nil || !strings.Contains(c.Skipped, "pid 4242") || c.Batches != 0 {
		t.Fatalf("gc while the lease is held: %+v, %v", c, err)
	}
	if _, err := f.mem.Recall(as(ann), []string{old.ID}); err != nil {
		t.Fatalf("a skipped gc purged: %v", err)
	}
	if err := other.Update(context.Background(), func(tx *store.Tx) error { return tx.ReleaseLease(context.Background(), l) }); err != nil {
		t.Fatal(err)
	}
	c, err = f.svc.Collect(as(human), "", 30*24*time.Hour)
	if err != nil || c.Batches != 1 || c.Erased.Counts[memory.ErasedMemories] != 1 || !c.Erased.Scrubbed {
		t.Fatalf("gc: %+v, %v", c, err)
	}
	if _, err := f.mem.Recall(as(ann), []string{old.ID}); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Fatalf("after gc: %v", err)
	}
}
