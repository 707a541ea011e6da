package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

func TestReindexMovesEveryActiveMemoryToTheNewEmbedder(t *testing.T) {
	old, cur := hashEmbedder("old-32", 32), hashEmbedder("new-16", 16)
	s, db, _ := memories(t, &old)
	var ids []string
	for i := range 5 {
		ids = append(ids, remember(t, s, ann, memory.EntryWrite{Content: fmt.Sprintf("reindex fixture number %d", i)}).ID)
	}
	if _, err := s.Forget(as(ann), ids[4], ""); err != nil {
		t.Fatal(err)
	}

	// A server already running with the new embedder sees nothing by vector...
	running := store.NewMemoryService(db, &cur)
	running.Retrieval = configs()["vector"]
	if _, err := running.Index.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := search(t, running, ann, memory.Query{Text: "reindex fixture"}); len(got) != 0 {
		t.Fatalf("before reindex: %v", got)
	}

	var progress [][2]int
	n, err := store.Reindex(context.Background(), db, cur, store.ReindexOptions{Batch: 2,
		Progress: func(done, total int) { progress = append(progress, [2]int{done, total}) }})
	if err != nil || n != 4 {
		t.Fatalf("reindex = %d, %v", n, err)
	}
	if !slices.Equal(progress, [][2]int{{2, 4}, {4, 4}}) {
		t.Fatalf("progress = %v", progress)
	}
	var stale int
	db.SQL().QueryRow(`SELECT count(*) FROM memories WHERE forgotten_at IS NULL AND embedder IS NOT 'new-16'`).Scan(&stale)
	if stale != 0 {
		t.Fatalf("%d memories still on the old embedder", stale)
	}
	// ... and after it, without a restart, finds the four active ones.
	got := search(t, running, ann, memory.Query{Text: "reindex fixture"})
	slices.Sort(got)
	want := slices.Clone(ids[:4])
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("after reindex: %v, want %v", got, want)
	}

	// Only stale ones: nothing left to do.
	if n, err := store.Reindex(context.Background(), db, cur, store.ReindexOptions{StaleOnly: true}); err != nil || n != 0 {
		t.Fatalf("stale-only reindex = %d, %v", n, err)
	}
}

func TestReindexRejectsWrongDimension(t *testing.T) {
	s, db, _ := memories(t, nil)
	remember(t, s, ann, memory.EntryWrite{Content: "x"})
	liar := hashEmbedder("liar", 8)
	liar.Dim = 16
	if _, err := store.Reindex(context.Background(), db, liar, store.ReindexOptions{}); err == nil {
		t.Fatal("a vector of the wrong dimension was stored")
	}
}
