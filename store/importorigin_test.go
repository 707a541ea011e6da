package store_test

import (
	"context"
	"errors"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// TestImportOriginClaimedOnce: on both engines, the first write of a call
// carrying an import origin claims it for good; a later call with the same
// origin (two imports at once, or one long after) writes nothing and says
// ErrImported; HeldForImport finds the origin and a memory by its id (in
// any state: TestImportNeverRevives); the claim refuses a plain delete.
func TestImportOriginClaimedOnce(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		mem := store.NewMemoryService(db, nil)
		call := func() context.Context {
			return store.WithCall(as(senior), &store.Call{Principal: senior.Principal(), Tool: "remember", Origin: "memory mem_x"})
		}
		first, err := mem.Remember(call(), memory.EntryWrite{Content: "The dock code is 4711."})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mem.Remember(call(), memory.EntryWrite{Content: "The dock code is 4711, said again."}); !errors.Is(err, store.ErrImported) {
			t.Fatalf("the second write of one origin: %v", err)
		}
		held, err := db.HeldForImport(context.Background(), []string{"memory mem_x", "memory mem_y"}, []string{first.ID, "mem_nope"}, []string{"nofact"})
		if err != nil {
			t.Fatal(err)
		}
		if !held.Origins["memory mem_x"] || held.Origins["memory mem_y"] || !held.Memories[first.ID] || held.Memories["mem_nope"] || len(held.Retracted) != 0 {
			t.Fatalf("held: %+v", held)
		}
		var n int
		if err := db.SQL().QueryRow(`SELECT count(*) FROM memories`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("%d memories (%v), want the first only", n, err)
		}
		if _, err := db.SQL().Exec(`DELETE FROM import_origins`); err == nil {
			t.Fatal("an import origin was deleted")
		}
	})
}

// TestImportColumnsAgreeAcrossEngines: an exact import checks each record
// against the same columns on either engine (the types PostgreSQL's schema
// mirrors named as SQLite's), a text key must be given and an integer key
// may be left out, and the columns an import re-makes are not among them.
func TestImportColumnsAgreeAcrossEngines(t *testing.T) {
	got := map[string]map[string]string{}
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		cols, err := store.ImportColumns(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		for col, want := range map[string]string{
			"approvals.id":        "TEXT not null",
			"notes.note_id":       "INTEGER not null may be left out",
			"notes.text":          "TEXT not null",
			"memories.confidence": "REAL not null",
			"blocks.writers":      "TEXT not null may be left out",
			"memories.stamp":      "",
			"memories.embedding":  "",
		} {
			if cols[col] != want {
				t.Errorf("%s: %q, want %q", col, cols[col], want)
			}
		}
		got[t.Name()] = cols
	})
	var first map[string]string
	for engine, cols := range got {
		if first == nil {
			first = cols
			continue
		}
		for col, c := range first {
			if cols[col] != c {
				t.Errorf("%s: %s %q, the other engine %q", col, engine, cols[col], c)
			}
		}
		for col, c := range cols {
			if _, ok := first[col]; !ok {
				t.Errorf("%s: %s %q, the other engine has no such column", col, engine, c)
			}
		}
	}
}
