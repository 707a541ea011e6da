package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// twoHolders opens one database twice, as two processes would, on one
// clock the test controls, and writes four memories of ann's.
func twoHolders(t *testing.T, openDB opener) (a, b *store.DB, clk *storetest.Clock, ids []string) {
	t.Helper()
	a, _ = openDB(t)
	b = reopen(t, a)
	clk = storetest.NewClock(time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC), time.Millisecond)
	a.Now, b.Now = clk.Now, clk.Now
	s := store.NewMemoryService(a, nil)
	for _, c := range []string{"one", "two", "three", "four"} {
		ids = append(ids, remember(t, s, ann, memory.EntryWrite{Content: "memory " + c}).ID)
	}
	return a, b, clk, ids
}

func summarise(db *store.DB, l store.Lease, sources ...string) error {
	return db.Update(context.Background(), func(tx *store.Tx) error {
		_, err := tx.Consolidate(context.Background(), store.Summary{Agent: ann.AgentID, Author: memory.AuthorOf(ann),
			Namespace: memory.DefaultNamespace, Category: memory.CategorySemantic, Content: "a summary", Confidence: 0.5,
			OccurredAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Sources: sources, Lease: l})
		return err
	})
}

// TestLeaseTakenOverCannotWrite: two processes on one file. While the
// first holds the lease the second cannot take it, and learns who holds it
// until when. Once the first's lease expires the second takes it with the
// next token, and from then on every write of the first (summary, archive,
// retire, finish, renew) fails in its own transaction and writes nothing,
// while the second's succeed; the first's release leaves the second's lease
// alone.
func TestLeaseTakenOverCannotWrite(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		a, b, clk, ids := twoHolders(t, openDB)
		ctx := context.Background()
		first, ok := storetest.HoldLease(t, a, "first", time.Minute)
		if !ok || first.Token != 1 {
			t.Fatalf("first acquire: %+v %v", first, ok)
		}
		held, ok := storetest.HoldLease(t, b, "second", time.Minute)
		if ok || held.Holder != "first" || held.Token != 1 || !held.ExpiresAt.Equal(first.ExpiresAt) {
			t.Fatalf("second acquire while held: %+v %v, want first's lease", held, ok)
		}
		// Renewing moves the expiry on; the holder writes.
		clk.Advance(50 * time.Second)
		if err := a.Update(ctx, func(tx *store.Tx) (err error) { first, err = tx.RenewLease(ctx, first, time.Minute); return err }); err != nil {
			t.Fatal(err)
		}
		clk.Advance(50 * time.Second)
		if _, ok := storetest.HoldLease(t, b, "second", time.Minute); ok {
			t.Fatal("second took a renewed lease")
		}
		if err := summarise(a, first, ids[0], ids[1]); err != nil {
			t.Fatalf("holder's write: %v", err)
		}

		// The first stalls past its lease; the second takes it over.
		clk.Advance(2 * time.Minute)
		second, ok := storetest.HoldLease(t, b, "second", time.Minute)
		if !ok || second.Token != 2 || second.Holder != "second" {
			t.Fatalf("take over an expired lease: %+v %v", second, ok)
		}
		before, err := a.LastChange(ctx)
		if err != nil {
			t.Fatal(err)
		}
		writes := map[string]func(tx *store.Tx) error{
			"consolidate": func(tx *store.Tx) error {
				_, err := tx.Consolidate(ctx, store.Summary{Agent: ann.AgentID, Content: "stale", Sources: ids[2:], Lease: first})
				return err
			},
			"archive": func(tx *store.Tx) error {
				_, err := tx.Archive(ctx, first, ann.AgentID, ids[2:], memory.ArchiveRetention)
				return err
			},
			"finish": func(tx *store.Tx) error { return tx.FinishRun(ctx, first, ann.AgentID) },
			"renew": func(tx *store.Tx) error {
				_, err := tx.RenewLease(ctx, first, time.Minute)
				return err
			},
		}
		for name, write := range writes {
			err := a.Update(ctx, write)
			var lost *store.LeaseLostError
			if !errors.As(err, &lost) || memory.ErrorCode(err) != memory.ECONFLICT ||
				!strings.Contains(err.Error(), "second took it over (token 2)") || !strings.Contains(err.Error(), "the run stopped") {
				t.Errorf("%s by the taken-over holder: %v", name, err)
			}
		}
		if after, _ := a.LastChange(ctx); after != before {
			t.Errorf("the taken-over holder wrote %d changes", after-before)
		}
		s := store.NewMemoryService(a, nil)
		page, err := s.List(as(ann), memory.ListQuery{States: []memory.MemoryState{memory.StateActive}})
		if err != nil {
			t.Fatal(err)
		}
		var active []string
		for _, e := range page.Memories {
			active = append(active, e.ID)
		}
		if !slices.Contains(active, ids[2]) || !slices.Contains(active, ids[3]) || slices.Contains(active, ids[0]) {
			t.Errorf("active after the refused writes: %v", active)
		}

		// The first's release does not free the second's lease; the second writes.
		if err := a.Update(ctx, func(tx *store.Tx) error { return tx.ReleaseLease(ctx, first) }); err != nil {
			t.Fatal(err)
		}
		if l, ok := storetest.HoldLease(t, a, "third", time.Minute); ok || l.Token != 2 {
			t.Fatalf("acquire after a stale release: %+v %v, want the second's lease", l, ok)
		}
		if err := summarise(b, second, ids[2], ids[3]); err != nil {
			t.Fatalf("the new holder's write: %v", err)
		}
		if err := b.Update(ctx, func(tx *store.Tx) error { return tx.ReleaseLease(ctx, second) }); err != nil {
			t.Fatal(err)
		}
		if l, ok := storetest.HoldLease(t, a, "third", time.Minute); !ok || l.Token != 3 {
			t.Fatalf("acquire after release: %+v %v", l, ok)
		}
	})
}

