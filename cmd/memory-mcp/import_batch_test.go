package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// TestMergeImportReadsInBatches: a merge import of an export holds a batch
// of its writes at a time, not the file: every write comes, in the file's
// order, in batches of importBatch, after the whole file was checked; a
// bad file is refused before any write; a store's failure ends the import
// as itself, not as a bad line; a file changed between the check and the
// writes is refused.
func TestMergeImportReadsInBatches(t *testing.T) {
	defer func(n int) { importBatch = n }(importBatch)
	importBatch = 3
	ctx := context.Background()
	dir := t.TempDir()
	db, err := openTestStore(ctx, t, dir)
	if err != nil {
		t.Fatal(err)
	}
	s := store.NewMemoryService(db, nil)
	as := memory.WithIdentity(ctx, memory.Identity{AgentID: "ann"})
	var ids []string
	for i := range 7 {
		r, err := s.Remember(as, memory.EntryWrite{Content: fmt.Sprintf("The tide table for pier %d changed on Monday", i), Category: memory.CategoryEpisodic})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	if _, err := s.Forget(as, ids[6], "wrong pier"); err != nil {
		t.Fatal(err)
	}
	var export bytes.Buffer
	if _, err := db.Export(ctx, store.ExportFilter{}, &export); err != nil {
		t.Fatal(err)
	}
	db.Close()
	file := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(file, export.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	human := memory.Identity{AgentID: "root", Human: true}
	now := time.Now()

	in, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out := newImportOutcome()
	writes, err := exportWrites(in, out, now, human)
	if err != nil {
		t.Fatal(err)
	}
	if writes.total != 6 || out.Skipped["memory not active"] != 1 {
		t.Errorf("total %d, skipped %v: want the 6 active memories, the forgotten one skipped", writes.total, out.Skipped)
	}
	var sizes []int
	var got []string
	if err := writes.each(func(batch []importWrite) error {
		sizes = append(sizes, len(batch))
		for _, w := range batch {
			got = append(got, w.memoryID)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sizes, []int{3, 3}) || !slices.Equal(got, ids[:6]) {
		t.Errorf("batches %v of %v, want [3 3] of %v", sizes, got, ids[:6])
	}
	if out.Skipped["memory not active"] != 1 {
		t.Errorf("the second reading counted the skipped again: %v", out.Skipped)
	}

	full := errors.New("disk full")
	calls := 0
	err = writes.each(func([]importWrite) error { calls++; return full })
	if !errors.Is(err, full) || calls != 1 {
		t.Errorf("a store's failure: %v after %d batches, want it, after 1", err, calls)
	}

	// Cut short: refused whole, before any write.
	cut := filepath.Join(t.TempDir(), "cut.jsonl")
	os.WriteFile(cut, export.Bytes()[:export.Len()/2], 0o600)
	if c, err := os.Open(cut); err != nil {
		t.Fatal(err)
	} else {
		_, err := exportWrites(c, newImportOutcome(), now, human)
		c.Close()
		if memory.ErrorCode(err) != string(memory.EINVALID) {
			t.Errorf("a cut export: %v, want EINVALID", err)
		}
	}

	// Changed after it was checked: the second reading refuses it.
	changed := bytes.Replace(export.Bytes(), []byte("pier 5"), []byte("pier 9"), 1)
	if err := os.WriteFile(file, changed, 0o600); err != nil {
		t.Fatal(err)
	}
	err = writes.each(func([]importWrite) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "changed while it was imported") {
		t.Errorf("a file changed between the readings: %v", err)
	}
}
