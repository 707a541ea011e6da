package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkNodesLoad drives the team server's mixed load (load_test.go: 32
// clients, each its own agent, mixing searches, remembers, notes and fact
// reads) through HAProxy onto 1, 2 and 3 nodes on one PostgreSQL, and
// prints throughput and latency per tool for each. While 3 nodes serve, a
// probe writes on one node and searches on the next until the write is
// found: the cross-node visibility lag. On a 2-core machine the nodes,
// PostgreSQL, the balancer and the clients share two cores, so the ratio
// between node counts says little about scaling; it is printed as measured.
// MEMORY_MCP_BENCH_SERVE_SECONDS (default 60) is each run's length.
func BenchmarkNodesLoad(b *testing.B) {
	seconds, clients := benchEnv("MEMORY_MCP_BENCH_SERVE_SECONDS", 60), benchEnv("MEMORY_MCP_BENCH_SERVE_CLIENTS", 32)
	dur := time.Duration(seconds) * time.Second
	var rates []float64
	for nodes := 1; nodes <= 3; nodes++ {
		// Each count on a cluster of its own, stopped before the next.
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			c := newCluster(b, nodes, "--rate-limits", "off")
			tokens := c.tokens("load", clients)
			probeToken := c.tokens("probe", 1)[0]
			seedLoad(b, c.lbURL, tokens[0])
			ctx, cancel := context.WithTimeout(context.Background(), dur)
			var lag []time.Duration
			var lagErr error
			var probe sync.WaitGroup
			if nodes > 1 {
				probe.Go(func() { lag, lagErr = visibilityLag(ctx, c, probeToken) })
			}
			res := driveHTTP(ctx, c.lbURL, tokens)
			cancel()
			probe.Wait()
			if len(res.errors) > 0 {
				b.Errorf("%d nodes: %d calls failed, e.g. %s", nodes, len(res.errors), res.errors[0])
			}
			rate := float64(res.requests-res.refused) / res.elapsed.Seconds()
			rates = append(rates, rate)
			b.Logf("%d node(s) behind HAProxy, one PostgreSQL, %d clients, %s: %.0f requests/s, %d errors, %d writes acknowledged",
				nodes, clients, dur, rate, len(res.errors), res.writes())
			logLatency(b, fmt.Sprintf("%d node(s)", nodes), res.latency)
			if lagErr != nil {
				b.Errorf("visibility lag: %v", lagErr)
			} else if len(lag) > 0 {
				p50, p99, worst := percentiles(lag)
				b.Logf("  cross-node visibility (remember on one node, found by search_memory on another), %d probes: p50 %s p99 %s worst %s",
					len(lag), p50.Round(time.Microsecond), p99.Round(time.Microsecond), worst.Round(time.Microsecond))
				b.ReportMetric(float64(p99.Microseconds())/1000, "lag-p99-ms")
			}
			b.ReportMetric(rate, "req/s")
		})
	}
	if len(rates) < 3 {
		return
	}
	b.Logf("throughput 2 nodes / 1: %.2fx, 3 nodes / 1: %.2fx (2 cores shared by everything: not a scaling figure)", rates[1]/rates[0], rates[2]/rates[0])
}

// visibilityLag writes a memory with a word of its own on node i and
// searches for the word on node i+1 until it is found, again and again
// until ctx ends, and returns how long each took from the write's answer.
func visibilityLag(ctx context.Context, c *cluster, token string) ([]time.Duration, error) {
	client := &http.Client{Timeout: 30 * time.Second}
	var lag []time.Duration
	for i := 0; ctx.Err() == nil; i++ {
		word := fmt.Sprintf("zqlag%dx", i)
		a, b := c.nodes[i%len(c.nodes)], c.nodes[(i+1)%len(c.nodes)]
		args := map[string]any{"content": "Visibility probe " + word + " was written on " + a.name + ".", "idempotency_key": word}
		out, err := callHTTP(ctx, client, a.url(), token, "remember", args)
		for tries := 0; err == nil && out.IsError && strings.HasPrefix(out.Text, "EBUSY") && tries < 10; tries++ {
			out, err = callHTTP(ctx, client, a.url(), token, "remember", args) // the same key: a repeat, never a second write
		}
		if err != nil || out.IsError {
			return lag, fmt.Errorf("remember on %s: %v %+v", a.name, err, out)
		}
		written := time.Now()
		for {
			out, err := callHTTP(ctx, client, b.url(), token, "search_memory", map[string]any{"query": word, "scope": "personal"})
			if err != nil || out.IsError {
				return lag, fmt.Errorf("search on %s: %v %+v", b.name, err, out)
			}
			if found, _ := out.Structured["results"].([]any); len(found) > 0 {
				lag = append(lag, time.Since(written))
				break
			}
			if time.Since(written) > 30*time.Second {
				return lag, fmt.Errorf("%s's write of %s not found on %s after 30 s", a.name, word, b.name)
			}
			time.Sleep(2 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return lag, nil
}
