package store_test

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/locomo"
	"github.com/memory-mcp/memory-mcp/store"
)

// BenchmarkRememberGrowth remembers N memories of one agent (LoCoMo's
// turns grown past their end, episodic, with the offline embedder and a
// provenance key, as BenchmarkNodesScale's ingest writes them) on each
// engine, and prints the rate of every 500: a write that costs more as
// the agent's memories grow shows as a falling rate. N is
// MEMORY_MCP_BENCH_GROWTH_MEMORIES, 3,000 by default.
func BenchmarkRememberGrowth(b *testing.B) {
	n := 3_000
	if v, err := strconv.Atoi(os.Getenv("MEMORY_MCP_BENCH_GROWTH_MEMORIES")); err == nil && v > 0 {
		n = v
	}
	ds := locomo.Must(b)
	texts, _ := ds.Corpus()
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			for range b.N {
				db, _ := e.open(b)
				if err := db.UseProvenanceKey(context.Background(), provKey); err != nil {
					b.Fatal(err)
				}
				s := store.NewMemoryService(db, benchEmbedder())
				ctx := as(memory.Identity{AgentID: "bench", Seniority: memory.SeniorityMid})
				start, lap := time.Now(), time.Now()
				for i := range n {
					if _, err := s.Remember(ctx, memory.EntryWrite{Content: locomo.Grown(texts, i), Category: memory.CategoryEpisodic}); err != nil {
						b.Fatalf("memory %d: %v", i, err)
					}
					if (i+1)%500 == 0 {
						b.Logf("%s: memories %d-%d: %.0f/s", e.name, i-498, i+1, 500/time.Since(lap).Seconds())
						lap = time.Now()
					}
				}
				b.ReportMetric(float64(n)/time.Since(start).Seconds(), "remember/s")
			}
		})
	}
}
