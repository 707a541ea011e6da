package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// BenchmarkRememberRepeat is what a write costs that dedup answers
// "duplicate" (its words now kept as a stamped repeat row), beside one
// stored: a fixed workload of writes on a real database file with a
// provenance key, each run on a fresh one.
func BenchmarkRememberRepeat(b *testing.B) {
	const writes = 500
	for _, kind := range []string{"duplicate", "stored"} {
		b.Run(kind, func(b *testing.B) {
			var spent time.Duration
			for range b.N {
				b.StopTimer()
				db, _ := openDB(b)
				if err := db.UseProvenanceKey(context.Background(), provKey); err != nil {
					b.Fatal(err)
				}
				s := store.NewMemoryService(db, nil)
				remember(b, s, ann, memory.EntryWrite{Content: "Ann reviews the pull request."})
				b.StartTimer()
				started := time.Now()
				for i := range writes {
					content := "Ann reviews pull requests."
					if kind == "stored" {
						content = fmt.Sprintf("Ticket %d was filed by the night shift.", i)
					}
					r, err := s.Remember(as(ann), memory.EntryWrite{Content: content})
					if err != nil || r.Outcome != memory.WriteOutcome(kind) {
						b.Fatalf("write %d: %s, %v; want %s", i, r.Outcome, err, kind)
					}
				}
				spent += time.Since(started)
			}
			b.ReportMetric(float64(spent.Microseconds())/float64(b.N*writes), "µs/write")
		})
	}
}
