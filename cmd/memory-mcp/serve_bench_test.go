package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchSeconds and benchClients size the team server's load:
// MEMORY_MCP_BENCH_SERVE_SECONDS (default 60) and
// MEMORY_MCP_BENCH_SERVE_CLIENTS (default 32).
func benchEnv(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// BenchmarkServeLoad drives `memory-mcp serve` (a process) with 32 HTTP
// clients, each its own agent with its own token, for 60 s, mixing
// searches, remembers, notes and fact reads, then checks that no call
// failed and that every acknowledged write is in the data directory. The
// same mix then runs over stdio, one process per client on one data
// directory, for the same time: the comparison in the same run.
func BenchmarkServeLoad(b *testing.B) {
	seconds, clients := benchEnv("MEMORY_MCP_BENCH_SERVE_SECONDS", 60), benchEnv("MEMORY_MCP_BENCH_SERVE_CLIENTS", 32)
	dur := time.Duration(seconds) * time.Second
	dir := b.TempDir()
	tokens := loadTokens(b, dir, clients)
	cmd, url, errw := serveProcessLog(b, dir, 1<<16, "--rate-limits", "off")
	seedLoad(b, url, tokens[0])
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	res := driveHTTP(ctx, url, tokens)
	cancel()
	rss := peakRSS(cmd.Process.Pid)
	if len(res.errors) > 0 {
		b.Errorf("%d calls failed, e.g. %s\n%s", len(res.errors), res.errors[0], errw.String())
	}
	lost := res.lost(b, dir)
	if len(lost) > 0 {
		b.Errorf("%d acknowledged writes lost: %v", len(lost), lost)
	}
	httpRate := float64(res.requests-res.refused) / res.elapsed.Seconds()
	b.Logf("HTTP, %d clients, %s: %.0f requests/s, %d errors, %d writes acknowledged, %d lost, server peak RSS %.0f MiB",
		clients, dur, httpRate, len(res.errors), res.writes(), len(lost), float64(rss)/(1<<20))
	logLatency(b, "HTTP", res.latency)

	stdio, stdioRSS := stdioLoad(b, clients, dur)
	stdioRate := float64(stdio.requests) / stdio.elapsed.Seconds()
	b.Logf("stdio, %d processes, %s: %.0f requests/s, %d errors, peak RSS per process %.0f MiB (sum %.0f MiB); HTTP/stdio throughput %.2fx",
		clients, dur, stdioRate, len(stdio.errors), float64(maxOf(stdioRSS))/(1<<20), float64(sumOf(stdioRSS))/(1<<20), httpRate/stdioRate)
	logLatency(b, "stdio", stdio.latency)
	b.ReportMetric(httpRate, "http-req/s")
	b.ReportMetric(stdioRate, "stdio-req/s")
	b.ReportMetric(float64(rss)/(1<<20), "serve-peak-MiB")
}

func logLatency(b *testing.B, over string, lat map[string][]time.Duration) {
	var tools []string
	for t := range lat {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	for _, t := range tools {
		p50, p99, _ := percentiles(lat[t])
		b.Logf("  %s %-14s n=%-6d p50 %-10s p99 %s", over, t, len(lat[t]), p50.Round(time.Microsecond), p99.Round(time.Microsecond))
	}
}

// stdioLoad runs the mix over stdio: one process per client on one data
// directory, each client its own agent.
func stdioLoad(b *testing.B, clients int, dur time.Duration) (*loadResult, []int64) {
	dir := b.TempDir()
	res := &loadResult{latency: map[string][]time.Duration{}, acked: map[string][]string{}, notes: map[string][]int64{}}
	procs := make([]*exec.Cmd, clients)
	sessions := make([]*mcp.ClientSession, clients)
	for c := range clients {
		cmd := exec.Command(binary(b), "stdio", "--data-dir", dir, "--agent-id", fmt.Sprintf("load-%d", c), "--rate-limits", "off", "--log-level", "warn")
		cmd.Env = cleanEnv(b, dir)
		cmd.Stderr = &bytes.Buffer{}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		procs[c], sessions[c] = cmd, cs
		defer cs.Close()
	}
	if _, err := sessions[0].CallTool(context.Background(), &mcp.CallToolParams{Name: "publish_fact", Arguments: map[string]any{
		"fact_id": "load-policy", "content": "Every deploy pipeline change is reviewed.", "category": "other"}}); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for c, cs := range sessions {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				tool := loadMix[i%len(loadMix)]
				t0 := time.Now()
				r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: loadArgs(tool, c, i)})
				out := &callOutcome{}
				if err == nil {
					out.IsError = r.IsError
					out.Text = text(r)
				}
				res.record(c, tool, time.Since(t0), out, err, false)
			}
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	var rss []int64
	for _, p := range procs {
		rss = append(rss, peakRSS(p.Process.Pid))
	}
	return res, rss
}

