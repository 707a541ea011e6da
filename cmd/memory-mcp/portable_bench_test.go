package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/locomo"
	"github.com/memory-mcp/memory-mcp/store"
)

// BenchmarkPortable measures the real binary, each command a process of
// its own, on a data directory of n memories (LoCoMo turns, remembered
// through the store by several agents at once): export (memories/s, the
// process's peak RSS, bytes), an exact import of that export into an empty
// store (memories/s, peak RSS; --embedder none: the rows alone, re-embedding
// is reindex's figure) whose export is byte-identical, a second import of
// the same export into that store (through the write gates, each memory
// found there, nothing stored: the store's records unchanged),
// an online backup (time, size, beside the database's own size) and its
// restore into an empty data directory, whose export is byte-identical too.
//
// n is MEMORY_MCP_BENCH_PORTABLE_MEMORIES, 10,000 by default so that
// `make bench` stays short; the figures are at 100,000:
//
//	MEMORY_MCP_BENCH_PORTABLE_MEMORIES=100000 go test -run '^$' -bench BenchmarkPortable -benchtime 1x -timeout 60m ./cmd/memory-mcp
//
// MEMORY_MCP_BENCH_PORTABLE_AGENTS (4 by default) is how many agents fill
// the store at once. The rates are of n, the memories asked for; the
// export's own count (a few LoCoMo turns are repeats dedup keeps once) is
// on the export line.
//
// With MEMORY_MCP_TEST_ENGINE=postgres (and MEMORY_MCP_TEST_POSTGRES) every
// store is a fresh PostgreSQL database instead, given to each command as
// MEMORY_MCP_DATABASE; backup and restore are then the portable export's.
func BenchmarkPortable(b *testing.B) {
	n, agents := benchEnv("MEMORY_MCP_BENCH_PORTABLE_MEMORIES", 10_000), benchEnv("MEMORY_MCP_BENCH_PORTABLE_AGENTS", 4)
	engine := "sqlite"
	if onPostgres() {
		engine = "postgres"
	}
	for range b.N {
		dir := b.TempDir()
		fillAgents(b, dir, n, agents)
		line := func(format string, args ...any) {
			fmt.Printf("portable engine=%s memories=%d "+format+"\n", append([]any{engine, n}, args...)...)
		}
		file := filepath.Join(b.TempDir(), "export.jsonl")
		took, peak, said := runBinary(b, dir, "export", "--output", file)
		first, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		line("export took=%.1fs rate=%.0f memories/s peak_rss=%.0fMB size=%.0fMB: %s",
			took.Seconds(), float64(n)/took.Seconds(), peak, float64(len(first))/1e6, lineWith(said, "exported"))
		b.ReportMetric(float64(n)/took.Seconds(), "export-memories/s")
		b.ReportMetric(peak, "export-peak-rss-MB")

		pages(b, dir, n)

		// exportOf is the export of the store on d, as bytes.
		exportOf := func(d, name string) []byte {
			out := filepath.Join(b.TempDir(), name)
			runBinary(b, d, "export", "--output", out)
			got, err := os.ReadFile(out)
			if err != nil {
				b.Fatal(err)
			}
			return got
		}
		into := filepath.Join(b.TempDir(), "data")
		took, peak, _ = runBinary(b, into, "import", file, "--embedder", "none")
		line("import took=%.1fs rate=%.0f memories/s peak_rss=%.0fMB (exact, into an empty store, stamped, not re-embedded)",
			took.Seconds(), float64(n)/took.Seconds(), peak)
		b.ReportMetric(float64(n)/took.Seconds(), "import-memories/s")
		b.ReportMetric(peak, "import-peak-rss-MB")
		same := bytes.Equal(first, exportOf(into, "again.jsonl"))
		line("round trip export, import, export byte-identical=%v (%d bytes)", same, len(first))
		if !same {
			b.Error("the export of the imported store differs")
		}

		// The same export again into the store it was imported into: a
		// merge, through the write gates, in which every memory is found
		// already there.
		took, peak, said = runBinary(b, into, "import", file, "--embedder", "none")
		same = bytes.Equal(records(first), records(exportOf(into, "twice.jsonl")))
		line("import again took=%.1fs rate=%.0f memories/s peak_rss=%.0fMB records identical=%v (into the same store: each found there, nothing stored): %s",
			took.Seconds(), float64(n)/took.Seconds(), peak, same, lineWith(said, "through the write gates"))
		if strings.Contains(said, "stored") || !same {
			b.Errorf("a second import of the same export changed the store: %s", said)
		}
		b.ReportMetric(float64(n)/took.Seconds(), "import-again-memories/s")
		b.ReportMetric(peak, "import-again-peak-rss-MB")

		backup := filepath.Join(b.TempDir(), "backup.db")
		took, peak, said = runBinary(b, dir, "backup", backup)
		bk, err := os.Stat(backup)
		if err != nil {
			b.Fatal(err)
		}
		held := "a portable export"
		if !onPostgres() {
			db, err := os.Stat(filepath.Join(dir, store.FileName))
			if err != nil {
				b.Fatal(err)
			}
			held = fmt.Sprintf("database %.0fMB", float64(db.Size())/1e6)
		}
		line("backup took=%.1fs size=%.0fMB (%s) peak_rss=%.0fMB (verified after it is written): %s",
			took.Seconds(), float64(bk.Size())/1e6, held, peak, lineWith(said, "backed up"))
		b.ReportMetric(took.Seconds(), "backup-s")
		b.ReportMetric(float64(bk.Size())/1e6, "backup-MB")
		b.ReportMetric(peak, "backup-peak-rss-MB")

		restored := filepath.Join(b.TempDir(), "restored")
		took, peak, said = runBinary(b, restored, "restore", backup)
		same = bytes.Equal(first, exportOf(restored, "restored.jsonl"))
		line("restore took=%.1fs peak_rss=%.0fMB export byte-identical=%v: %s",
			took.Seconds(), peak, same, lineWith(said, "restored"))
		if !same {
			b.Error("the export of the restored store differs")
		}
		b.ReportMetric(took.Seconds(), "restore-s")
		b.ReportMetric(peak, "restore-peak-rss-MB")
	}
}

