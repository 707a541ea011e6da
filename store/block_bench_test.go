package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// BenchmarkBlockEdits runs a fixed workload once and reports edit throughput
// on one shared block: appends from one handle (the baseline), then the same
// number of appends from two handles on the same file at once, without and
// with compare-and-set (where each conflict costs a re-read and a retry).
func BenchmarkBlockEdits(b *testing.B) {
	const edits = 400
	for range b.N {
		base := blockEditRun(b, 1, edits, false)
		free := blockEditRun(b, 2, edits, false)
		cas := blockEditRun(b, 2, edits, true)
		b.ReportMetric(base.perSec, "edits/s-1-handle")
		b.ReportMetric(free.perSec, "edits/s-2-handles")
		b.ReportMetric(cas.perSec, "edits/s-2-handles-cas")
		b.ReportMetric(float64(cas.conflicts)/edits, "conflicts/edit-cas")
		b.Logf("%d appends to one block: 1 handle %.0f/s; 2 handles %.0f/s (%.2fx); 2 handles with expected_version %.0f/s (%.2fx), %d conflicts retried",
			edits, base.perSec, free.perSec, free.perSec/base.perSec, cas.perSec, cas.perSec/base.perSec, cas.conflicts)
	}
}

type editRun struct {
	perSec    float64
	conflicts int
}

// blockEditRun appends edits lines to one shared block from handles
// database handles on one fresh file, and checks that every line landed.
func blockEditRun(b *testing.B, handles, edits int, cas bool) editRun {
	b.Helper()
	path := filepath.Join(b.TempDir(), store.FileName)
	svcs := make([]*store.BlockService, handles)
	for i := range svcs {
		db, err := store.Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		svcs[i] = store.NewBlockService(db)
		svcs[i].Defaults = nil
	}
	if _, err := svcs[0].Create(as(ann), memory.BlockSpec{Label: "log", Description: "d", Limit: memory.MaxBlockLimit, Shared: true, Writers: []string{"*"}}); err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	run := editRun{}
	start := time.Now()
	for h, svc := range svcs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := h; i < edits; i += handles {
				n, err := appendLine(svc, fmt.Sprintf("line %d", i), cas)
				mu.Lock()
				run.conflicts += n
				mu.Unlock()
				if err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	run.perSec = float64(edits) / time.Since(start).Seconds()
	blk, err := svcs[0].Get(as(ann), "log")
	if err != nil || blk.Version != edits+1 {
		b.Fatalf("block after %d appends: version %d, %v", edits, blk.Version, err)
	}
	return run
}

func appendLine(svc *store.BlockService, line string, cas bool) (int, error) {
	if cas {
		return casAppend(as(bob), svc, line)
	}
	_, err := svc.Edit(as(bob), memory.BlockEdit{Label: "log", Op: memory.BlockAppend, Text: line})
	return 0, err
}
