package store_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// filesHolding returns the files of dir whose raw bytes hold s, as written
// or in lower case (the full-text index keeps words lower-cased).
func filesHolding(t testing.TB, dir, s string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(s)) || bytes.Contains(b, []byte(strings.ToLower(s))) {
			found = append(found, e.Name())
		}
	}
	return found
}

// A reader on another connection keeps the erase's scrub from emptying the
// log: the scrub stays owed, in the database, and the next erase pays it
// although it removes nothing, so that the bytes leave the files.
func TestScrubOwedIsPaidByTheNextErase(t *testing.T) {
	defer store.SetBusyTimeout(100 * time.Millisecond)()
	db, _ := openDB(t)
	ctx := context.Background()
	mem := store.NewMemoryService(db, nil)
	e := remember(t, mem, senior, memory.EntryWrite{Content: "The locker code of " + secret + " is 7781."})
	remember(t, mem, senior, memory.EntryWrite{Content: "The lockers are on floor two."})
	dir := filepath.Dir(db.Path())
	if _, _, err := db.ScrubOwed(ctx); err != nil { // nothing owed yet: a no-op
		t.Fatal(err)
	}
	if _, owed, err := db.OwedScrub(ctx); err != nil || owed {
		t.Fatalf("a scrub is owed before any erase: %v, %v", owed, err)
	}

	other, err := store.Open(ctx, db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	// A deferred transaction that has read: it holds its snapshot, and the
	// log cannot be emptied under it.
	reader, err := other.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	var n int
	if _, err := reader.ExecContext(ctx, `BEGIN DEFERRED`); err != nil {
		t.Fatal(err)
	}
	if err := reader.QueryRowContext(ctx, `SELECT count(*) FROM memories`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	rep, err := mem.Erase(as(human), memory.ErasureRequest{IDs: []string{e.ID}, Reason: "request 21"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts[memory.ErasedMemories] != 1 || rep.Scrubbed || !rep.ScrubOwed {
		t.Fatalf("erase under a reader: %+v; want one memory, not scrubbed, a scrub owed", rep)
	}
	debt, owed, err := db.OwedScrub(ctx)
	if err != nil || !owed || debt.Erasure != rep.Erasure {
		t.Fatalf("scrub owed %+v, %v, %v; want erasure %d", debt, owed, err, rep.Erasure)
	}
	if len(filesHolding(t, dir, secret)) == 0 {
		t.Fatal("the erased bytes are in no file while the scrub is owed: the check below could not fail")
	}
	dry, err := mem.Erase(as(human), memory.ErasureRequest{Contains: "Nothingholdsthis", Reason: "check", DryRun: true})
	if err != nil || !dry.ScrubOwed || dry.Scrubbed {
		t.Fatalf("dry run while a scrub is owed: %+v, %v", dry, err)
	}
	if _, err := reader.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}

	rep, err = mem.Erase(as(human), memory.ErasureRequest{Contains: "Nothingholdsthis", Reason: "check"})
	if err != nil || rep.Total() != 0 || !rep.Scrubbed || rep.ScrubOwed {
		t.Fatalf("an erase of nothing after the reader left: %+v, %v; want the owed scrub done", rep, err)
	}
	if found := filesHolding(t, dir, secret); len(found) > 0 {
		t.Fatalf("after the owed scrub the erased bytes are still in %v", found)
	}
	if _, owed, err := db.OwedScrub(ctx); err != nil || owed {
		t.Fatalf("a scrub is still owed: %v, %v", owed, err)
	}
	// With nothing owed and nothing removed, nothing is rewritten.
	rep, err = mem.Erase(as(human), memory.ErasureRequest{Contains: "Nothingholdsthis", Reason: "check"})
	if err != nil || rep.Scrubbed || rep.ScrubOwed {
		t.Fatalf("an erase of nothing, nothing owed: %+v, %v", rep, err)
	}
}
