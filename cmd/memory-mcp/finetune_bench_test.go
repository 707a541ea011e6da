package main

import (
	"bufio"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkFineTuneScale runs the whole pipeline (`memory-mcp finetune`,
// the real binary, a process) over 1k, 10k and 100k memories (LoCoMo turns,
// repeated past the end), with the gate forced open so that stage 5
// re-embeds every memory, and prints the time of each stage, the total and
// the peak resident memory, beside `memory-mcp reindex` over the same
// memories as the baseline: re-embedding everything is what any change of
// embedder costs.
func BenchmarkFineTuneScale(b *testing.B) {
	for range b.N {
		for _, n := range []int{1_000, 10_000, 100_000} {
			dir := filled(b, n)
			base, baseRSS, _ := timed(b, dir, "reindex")
			took, rss, stages := timed(b, dir, "finetune", "--human", "--gate-z=-1e6")
			fmt.Printf("finetune memories=%d total=%.1fs peak_rss=%.0fMB stages=[%s]; reindex baseline %.1fs peak_rss=%.0fMB; ratio %.1fx time, %.1fx memory\n",
				n, took.Seconds(), rss, stages, base.Seconds(), baseRSS, took.Seconds()/base.Seconds(), rss/baseRSS)
			if n == 100_000 {
				b.ReportMetric(took.Seconds(), "s-100k")
				b.ReportMetric(rss, "peak-MB-100k")
			}
		}
	}
}

// timed runs memory-mcp cmd on dir and returns its wall time, its peak
// resident memory in MB, and when each stage its progress names began.
func timed(b *testing.B, dir, cmd string, args ...string) (time.Duration, float64, string) {
	c := exec.Command(binary(b), append([]string{cmd, "--data-dir", dir, "--log-level", "warn"}, args...)...)
	c.Env = cleanEnv(b, dir)
	stderr, err := c.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	var stages []string
	last, lastAt := "", start
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		name, _, ok := strings.Cut(lines.Text(), ":")
		if !ok || !strings.HasPrefix(name, "finetune ") || name == last {
			continue
		}
		if last != "" {
			stages = append(stages, fmt.Sprintf("%s %.1fs", strings.TrimPrefix(last, "finetune "), time.Since(lastAt).Seconds()))
		}
		last, lastAt = name, time.Now()
	}
	if err := c.Wait(); err != nil {
		b.Fatalf("memory-mcp %s: %v", cmd, err)
	}
	took := time.Since(start)
	if last != "" {
		stages = append(stages, fmt.Sprintf("%s %.1fs", strings.TrimPrefix(last, "finetune "), time.Since(lastAt).Seconds()))
	}
	rss := float64(c.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024
	return took, rss, strings.Join(stages, ", ")
}