// fillAgents remembers n memories on dir (LoCoMo turns, repeated with a
// suffix past the end) through one store, as a server would with agents
// clients at once: agent "bench" and bench-2.. each remembers every
// agents-th turn, embedded offline, one transaction each.
func fillAgents(b *testing.B, dir string, n, agents int) {
	texts, _ := locomo.Must(b).Corpus()
	emb, err := newEmbedder(context.Background(), &Config{Embedder: "offline"})
	if err != nil {
		b.Fatal(err)
	}
	db, err := openTestStore(context.Background(), b, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := store.NewMemoryService(db, emb)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, agents)
	for a := range agents {
		agent := "bench"
		if a > 0 {
			agent = fmt.Sprintf("bench-%d", a+1)
		}
		ctx := memory.WithIdentity(context.Background(), memory.Identity{AgentID: agent})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := a; i < n; i += agents {
				if _, err := s.Remember(ctx, memory.EntryWrite{Content: locomo.Grown(texts, i), Category: memory.CategoryEpisodic}); err != nil {
					errs <- fmt.Errorf("agent %s, memory %d: %w", agent, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	fmt.Printf("remember memories=%d agents=%d took=%.0fs rate=%.0f/s (store, one transaction each)\n",
		n, agents, time.Since(start).Seconds(), float64(n)/time.Since(start).Seconds())
}

// pages reads the first three pages of agent "bench"'s export_memory
// (ExportOwn, the tool's service) on dir, as the tool would, and reports
// how long each took.
func pages(b *testing.B, dir string, n int) {
	ctx := memory.WithIdentity(context.Background(), memory.Identity{AgentID: "bench"})
	db, err := openTestStore(ctx, b, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	cursor := ""
	for i := range 3 {
		start := time.Now()
		page, err := db.ExportOwn(ctx, cursor, 0)
		if err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		fmt.Printf("export_memory page=%d memories=%d lines=%d took=%.3fs\n", i+1, n, page.Count, took.Seconds())
		b.ReportMetric(took.Seconds(), fmt.Sprintf("page%d-s", i+1))
		cursor = page.NextCursor
	}
}

// records are the lines of an export but its trailer and the blocks: a
// command that opens the server's app (a merge import does) makes the
// configured default blocks in a store that has none yet, which is not the
// import's doing.
func records(export []byte) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(export, []byte("\n")) {
		if !bytes.HasPrefix(l, []byte(`{"kind":"block`)) && !bytes.HasPrefix(l, []byte(`{"end":`)) {
			out = append(out, l...)
		}
	}
	return out
}

// lineWith is the first line of out that holds s.
func lineWith(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// runBinary runs a memory-mcp command on dir as a human and returns how
// long it took, its peak resident memory in MB and its output. The peak is
// the process's own VmHWM, read while it runs: the rusage of a child counts
// the memory of the test process it was forked from (this benchmark holds
// whole exports in memory), which made every figure after the first the
// test's own.
func runBinary(b *testing.B, dir string, args ...string) (time.Duration, float64, string) {
	cmd := exec.Command(binary(b), append(args, "--data-dir", dir, "--log-level", "warn")...)
	cmd.Env = append(cleanEnv(b, dir), "MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak float64
	for {
		select {
		case err := <-done:
			if err != nil {
				b.Fatalf("%v: %v\n%s", args, err, out.String())
			}
			return time.Since(start), peak, out.String()
		case <-time.After(20 * time.Millisecond):
			if raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)); err == nil {
				for _, line := range strings.Split(string(raw), "\n") {
					if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
						if kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64); err == nil {
							peak = max(peak, kb/1024)
						}
					}
				}
			}
		}
	}
}
