package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// TestKeptCountsMatchTheRows: the counts the database keeps (memory_counts,
// migration 0045) equal the memories counted one by one after every kind of
// write (remember, supersede, publish, consolidate, archive, forget,
// restore, erase), in every space, category and namespace; Counts and
// List's total give each state's count as the rows listed do, a memory
// expired by the clock alone included; an erased agent leaves no count
// behind; and a count edited by hand is reported by CheckCounts.
func TestKeptCountsMatchTheRows(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		emb := hashEmbedder("hash-32", 32)
		s, db, clk := memoriesOn(t, openDB, &emb)
		ctx := context.Background()
		queries := map[string]memory.ListQuery{
			"bob":              {AgentID: "bob"},
			"bob's semantic":   {AgentID: "bob", Categories: []memory.Category{memory.CategorySemantic}},
			"bob's home":       {AgentID: "bob", Namespaces: []string{"home"}},
			"bob's home work":  {AgentID: "bob", Namespaces: []string{"home", "work"}, Categories: []memory.Category{memory.CategoryProcedural, memory.CategorySemantic}},
			"ann":              {AgentID: "ann"},
			"the shared space": {Shared: true},
		}
		check := func(step string) {
			t.Helper()
			if bad, err := db.CheckCounts(ctx); err != nil || len(bad) != 0 {
				t.Fatalf("after %s: the kept counts differ from the rows: %+v, %v", step, bad, err)
			}
			for name, q := range queries {
				q.States, q.Limit = memory.MemoryStates, 500
				page, err := s.List(as(human), q)
				if err != nil {
					t.Fatalf("after %s: list %s: %v", step, name, err)
				}
				var listed memory.StateCounts
				now := clk.Peek()
				for _, e := range page.Memories {
					listed.AddN(memory.StateOf(e, now), 1)
				}
				got, err := s.Counts(as(human), q)
				if err != nil || got != listed || page.Total != len(page.Memories) {
					t.Fatalf("after %s: %s counted %+v (%v), listed %+v, total %d of %d", step, name, got, err, listed, page.Total, len(page.Memories))
				}
				for _, st := range memory.MemoryStates {
					q.States = []memory.MemoryState{st}
					if one, err := s.List(as(human), q); err != nil || one.Total != listed.Of(st) {
						t.Fatalf("after %s: %s's %s total %d, listed %d (%v)", step, name, st, one.Total, listed.Of(st), err)
					}
				}
			}
		}

		tuesday := remember(t, s, bob, memory.EntryWrite{Content: "The flight to Oslo is on Tuesday."})
		var garden []string
		for _, c := range []string{"garden beds need water", "garden tomatoes planted", "garden aphids sprayed"} {
			garden = append(garden, remember(t, s, bob, memory.EntryWrite{Content: c, Namespace: "home", Category: memory.CategorySemantic}).ID)
		}
		standup := remember(t, s, bob, memory.EntryWrite{Content: "standup moved to ten", Namespace: "work", Category: memory.CategoryProcedural})
		bike := remember(t, s, bob, memory.EntryWrite{Content: "bike lock code changed", Namespace: "home", Category: memory.CategorySemantic})
		remember(t, s, bob, memory.EntryWrite{Content: "parcel arrives within the hour", Namespace: "home", ExpiresAt: clk.Peek().Add(time.Hour)})
		note := remember(t, s, ann, memory.EntryWrite{Content: "ann keeps her own notes", Namespace: "private"})
		check("remember")

		if out, err := s.Remember(as(bob), memory.EntryWrite{Content: "The flight to Oslo is on Wednesday."}); err != nil || len(out.Conflicts) != 1 {
			t.Fatalf("supersede: %+v, %v", out, err)
		}
		check("supersede")
		copied, err := s.Publish(as(bob), standup.ID)
		if err != nil {
			t.Fatal(err)
		}
		check("publish")
		if _, err := consolidate(t, db, bob, "garden: water, tomatoes, aphids", garden...); err != nil {
			t.Fatal(err)
		}
		check("consolidate")
		err = db.Update(ctx, func(tx *store.Tx) error {
			l, _, err := tx.AcquireLease(ctx, store.LeaseMaintenance, "the test", time.Hour)
			if err != nil {
				return err
			}
			if n, err := tx.Archive(ctx, l, "bob", []string{bike.ID}, memory.ArchiveRetention); err != nil || n != 1 {
				return fmt.Errorf("archived %d: %w", n, err)
			}
			return tx.ReleaseLease(ctx, l)
		})
		if err != nil {
			t.Fatal(err)
		}
		check("archive")
		for _, id := range []string{garden[0], bike.ID} {
			if _, err := s.Restore(as(bob), "", id); err != nil {
				t.Fatal(err)
			}
		}
		check("restore")
		for _, id := range []string{tuesday.ID, garden[2]} {
			if _, err := s.Forget(as(bob), id, "obsolete"); err != nil {
				t.Fatal(err)
			}
		}
		check("forget")
		clk.Advance(2 * time.Hour) // the parcel expires, by the clock alone
		check("expiry")
		if c, _ := s.Counts(as(human), memory.ListQuery{AgentID: "bob", Namespaces: []string{"home"}}); c.Expired != 1 {
			t.Fatalf("the expired parcel is not counted as expired: %+v", c)
		}
		for _, ids := range [][]string{{copied.ID}, {note.ID}} {
			if _, err := s.Erase(as(human), memory.ErasureRequest{IDs: ids, Reason: "test"}); err != nil {
				t.Fatal(err)
			}
		}
		delete(queries, "ann") // no memory names her any more
		check("erase")
		var left int
		if err := db.SQL().QueryRow(`SELECT count(*) FROM memory_counts WHERE agent_id = 'ann' OR namespace = 'work'`).Scan(&left); err != nil || left != 0 {
			t.Fatalf("%d counts name what was erased (%v)", left, err)
		}

		if _, err := db.SQL().Exec(`UPDATE memory_counts SET n = n + 2 WHERE agent_id = 'bob' AND namespace = 'home' AND state = 'active'`); err != nil {
			t.Fatal(err)
		}
		bad, err := db.CheckCounts(ctx)
		if err != nil || len(bad) != 1 || bad[0].Counted == 0 || bad[0] != (store.CountsMismatch{AgentID: "bob", Category: "semantic",
			Namespace: "home", State: "active", Kept: bad[0].Counted + 2, Counted: bad[0].Counted}) {
			t.Fatalf("a count edited by hand: %+v, %v", bad, err)
		}
	})
}

