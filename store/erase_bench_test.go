package store_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// BenchmarkEraseAgent erases one agent's 4,000 memories (beside another
// agent's 1,000, which stay) on each engine: the erase with its scrub,
// then a raw scan of the database's files for the erased text, reported
// as the files that still hold it (0).
func BenchmarkEraseAgent(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				db, _ := e.open(b)
				mem := store.NewMemoryService(db, nil)
				for i := range 5000 {
					who := senior
					if i%5 == 4 {
						who = junior
					}
					text := fmt.Sprintf("Ticket %d of %s: %s", i, who.AgentID, incompressible(120))
					if who == senior {
						text += " " + secret
					}
					if _, err := mem.Remember(as(who), memory.EntryWrite{Content: text}); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				start := time.Now()
				rep, err := mem.Erase(as(human), memory.ErasureRequest{AgentID: senior.AgentID, Reason: "left"})
				took := time.Since(start)
				b.StopTimer()
				if err != nil || rep.Counts[memory.ErasedMemories] != 4000 || !rep.Scrubbed {
					b.Fatalf("erase: %+v, %v", rep, err)
				}
				var found []string
				if _, pg := postgresURLs.Load(db); pg {
					checkpoint(b, db)
					found = storetest.PostgresFilesHolding(b, db.SQL(), secret)
				} else {
					found = filesHolding(b, filepath.Dir(db.Path()), secret)
				}
				b.ReportMetric(took.Seconds(), "s/erase")
				b.ReportMetric(float64(len(found)), "files-holding-text")
				if len(found) > 0 {
					b.Fatalf("after the erase the text is in %v", found)
				}
				b.StartTimer()
			}
		})
	}
}
