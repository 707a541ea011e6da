package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/locomo"
	"github.com/memory-mcp/memory-mcp/store"
)

// BenchmarkNodesScale fills one PostgreSQL with memories of one agent,
// LoCoMo's turns grown past their end, written through the store as a node
// writes them (dedup, terms, vector, stamp), and prints the ingest rate. It
// then starts three nodes on it behind HAProxy and prints each node's start
// time (the vector index loaded from the database before /readyz answers)
// and resident memory, search_memory's p50/p99 through the balancer for
// LoCoMo's questions, and, beside them, a node with keyword search only
// (--embedder none): the difference is what the in-memory vector index
// costs at that size.
//
// MEMORY_MCP_BENCH_NODES_MEMORIES sets the count: 3,000 by default, so that
// make bench finishes; the write rate no longer falls as the agent's
// memories grow (about 190 a second to 60,000 on 2 shared cores), but a
// million written so would take an hour and a half: with
// MEMORY_MCP_BENCH_NODES_FILL=import the database is filled by importing a
// generated export instead (nodes_fill_bench_test.go; a million in about
// nine minutes), and MEMORY_MCP_BENCH_NODES_WRITES (2,000) remembers through
// the store then measure the write rate on top of it.
// MEMORY_MCP_BENCH_NODES_WRITERS sets the writers: one by default, since
// writers of one agent's memories wait on each other (four wrote 7 a
// second). MEMORY_MCP_BENCH_NODES_QUERIES caps the questions searched (all of
// LoCoMo's by default). The million of docs/DESIGN.md:
//
//	MEMORY_MCP_BENCH_NODES_FILL=import MEMORY_MCP_BENCH_NODES_MEMORIES=1000000 \
//	MEMORY_MCP_BENCH_NODES_QUERIES=300 go test -run '^$' -bench 'BenchmarkNodesScale$' \
//	-benchtime 1x -timeout 0 ./cmd/memory-mcp
func BenchmarkNodesScale(b *testing.B) {
	n := benchEnv("MEMORY_MCP_BENCH_NODES_MEMORIES", 3_000)
	writers := benchEnv("MEMORY_MCP_BENCH_NODES_WRITERS", 1)
	path, err := locomo.Find()
	if err != nil {
		b.Skip(err)
	}
	ds, err := locomo.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	texts, queries := ds.Corpus()
	c := newDatabase(b)

	// Ingest: through the store one memory at a time, or, for sizes that
	// would take hours that way, an import of a generated export and then writes
	// through the store on top of it.
	ctx := context.Background()
	viaImport := os.Getenv("MEMORY_MCP_BENCH_NODES_FILL") == "import"
	if viaImport {
		took := importFill(b, c, texts, n)
		b.ReportMetric(float64(n)/took.Seconds(), "import/s")
	}
	db, err := store.OpenPostgres(ctx, c.pg.dsn())
	if err != nil {
		b.Fatal(err)
	}
	if err := db.UseProvenanceKey(ctx, c.key); err != nil {
		b.Fatal(err)
	}
	emb, err := newEmbedder(ctx, &Config{Embedder: "offline"})
	if err != nil {
		b.Fatal(err)
	}
	mem := store.NewMemoryService(db, emb)
	bench := memory.WithIdentity(ctx, memory.Identity{AgentID: "bench", Seniority: memory.SeniorityMid})
	first, total := 0, n
	if viaImport {
		// The write rate with the database full.
		first, total = n, n+benchEnv("MEMORY_MCP_BENCH_NODES_WRITES", 2_000)
	}
	var next atomic.Int64
	next.Store(int64(first))
	var failed atomic.Pointer[error]
	start := time.Now()
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= total || failed.Load() != nil {
					return
				}
				if _, err := mem.Remember(bench, memory.EntryWrite{Content: locomo.Grown(texts, i), Category: memory.CategoryEpisodic}); err != nil {
					err = fmt.Errorf("memory %d: %w", i, err)
					failed.Store(&err)
					return
				}
				if (i+1-first)%max(1, (total-first)/10) == 0 {
					// On standard error as well: a long run's progress is
					// otherwise only seen when the benchmark ends.
					line := fmt.Sprintf("  %d memories in %s (%.0f/s)", i+1, time.Since(start).Round(time.Second), float64(i+1-first)/time.Since(start).Seconds())
					fmt.Fprintln(os.Stderr, line)
					b.Log(line)
				}
			}
		})
	}
	wg.Wait()
	db.Close()
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	ingest := time.Since(start)
	b.Logf("ingest: %d memories in %s through the store (after %d in the database), %d writers: %.0f/s", total-first, ingest.Round(time.Second), first, writers, float64(total-first)/ingest.Seconds())
	b.ReportMetric(float64(total-first)/ingest.Seconds(), "ingest/s")
	n = total

	// Three nodes: start time, resident memory, search through the balancer.
	c.startNodes(3, "--rate-limits", "off", "--consolidation-interval", "0")
	c.startBalancer()
	token, err := c.cli("token", "add", "--agent-id", "bench", "--seniority", "mid")
	if err != nil {
		b.Fatal(err)
	}
	token = strings.TrimSpace(token)
	for _, nd := range c.nodes {
		loaded, took := indexLoad(nd)
		b.Logf("  %s: vector index of %s memories loaded in %s; resident %.0f MiB", nd.name, loaded, took, float64(rss(nd))/(1<<20))
	}
	client := &http.Client{Timeout: time.Minute}
	if q := benchEnv("MEMORY_MCP_BENCH_NODES_QUERIES", len(queries)); q < len(queries) {
		queries = queries[:q]
	}
	var lat []time.Duration
	for _, q := range queries {
		t0 := time.Now()
		out, err := callHTTP(ctx, client, c.lbURL, token, "search_memory", map[string]any{"query": q, "scope": "personal", "limit": 10})
		if err != nil || out.IsError {
			b.Fatalf("search %q: %v %+v", q, err, out)
		}
		lat = append(lat, time.Since(t0))
	}
	p50, p99, worst := percentiles(lat)
	b.Logf("search_memory through HAProxy over %d memories, %d questions one at a time: p50 %s p99 %s worst %s",
		n, len(lat), p50.Round(time.Microsecond), p99.Round(time.Microsecond), worst.Round(time.Microsecond))
	b.ReportMetric(float64(p50.Microseconds())/1000, "search-p50-ms")
	b.ReportMetric(float64(p99.Microseconds())/1000, "search-p99-ms")
	var withIndex int64
	for _, nd := range c.nodes {
		r, peak := rss(nd), peakRSS(pidOf(nd))
		withIndex = max(withIndex, r)
		b.Logf("  %s after the searches: resident %.0f MiB, peak %.0f MiB", nd.name, float64(r)/(1<<20), float64(peak)/(1<<20))
	}

	// A node without the vector index, for the difference.
	t0 := time.Now()
	c.startNodes(1, "--rate-limits", "off", "--consolidation-interval", "0", "--embedder", "none")
	bare := c.nodes[len(c.nodes)-1]
	startBare := time.Since(t0)
	if out, err := callHTTP(ctx, client, bare.url(), token, "search_memory", map[string]any{"query": queries[0], "scope": "personal"}); err != nil || out.IsError {
		b.Fatalf("keyword search: %v %+v", err, out)
	}
	b.Logf("  %s (--embedder none): ready in %s, resident %.0f MiB: the vector index costs about %.0f MiB at %d memories",
		bare.name, startBare.Round(time.Millisecond), float64(rss(bare))/(1<<20), float64(withIndex-rss(bare))/(1<<20), n)
	b.ReportMetric(float64(withIndex)/(1<<20), "node-MiB")
}

// indexLoad reads, from a node's log, how many memories its vector index
// loaded and how long that took.
func indexLoad(nd *node) (memories, took string) {
	m := regexp.MustCompile(`msg="vector index loaded".* memories=(\d+) took=(\S+)`).FindAllStringSubmatch(nd.wholeLog(), -1)
	if len(m) == 0 {
		return "?", "?"
	}
	last := m[len(m)-1]
	return last[1], last[2]
}

func (n *node) wholeLog() string {
	b, _ := os.ReadFile(n.log)
	return string(b)
}

func pidOf(nd *node) int {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	return nd.cmd.Process.Pid
}

// rss is a node's resident memory now, in bytes.
func rss(nd *node) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pidOf(nd)))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