// TestKeptCountsFilledOnUpgrade: a store written before migration 0045 gets
// its counts from the memories it holds, on both engines.
func TestKeptCountsFilledOnUpgrade(t *testing.T) {
	ctx := context.Background()
	// Each engine's store at its migration before 0045, and how to open it
	// again with every migration.
	for _, e := range []struct {
		name string
		old  func(t *testing.T) (*store.DB, func() (*store.DB, error), error)
	}{
		{"sqlite", func(t *testing.T) (*store.DB, func() (*store.DB, error), error) {
			path := filepath.Join(t.TempDir(), store.FileName)
			db, err := store.OpenWith(ctx, path, migrationsBefore("0045"))
			return db, func() (*store.DB, error) { return store.Open(ctx, path) }, err
		}},
		{"postgres", func(t *testing.T) (*store.DB, func() (*store.DB, error), error) {
			url := storetest.PostgresURL(t)
			db, err := store.OpenPostgresWith(ctx, url, postgresMigrationsBefore("0045"))
			return db, func() (*store.DB, error) { return store.OpenPostgres(ctx, url) }, err
		}},
	} {
		t.Run(e.name, func(t *testing.T) {
			db, reopen, err := e.old(t)
			if err != nil {
				t.Fatal(err)
			}
			s := store.NewMemoryService(db, nil)
			var ids []string
			for i, c := range []string{"the boiler was serviced", "the roof needs tiles", "the gutter is blocked"} {
				ids = append(ids, remember(t, s, bob, memory.EntryWrite{Content: c, Namespace: fmt.Sprintf("house-%d", i%2)}).ID)
			}
			remember(t, s, ann, memory.EntryWrite{Content: "ann's own"})
			if _, err := s.Forget(as(bob), ids[1], "done"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Publish(as(bob), ids[0]); err != nil {
				t.Fatal(err)
			}
			db.Close()
			if db, err = reopen(); err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if bad, err := db.CheckCounts(ctx); err != nil || len(bad) != 0 {
				t.Fatalf("the counts filled differ from the rows: %+v, %v", bad, err)
			}
			s = store.NewMemoryService(db, nil)
			for q, want := range map[*memory.ListQuery]memory.StateCounts{
				{AgentID: "bob"}: {Active: 2, Forgotten: 1},
				{AgentID: "bob", Namespaces: []string{"house-1"}}: {Forgotten: 1},
				{AgentID: "ann"}: {Active: 1},
				{Shared: true}:   {Active: 1},
			} {
				if got, err := s.Counts(as(human), *q); err != nil || got != want {
					t.Errorf("%+v counted %+v (%v), want %+v", *q, got, err, want)
				}
			}
		})
	}
}

// TestListDoesNotTrustCountsOfNone: the listing answers "none" from the
// kept counts without walking the listing, but counts that drifted to none
// (rows lost from memory_counts, or a count zeroed) do not hide the
// memories that are there among the space's newest: List finds them, with
// their number as the total, as the review page shows them.
func TestListDoesNotTrustCountsOfNone(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, db, _ := memoriesOn(t, openDB, nil)
		for _, c := range []string{"The harbour opens at six.", "Bob's boat is called Wren.", "Sailing lessons are on Sundays."} {
			remember(t, s, bob, memory.EntryWrite{Content: c})
		}
		list := func(q memory.ListQuery) memory.EntryPage {
			t.Helper()
			q.AgentID, q.Limit = "bob", 50
			page, err := s.List(as(human), q)
			if err != nil {
				t.Fatal(err)
			}
			return page
		}
		active := memory.ListQuery{States: []memory.MemoryState{memory.StateActive}}
		for _, drift := range []string{`UPDATE memory_counts SET n = 0 WHERE agent_id = 'bob'`, `DELETE FROM memory_counts WHERE agent_id = 'bob'`} {
			if _, err := db.SQL().Exec(drift); err != nil {
				t.Fatal(err)
			}
			if page := list(active); len(page.Memories) != 3 || page.Total != 3 {
				t.Errorf("after %s: listed %d memories, total %d; want the 3 there are", drift, len(page.Memories), page.Total)
			}
		}
		if page := list(memory.ListQuery{States: []memory.MemoryState{memory.StateForgotten}}); len(page.Memories) != 0 || page.Total != 0 {
			t.Errorf("a state with no memories listed %d, total %d", len(page.Memories), page.Total)
		}
	})
}
