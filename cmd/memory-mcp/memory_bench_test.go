package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/locomo"
	"github.com/memory-mcp/memory-mcp/store"
)

// BenchmarkStartup100k measures the real binary as a process on a data dir
// holding 100,000 memories: the time from exec to the first search_memory
// answer (which includes rebuilding the vector index from SQLite) and the
// resident memory afterwards, beside the same process with keyword search
// only (--embedder none) as a baseline.
func BenchmarkStartup100k(b *testing.B) {
	for range b.N {
		dir := filled(b, 100_000)
		for _, embedder := range []string{"offline", "none"} {
			took, rss, peak := startAndAsk(b, dir, embedder)
			fmt.Printf("startup memories=100000 embedder=%s first_answer=%.0fms rss=%.0fMB peak_rss=%.0fMB\n",
				embedder, ms(took), rss, peak)
			if embedder == "offline" {
				b.ReportMetric(ms(took), "startup-ms")
				b.ReportMetric(rss, "rss-MB")
			}
		}
	}
}

// BenchmarkSearchBinary10k measures search_memory as a client sees it: the
// real binary over stdio on 10,000 memories, LoCoMo's questions as queries,
// in scope personal and all, beside a recall_memory of one id (the protocol's
// own round trip) as the baseline; then the process's resident memory after
// every question has passed through it.
func BenchmarkSearchBinary10k(b *testing.B) {
	for range b.N {
		ctx := context.Background()
		cs, cmd := serve(b, ctx, filled(b, 10_000), "offline")
		call := func(name string, args map[string]any) *mcp.CallToolResult {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			if err != nil || res.IsError {
				b.Fatalf("%s: %v %v", name, err, res)
			}
			return res
		}
		first := call("search_memory", map[string]any{"query": "camping trip with the kids", "limit": 1})
		id := first.StructuredContent.(map[string]any)["results"].([]any)[0].(map[string]any)["id"].(string)
		path, _ := locomo.Find()
		ds, err := locomo.Load(path)
		if err != nil {
			b.Fatal(err)
		}
		_, queries := ds.Corpus()
		measure := func(name string, do func(q string)) {
			lat := make([]time.Duration, len(queries))
			for i, q := range queries {
				start := time.Now()
				do(q)
				lat[i] = time.Since(start)
			}
			slices.Sort(lat)
			p50, p95 := lat[len(lat)/2], lat[len(lat)*95/100]
			fmt.Printf("binary memories=10000 %s n=%d p50=%.2fms p95=%.2fms\n", name, len(lat), ms(p50), ms(p95))
			if name == "search_memory_all" {
				b.ReportMetric(ms(p50), "p50-ms")
			}
		}
		measure("recall_memory_one_id", func(string) { call("recall_memory", map[string]any{"ids": []string{id}}) })
		measure("search_memory_personal", func(q string) { call("search_memory", map[string]any{"query": q, "scope": "personal"}) })
		measure("search_memory_all", func(q string) { call("search_memory", map[string]any{"query": q}) })
		fmt.Printf("binary memories=10000 after %d searches rss=%.0fMB peak_rss=%.0fMB\n", 2*len(queries),
			procMB(b, cmd.Process.Pid, "VmRSS"), procMB(b, cmd.Process.Pid, "VmHWM"))
		cs.Close()
	}
}

