package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memory-mcp/memory-mcp/internal/locomo"
)

// BenchmarkConsolidate measures `memory-mcp consolidate` as a process over
// 10,000 and 100,000 memories of one agent (LoCoMo turns, all old enough):
// memories per second and the process's peak resident memory. Meanwhile a
// server on the same data directory answers search_memory in a loop, and
// its latencies are printed beside the longest transaction of the run (one
// group's) and against the same searches with no run going, measured by
// the same client: a search waits for no more than one group's write (in
// WAL mode, for none: readers do not wait for the writer).
func BenchmarkConsolidate(b *testing.B) {
	for range b.N {
		for _, n := range []int{10_000, 100_000} {
			consolidateFigures(b, n)
		}
	}
}

func consolidateFigures(b *testing.B, n int) {
	dir := filled(b, n)
	ctx := context.Background()
	cs, _ := serve(b, ctx, dir, "offline")
	defer cs.Close()
	path, _ := locomo.Find()
	ds, err := locomo.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	_, queries := ds.Corpus()
	search := func(q string) time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_memory", Arguments: map[string]any{"query": q, "scope": "personal"}})
		if err != nil || res.IsError {
			b.Fatalf("search: %v %v", err, res)
		}
		return time.Since(start)
	}
	var baseline []time.Duration
	for _, q := range queries[:min(len(queries), 400)] {
		baseline = append(baseline, search(q))
	}

	cmd := exec.Command(binary(b), "consolidate", "--data-dir", dir, "--agent-id", "bench", "--older-than", "0", "--log-level", "warn")
	cmd.Env = []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "PATH=" + os.Getenv("PATH")}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var during []time.Duration
	var runErr error
searching:
	for i := 0; ; i++ {
		select {
		case runErr = <-done:
			break searching
		default:
			during = append(during, search(queries[i%len(queries)]))
		}
	}
	took := time.Since(start)
	if runErr != nil {
		b.Fatalf("consolidate: %v\n%s", runErr, errb.String())
	}
	line := regexp.MustCompile(`^bench: consolidated (\d+) memories into (\d+) summaries \((\w+)\).*; \d+ memories in ([^ ]+) \([^)]*\), longest write ([^\n]+)`).
		FindStringSubmatch(out.String())
	if line == nil {
		b.Fatalf("consolidate said:\n%s", out.String())
	}
	run, _ := time.ParseDuration(line[4])
	write, _ := time.ParseDuration(line[5])
	peak := float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024 // kB on Linux
	fmt.Printf("consolidate memories=%d strategy=%s summaries=%s archived=%s process=%.1fs rate=%.0f memories/s (the run alone %.1fs, %.0f memories/s) peak_rss=%.0fMB\n",
		n, line[3], line[2], line[1], took.Seconds(), float64(n)/took.Seconds(), run.Seconds(), float64(n)/run.Seconds(), peak)

	bp50, bp99, bmax := percentiles(baseline)
	p50, p99, worst := percentiles(during)
	fmt.Printf("consolidate memories=%d search_during_run n=%d p50=%.2fms p99=%.2fms max=%.2fms; no run (n=%d) p50=%.2fms p99=%.2fms max=%.2fms; "+
		"ratio p50=%.2fx p99=%.2fx max=%.2fx; longest group transaction=%.2fms, max search above baseline max=%.2fms (%.2fx the longest group transaction)\n",
		n, len(during), ms(p50), ms(p99), ms(worst), len(baseline), ms(bp50), ms(bp99), ms(bmax),
		ratio(p50, bp50), ratio(p99, bp99), ratio(worst, bmax), ms(write), ms(max(worst-bmax, 0)), ratio(max(worst-bmax, 0), write))
	if n == 10_000 {
		b.ReportMetric(float64(n)/took.Seconds(), "memories/s-10k")
		b.ReportMetric(peak, "peak-rss-MB-10k")
	}
}

// percentiles returns the median, the 99th percentile and the maximum.
func percentiles(lat []time.Duration) (p50, p99, worst time.Duration) {
	s := slices.Clone(lat)
	slices.Sort(s)
	return s[len(s)/2], s[min(len(s)-1, len(s)*99/100)], s[len(s)-1]
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
