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
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// BenchmarkPortable100k measures the real binary on a data directory of
// 100,000 memories (LoCoMo turns): export (memories/s, peak RSS, bytes),
// an exact import of that export into an empty directory (memories/s,
// peak RSS; --embedder none: the rows alone, re-embedding is reindex's
// figure), the export merged back into the store it came from (all of it
// found there), and an online backup (time, size, beside the database's own size).
func BenchmarkPortable100k(b *testing.B) {
	const n = 100_000
	for range b.N {
		dir := filled(b, n)
		file := filepath.Join(b.TempDir(), "export.jsonl")
		took, peak, _ := runBinary(b, dir, "export", "--output", file)
		info, err := os.Stat(file)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Printf("export memories=%d took=%.1fs rate=%.0f memories/s peak_rss=%.0fMB size=%.0fMB\n",
			n, took.Seconds(), n/took.Seconds(), peak, float64(info.Size())/1e6)
		b.ReportMetric(n/took.Seconds(), "export-memories/s")
		b.ReportMetric(peak, "export-peak-rss-MB")

		pages(b, dir, n)

		into := filepath.Join(b.TempDir(), "data")
		took, peak, _ = runBinary(b, into, "import", file, "--embedder", "none")
		fmt.Printf("import memories=%d took=%.1fs rate=%.0f memories/s peak_rss=%.0fMB (exact, into an empty store, stamped, not re-embedded)\n",
			n, took.Seconds(), n/took.Seconds(), peak)
		b.ReportMetric(n/took.Seconds(), "import-memories/s")
		b.ReportMetric(peak, "import-peak-rss-MB")
		again := filepath.Join(b.TempDir(), "again.jsonl")
		runBinary(b, into, "export", "--output", again)
		first, _ := os.ReadFile(file)
		second, _ := os.ReadFile(again)
		fmt.Printf("round trip memories=%d export, import, export byte-identical=%v (%d bytes)\n", n, bytes.Equal(first, second), len(first))
		if !bytes.Equal(first, second) {
			b.Error("the export of the imported store differs")
		}

		// The export back into the store it came from: a merge, through
		// the write gates, in which every memory is found already there.
		took, peak, said := runBinary(b, dir, "import", file, "--embedder", "none")
		fmt.Printf("import memories=%d took=%.1fs rate=%.0f memories/s peak_rss=%.0fMB (merge into the store it came from: each found there, nothing stored): %s\n",
			n, took.Seconds(), n/took.Seconds(), peak, lineWith(said, "through the write gates"))
		if strings.Contains(said, "stored") {
			b.Errorf("importing a store's own export stored something: %s", said)
		}
		b.ReportMetric(n/took.Seconds(), "merge-again-memories/s")

		backup := filepath.Join(b.TempDir(), "backup.db")
		took, peak, said = runBinary(b, dir, "backup", backup)
		bk, err := os.Stat(backup)
		if err != nil {
			b.Fatal(err)
		}
		db, _ := os.Stat(filepath.Join(dir, "memory.db"))
		fmt.Printf("backup memories=%d took=%.1fs size=%.0fMB (database %.0fMB) peak_rss=%.0fMB (verified: integrity, migrations, every stamp): %s",
			n, took.Seconds(), float64(bk.Size())/1e6, float64(db.Size())/1e6, peak, said)
		b.ReportMetric(took.Seconds(), "backup-s")
		b.ReportMetric(float64(bk.Size())/1e6, "backup-MB")
	}
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
	cmd.Env = []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "PATH=" + os.Getenv("PATH"),
		"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}
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