// filled is a new data directory holding n memories embedded offline. On
// SQLite the n memories are remembered once per run (at 100k that takes
// minutes) and each benchmark gets a copy of that store's files: its own,
// to read and write. With MEMORY_MCP_BENCH_FILLS set to a directory, the
// filled stores are kept there and reused by later runs as well (a store
// an older build filled is migrated when first opened). On PostgreSQL each
// directory's database is filled anew.
func filled(b *testing.B, n int) string {
	emb, err := newEmbedder(context.Background(), &Config{Embedder: "offline"})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if onPostgres() {
		fill(b, dir, emb, n)
		return dir
	}
	fills.Lock()
	defer fills.Unlock()
	src := filepath.Join(fills.root(b), strconv.Itoa(n))
	if _, err := os.Stat(src); err != nil {
		// Filled aside and renamed whole: a fill cut short is never reused.
		part := src + ".part"
		if err := errors.Join(os.RemoveAll(part), os.MkdirAll(part, 0o700)); err != nil {
			b.Fatal(err)
		}
		fill(b, part, emb, n)
		if err := os.Rename(part, src); err != nil {
			b.Fatal(err)
		}
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, e.Name()), raw, 0o600)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// fills are the stores filled in this run (see filled), under
// MEMORY_MCP_BENCH_FILLS or a directory of the run's own, which TestMain
// removes at its end.
var fills fillCache

type fillCache struct {
	sync.Mutex
	dir  string
	temp bool // the run's own
}

// root is the directory the filled stores are kept in; the caller holds f.
func (f *fillCache) root(b *testing.B) string {
	if f.dir == "" {
		if f.dir = os.Getenv("MEMORY_MCP_BENCH_FILLS"); f.dir == "" {
			dir, err := os.MkdirTemp("", "memory-mcp-fills-")
			if err != nil {
				b.Fatal(err)
			}
			f.dir, f.temp = dir, true
		}
	}
	return f.dir
}

// clean removes the run's own directory of filled stores.
func (f *fillCache) clean() {
	f.Lock()
	defer f.Unlock()
	if f.temp {
		os.RemoveAll(f.dir)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	fills.clean()
	os.Exit(code)
}

// serve starts the real binary on dir as agent "bench" with embedder and
// connects a client to it. Its consolidation scheduler is off: background
// maintenance is not what these figures measure.
func serve(b *testing.B, ctx context.Context, dir, embedder string) (*mcp.ClientSession, *exec.Cmd) {
	cmd := exec.Command(binary(b), "stdio", "--data-dir", dir, "--agent-id", "bench", "--embedder", embedder, "--log-level", "warn",
		"--consolidation-interval", "0")
	cmd.Env = []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "PATH=" + os.Getenv("PATH")}
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return cs, cmd
}

// fill remembers n memories (LoCoMo turns, repeated with a suffix past the
// end) as agent "bench" through the store, as the server would.
func fill(b *testing.B, dir string, emb *memory.Embedder, n int) {
	path, err := locomo.Find()
	if err != nil {
		b.Skip(err)
	}
	ds, err := locomo.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	texts, _ := ds.Corpus()
	db, err := openTestStore(context.Background(), b, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := store.NewMemoryService(db, emb)
	ctx := memory.WithIdentity(context.Background(), memory.Identity{AgentID: "bench"})
	start := time.Now()
	for i := range n {
		if _, err := s.Remember(ctx, memory.EntryWrite{Content: locomo.Grown(texts, i), Category: memory.CategoryEpisodic}); err != nil {
			b.Fatal(err)
		}
	}
	fmt.Printf("remember memories=%d rate=%.0f/s (store, one transaction each)\n", n, float64(n)/time.Since(start).Seconds())
}

// startAndAsk starts memory-mcp on dir, asks one search, and returns the time
// to the answer and the process's resident and peak resident memory in MB.
func startAndAsk(b *testing.B, dir, embedder string) (time.Duration, float64, float64) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	cs, cmd := serve(b, ctx, dir, embedder)
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_memory", Arguments: map[string]any{"query": "camping trip with the kids"}})
	if err != nil || res.IsError {
		b.Fatalf("search: %v %v", err, res)
	}
	took := time.Since(start)
	return took, procMB(b, cmd.Process.Pid, "VmRSS"), procMB(b, cmd.Process.Pid, "VmHWM")
}

// procMB reads a memory figure (kB) from /proc/pid/status, in MB.
func procMB(b *testing.B, pid int, field string) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb / 1024
		}
	}
	b.Fatalf("%s not in /proc/%d/status", field, pid)
	return 0
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