// BenchmarkServeRequestCost measures one client's sequential requests
// (get_fact) over stdio, over HTTP in a 2025-11-25 session with a token,
// and as 2026-07-28 stateless requests with a token and without one: what
// HTTP, authentication and the stateless revision cost a request, as ratios
// to stdio in the same run.
func BenchmarkServeRequestCost(b *testing.B) {
	const n = 2000
	per := func(f func() error) time.Duration {
		start := time.Now()
		for range n {
			if err := f(); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start) / n
	}
	args := map[string]any{"fact_id": "load-policy"}
	getFact := func(cs *mcp.ClientSession) func() error {
		return func() error {
			r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_fact", Arguments: args})
			if err == nil && r.IsError {
				err = fmt.Errorf("%s", text(r))
			}
			return err
		}
	}
	stdio := start(b, options{args: []string{"--rate-limits", "off", "--log-level", "warn"}})
	stdio.ok("publish_fact", map[string]any{"fact_id": "load-policy", "content": "Reviewed.", "category": "other"}, nil)
	stdioCost := per(getFact(stdio.cs))

	dir := b.TempDir()
	tokens := loadTokens(b, dir, 1)
	_, url, _ := serveProcessLog(b, dir, 1<<16, "--rate-limits", "off")
	seedLoad(b, url, tokens[0])
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{tokens[0], http.DefaultTransport}}}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "cost", Version: "1"}, nil).Connect(context.Background(), tr,
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	defer session.Close()
	sessionCost := per(getFact(session))
	stateless := func(url, token string) func() error {
		return func() error {
			out, err := callHTTP(context.Background(), client, url, token, "get_fact", args)
			if err == nil && out.IsError {
				err = fmt.Errorf("%s", out.Text)
			}
			return err
		}
	}
	tokenCost := per(stateless(url, tokens[0]))
	openDir := b.TempDir()
	_, openURL, _ := serveProcessLog(b, openDir, 1<<16, "--auth", "none", "--rate-limits", "off")
	seedLoad(b, openURL, "")
	noneCost := per(stateless(openURL, ""))
	b.Logf("one client, %d sequential get_fact calls each: stdio %s/request; HTTP 2025-11-25 session with a token %s (%.2fx stdio); "+
		"HTTP 2026-07-28 stateless with a token %s (%.2fx), without authentication %s (%.2fx): authentication costs %s a request (%.2fx the stateless request without it)",
		n, stdioCost, sessionCost, ratio(sessionCost, stdioCost), tokenCost, ratio(tokenCost, stdioCost), noneCost, ratio(noneCost, stdioCost),
		tokenCost-noneCost, ratio(tokenCost, noneCost))
}

// peakRSS is a process's peak resident set (VmHWM), 0 where /proc has none.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func maxOf(xs []int64) int64 {
	var m int64
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func sumOf(xs []int64) int64 {
	var s int64
	for _, x := range xs {
		s += x
	}
	return s
}