// TestLeaseExpiredNotTakenOver: a holder that ran past its lease while
// nobody took it over still holds it (nobody else wrote since), so its
// renewal and writes go through; a write without a lease never does.
func TestLeaseExpiredNotTakenOver(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		a, _, clk, ids := twoHolders(t, openDB)
		ctx := context.Background()
		l, _ := storetest.HoldLease(t, a, "slow", time.Second)
		clk.Advance(time.Hour)
		if err := summarise(a, l, ids[0], ids[1]); err != nil {
			t.Fatalf("write after expiry, not taken over: %v", err)
		}
		if err := a.Update(ctx, func(tx *store.Tx) (err error) { l, err = tx.RenewLease(ctx, l, time.Minute); return err }); err != nil {
			t.Fatal(err)
		}
		if _, ok := storetest.HoldLease(t, a, "other", time.Minute); ok {
			t.Fatal("a renewed lease was taken")
		}
		if err := summarise(a, store.Lease{Name: store.LeaseMaintenance}, ids[2], ids[3]); err == nil || !strings.Contains(err.Error(), "needs the maintenance lease") {
			t.Fatalf("write without a lease: %v", err)
		}
	})
}

// TestPersonalAgents lists the agents with active personal memories, and
// those not maintained since a time.
func TestPersonalAgents(t *testing.T) { personalAgents(t, openDB, true) }

// TestPersonalAgentsOnBothEngines is TestPersonalAgents on either engine,
// with cy's only memory archived instead of forgotten: forget waits for the
// memory port on PostgreSQL, and then the two fold into one.
func TestPersonalAgentsOnBothEngines(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) { personalAgents(t, openDB, false) })
}

// personalAgents holds PersonalAgents on the store open opens; cy's only
// memory leaves search by a forget, or else by retention's archive.
func personalAgents(t *testing.T, open opener, forget bool) {
	a, _, clk, _ := twoHolders(t, open)
	ctx := context.Background()
	s := store.NewMemoryService(a, nil)
	remember(t, s, bob, memory.EntryWrite{Content: "bob's"})
	cy := memory.Identity{AgentID: "cy", Seniority: memory.SeniorityMid}
	gone := remember(t, s, cy, memory.EntryWrite{Content: "cy's only memory"})
	if forget {
		if _, err := s.Forget(as(cy), gone.ID, "wrong"); err != nil {
			t.Fatal(err)
		}
	} else {
		l, _ := storetest.HoldLease(t, a, "retention", time.Minute)
		err := a.Update(ctx, func(tx *store.Tx) error {
			if n, err := tx.Archive(ctx, l, "cy", []string{gone.ID}, memory.ArchiveRetention); err != nil || n != 1 {
				return fmt.Errorf("archived %d: %v", n, err)
			}
			return tx.ReleaseLease(ctx, l)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	list := func(since time.Time) []string {
		var out []string
		if err := a.View(ctx, func(tx *store.Tx) (err error) { out, err = tx.PersonalAgents(ctx, since); return err }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := list(time.Time{}); !slices.Equal(got, []string{"ann", "bob"}) {
		t.Fatalf("agents = %v, want ann and bob (cy has nothing active)", got)
	}
	l, _ := storetest.HoldLease(t, a, "run", time.Minute)
	if err := a.Update(ctx, func(tx *store.Tx) error { return tx.FinishRun(ctx, l, "ann") }); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	if got := list(clk.Now().Add(-2 * time.Hour)); !slices.Equal(got, []string{"bob"}) {
		t.Fatalf("not run in two hours = %v, want bob", got)
	}
	if got := list(clk.Now().Add(-time.Minute)); !slices.Equal(got, []string{"ann", "bob"}) {
		t.Fatalf("not run in a minute = %v, want both", got)
	}
}
