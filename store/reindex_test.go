package store_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
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
	onEngines(t, func(t *testing.T, openDB opener) {
		s, db, _ := memoriesOn(t, openDB, nil)
		remember(t, s, ann, memory.EntryWrite{Content: "x"})
		liar := hashEmbedder("liar", 8)
		liar.Dim = 16
		if _, err := store.Reindex(context.Background(), db, liar, store.ReindexOptions{}); err == nil {
			t.Fatal("a vector of the wrong dimension was stored")
		}
	})
}

// A vector blob that cannot be read (not a whole number of float32s, or
// the wrong dimension) is skipped and logged, never fatal: the index still
// loads, a running index's Sync still advances, the memory is still found
// by keyword, and it counts as missing so that `reindex --missing` (a
// StaleOnly reindex) gives it a new vector.
func TestIndexSkipsMalformedVectors(t *testing.T) {
	emb := hashEmbedder("hash-16", 16)
	s, db, _ := memories(t, &emb)
	var logs bytes.Buffer
	s.Index.Log = slog.New(slog.NewTextHandler(&logs, nil))
	var ids []string
	for _, c := range []string{"torn vector note", "short vector note", "nan vector note", "sound vector note"} {
		ids = append(ids, remember(t, s, ann, memory.EntryWrite{Content: c}).ID)
	}
	ctx := context.Background()
	nan := "x'" + strings.Repeat("0000c07f", 16) + "'" // 16 float32 NaNs, the right length
	for id, blob := range map[string]string{ids[0]: "x'010203'", ids[1]: "zeroblob(32)", ids[2]: nan} {
		err := db.Update(ctx, func(tx *store.Tx) error {
			if _, err := tx.SQL().ExecContext(ctx, `UPDATE memories SET embedding = `+blob+` WHERE id = ?`, id); err != nil {
				return err
			}
			return tx.RecordChange(ctx, memory.ChangeMemory, id, db.Now.Now())
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	s.Retrieval = configs()["vector"]
	if got := search(t, s, ann, memory.Query{Text: "vector note"}); !slices.Equal(got, ids[3:]) {
		t.Fatalf("vector search after the damage = %v, want only the sound memory %v", got, ids[3:])
	}
	s.Retrieval = configs()["bm25"]
	if got := search(t, s, ann, memory.Query{Text: "torn"}); !slices.Equal(got, ids[:1]) {
		t.Fatalf("keyword search = %v, want %v", got, ids[:1])
	}
	for _, id := range ids[:3] {
		if !strings.Contains(logs.String(), id) || !strings.Contains(logs.String(), "reindex --missing") {
			t.Fatalf("log does not name %s and the fix:\n%s", id, logs.String())
		}
	}

	fresh := store.NewMemoryService(db, &emb)
	fresh.Index.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := fresh.Index.Load(ctx)
	if err != nil || st.Indexed != 1 || st.Missing != 3 {
		t.Fatalf("load = %+v, %v; want 1 indexed, 3 missing", st, err)
	}
	if n, err := store.Reindex(ctx, db, emb, store.ReindexOptions{StaleOnly: true}); err != nil || n != 3 {
		t.Fatalf("reindex --missing = %d, %v; want the 3 damaged memories", n, err)
	}
	if st, err := fresh.Index.Load(ctx); err != nil || st.Indexed != 4 || st.Missing != 0 {
		t.Fatalf("load after reindex = %+v, %v", st, err)
	}
}

// TestReindexMissingOnBothEngines: a StaleOnly reindex (`reindex --missing`)
// re-embeds, on either engine, exactly the memories whose vector the index
// cannot use (none, torn, of the wrong length, not finite) or another
// embedder made, and then has nothing left to do.
func TestReindexMissingOnBothEngines(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		emb := hashEmbedder("hash-16", 16)
		s := store.NewMemoryService(db, &emb)
		var ids []string
		for _, c := range []string{"torn vector note", "short vector note", "nan vector note", "inf vector note", "sound vector note", "older vector note"} {
			ids = append(ids, remember(t, s, ann, memory.EntryWrite{Content: c}).ID)
		}
		nan := bytes.Repeat([]byte{0, 0, 0xc0, 0x7f}, 16)                     // 16 float32 NaNs, the right length
		inf := append(bytes.Repeat([]byte{0, 0, 0, 0}, 15), 0, 0, 0x80, 0xff) // the last one -Inf
		for i, blob := range [][]byte{{1, 2, 3}, make([]byte, 32), nan, inf} {
			err := db.Update(ctx, func(tx *store.Tx) error {
				_, err := tx.SQL().ExecContext(ctx, rawSQL(db, `UPDATE memories SET embedding = ? WHERE id = ?`), blob, ids[i])
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		err := db.Update(ctx, func(tx *store.Tx) error {
			_, err := tx.SQL().ExecContext(ctx, rawSQL(db, `UPDATE memories SET embedder = 'hash-8' WHERE id = ?`), ids[5])
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		seq, err := db.LastChange(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := store.Reindex(ctx, db, emb, store.ReindexOptions{StaleOnly: true}); err != nil || n != 5 {
			t.Fatalf("reindex --missing = %d, %v; want the 4 damaged memories and the older embedder's", n, err)
		}
		// Running servers reload each vector stored: a change per memory,
		// in the memories' order.
		changes, err := db.ChangesSince(ctx, seq, 100)
		if err != nil {
			t.Fatal(err)
		}
		var refs []string
		for _, c := range changes {
			if c.Kind != memory.ChangeMemory {
				t.Errorf("reindex recorded a change of kind %s", c.Kind)
			}
			refs = append(refs, c.Ref)
		}
		if want := []string{ids[0], ids[1], ids[2], ids[3], ids[5]}; !slices.Equal(refs, want) {
			t.Fatalf("reindex --missing recorded changes of %v, want %v", refs, want)
		}
		if n, err := store.Reindex(ctx, db, emb, store.ReindexOptions{StaleOnly: true}); err != nil || n != 0 {
			t.Fatalf("reindex --missing again = %d, %v; want nothing left", n, err)
		}
	})
}
