package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/locomo"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// engineOps are the calls BenchmarkEngines times, by the name of the tool
// whose service call each is.
var engineOps = []string{"remember", "search_memory", "publish_fact"}

// opFigures are one call's figures at one size on one engine; err is why
// there are none.
type opFigures struct {
	perSec   float64
	p50, p99 time.Duration
	err      error
}

// BenchmarkEngines prints, for the SQLite and the PostgreSQL engine at 10k
// and 100k memories of one agent, the throughput and p50/p99 latency of
// remember, search_memory and publish_fact, then each figure's ratio
// PostgreSQL/SQLite. It times the services the tools call (MemoryService.
// Remember and Search, FactService.Publish), one call at a time, without
// the MCP layer, which costs the same on both engines: remember is the last
// 1,000 of the writes that grow the store to the size (LoCoMo turns),
// search_memory 300 LoCoMo questions (the default fused search, top 10),
// publish_fact 1,000 publishes over 200 facts. PostgreSQL is the test
// server's (storetest.PostgresEnv; make bench starts one).
// MEMORY_MCP_BENCH_ENGINE_SIZES=10000 runs the smaller size alone.
func BenchmarkEngines(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if v := os.Getenv("MEMORY_MCP_BENCH_ENGINE_SIZES"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 2_000 {
				b.Fatalf("MEMORY_MCP_BENCH_ENGINE_SIZES: %q is not a size of 2000 memories or more", f)
			}
			sizes = append(sizes, n)
		}
	}
	for range b.N {
		texts, queries := benchCorpus(b)
		queries = queries[:300]
		figures := map[string]map[int]map[string]opFigures{}
		for _, e := range []struct {
			name string
			open func() (*store.DB, error)
		}{
			{"sqlite", func() (*store.DB, error) {
				return store.Open(context.Background(), filepath.Join(b.TempDir(), store.FileName))
			}},
			{"postgres", func() (*store.DB, error) { return store.OpenPostgres(context.Background(), storetest.PostgresURL(b)) }},
		} {
			db, err := e.open()
			if err != nil {
				b.Fatal(err)
			}
			figures[e.name] = engineFigures(b, db, e.name, sizes, texts, queries)
			db.Close()
		}
		for _, n := range sizes {
			fmt.Printf("memories=%d postgres/sqlite", n)
			for _, op := range engineOps {
				pg, lite := figures["postgres"][n][op], figures["sqlite"][n][op]
				if pg.err != nil || lite.err != nil {
					fmt.Printf(" %s=n/a", op)
					continue
				}
				fmt.Printf(" %s throughput=%.2fx p50=%.2fx p99=%.2fx", op, pg.perSec/lite.perSec,
					float64(pg.p50)/float64(lite.p50), float64(pg.p99)/float64(lite.p99))
			}
			fmt.Println()
		}
	}
}

// engineFigures grows db to each size and times the calls there, printing
// a line per size.
func engineFigures(b *testing.B, db *store.DB, engine string, sizes []int, texts, queries []string) map[int]map[string]opFigures {
	mem := store.NewMemoryService(db, benchEmbedder())
	mem.Words = store.NewWordVectors(wordvec.New())
	if mem.Index != nil {
		if _, err := mem.Index.Load(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	facts := store.NewFactService(db)
	agent, publisher := as(memory.Identity{AgentID: "bench"}), as(senior)
	remember := func(i int) error {
		_, err := mem.Remember(agent, memory.EntryWrite{Content: locomo.Grown(texts, i), Category: memory.CategoryEpisodic})
		return err
	}
	const timedWrites = 1_000
	out := map[int]map[string]opFigures{}
	have, published := 0, 0
	for _, n := range sizes {
		for ; have < n-timedWrites; have++ {
			if err := remember(have); err != nil {
				b.Fatal(err)
			}
		}
		at := map[string]opFigures{}
		at["remember"] = timeCalls(timedWrites, func(int) error {
			have++
			return remember(have - 1)
		})
		at["search_memory"] = timeCalls(len(queries), func(i int) error {
			_, err := mem.Search(agent, memory.Query{Text: queries[i], Scope: memory.ScopePersonal, Limit: 10})
			return err
		})
		at["publish_fact"] = timeCalls(1_000, func(int) error {
			published++
			_, err := facts.Publish(publisher, memory.FactWrite{FactID: fmt.Sprintf("fact-%03d", published%200),
				Content: fmt.Sprintf("%s (version %d)", texts[published%len(texts)], published), Category: memory.FactConvention})
			return err
		})
		fmt.Printf("engine=%s memories=%d", engine, n)
		for _, op := range engineOps {
			f := at[op]
			if f.err != nil {
				// The benchmark fails, but the other calls' figures print.
				b.Errorf("%s on %s at %d memories: %v", op, engine, n, f.err)
				fmt.Printf(" %s=failed", op)
				continue
			}
			fmt.Printf(" %s=%.0f/s p50=%.2fms p99=%.2fms", op, f.perSec, ms(f.p50), ms(f.p99))
		}
		fmt.Println()
		out[n] = at
	}
	return out
}

// timeCalls makes n calls of fn, one at a time, and returns their rate and
// latency percentiles, or the first call's error.
func timeCalls(n int, fn func(i int) error) opFigures {
	ds := make([]time.Duration, n)
	start := time.Now()
	for i := range n {
		t := time.Now()
		if err := fn(i); err != nil {
			return opFigures{err: err}
		}
		ds[i] = time.Since(t)
	}
	all := time.Since(start)
	slices.Sort(ds)
	return opFigures{perSec: float64(n) / all.Seconds(), p50: ds[n/2], p99: ds[n*99/100]}
}
