package main

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// BenchmarkPublishProcesses measures publish_fact throughput through the real
// binary over stdio: one process, then 4 processes on one data directory.
// The one-process run in the same benchmark is the baseline for the ratio.
func BenchmarkPublishProcesses(b *testing.B) {
	const perProc = 1000
	one := publishRate(b, 1, perProc)
	four := publishRate(b, 4, perProc)
	b.ReportMetric(one, "publishes/s-1proc")
	b.ReportMetric(four, "publishes/s-4procs")
	b.Logf("publish_fact over MCP stdio: 1 process %.0f/s; 4 processes %.0f/s total (%.2fx the single process)", one, four, four/one)
}

func publishRate(b *testing.B, procs, perProc int) float64 {
	dir := b.TempDir()
	servers := make([]*proc, procs)
	for i := range servers {
		servers[i] = start(b, options{dataDir: dir, args: []string{"--agent-id", fmt.Sprintf("w%d", i), "--log-level", "warn", "--rate-limits", "off"}})
	}
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	begin := time.Now()
	for p, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- publishMany(s, p, perProc, 500, func(string, int, string) {})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	return float64(procs*perProc) / time.Since(begin).Seconds()
}
