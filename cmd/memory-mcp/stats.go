package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/gate"
)

// statsFlags are the stats command's own flags.
type statsFlags struct {
	window string
	json   bool
}

func (f *statsFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.window, "window", "24h", "the window ending now that the figures cover, e.g. 1h, 90m or 7d")
	fs.BoolVar(&f.json, "json", false, "print the figures as JSON, as the memory://metrics resource shows them")
}

// stats prints the write-path metrics of the data directory's write log.
func stats(ctx context.Context, cfg *Config, f *statsFlags, stdout io.Writer) error {
	window, err := memory.ParseAge("--window", f.window)
	if err != nil {
		return fmt.Errorf("%s", errorText(err))
	}
	if window == nil || *window <= 0 {
		return fmt.Errorf("--window must be positive, e.g. 24h")
	}
	db, err := openDatabase(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := gate.New(db).WriteMetrics(ctx, *window)
	if err != nil {
		return err
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	}
	writeMetrics(stdout, m)
	debt, owed, err := db.OwedScrub(ctx)
	if err != nil {
		return err
	}
	if owed {
		fmt.Fprintf(stdout, "erasure: a rewrite of the database file is owed since %s (erasure audit row %d): erased bytes may still be in the data directory's files until the next erase, gc or server start\n",
			debt.Since.Format("2006-01-02 15:04"), debt.Erasure)
	}
	return nil
}

// writeMetrics renders m for a person.
func writeMetrics(w io.Writer, m memory.WriteMetrics) {
	fmt.Fprintf(w, "writes from %s to %s: %d calls of tools that write\n", m.Since.Format("2006-01-02 15:04"), m.Until.Format("2006-01-02 15:04"), m.Calls)
	if m.Calls == 0 {
		return
	}
	var outs []string
	for _, o := range []memory.WriteOutcome{memory.WriteOutcomeStored, memory.WriteOutcomeDuplicate, memory.WriteOutcomeMerged, memory.WriteOutcomeReplayed, memory.WriteOutcomeRejected} {
		outs = append(outs, fmt.Sprintf("%s %d", o, m.Outcomes[o]))
	}
	if n := m.Outcomes[memory.WriteOutcomeHeld]; n > 0 {
		outs = append(outs, fmt.Sprintf("%s %d", memory.WriteOutcomeHeld, n)) // held for a human's approval
	}
	fmt.Fprintf(w, "outcomes: %s\n", strings.Join(outs, ", "))
	fmt.Fprintf(w, "write acceptance rate (stored and merged / all): %.3f; dedup hit rate (duplicate and merged / all): %.3f\n", m.WAR, m.DHR)
	for _, r := range m.Rejected {
		fmt.Fprintf(w, "refused by %s with %s: %d\n", r.Gate, r.Code, r.Count)
	}
	tools := make([]string, 0, len(m.Tools))
	for t := range m.Tools {
		tools = append(tools, t)
	}
	sort.Slice(tools, func(i, j int) bool {
		return m.Tools[tools[i]] > m.Tools[tools[j]] || m.Tools[tools[i]] == m.Tools[tools[j]] && tools[i] < tools[j]
	})
	for _, t := range tools {
		fmt.Fprintf(w, "  %-22s %d calls\n", t, m.Tools[t])
	}
	gates := make([]string, 0, len(m.Gates))
	for g := range m.Gates {
		gates = append(gates, g)
	}
	sort.Strings(gates)
	fmt.Fprintf(w, "latency (ms)            p50      p95      p99\n")
	for _, g := range gates {
		l := m.Gates[g]
		fmt.Fprintf(w, "  %-18s %8.3f %8.3f %8.3f\n", g, l.P50, l.P95, l.P99)
	}
	fmt.Fprintf(w, "  %-18s %8.3f %8.3f %8.3f\n", "whole call", m.Latency.P50, m.Latency.P95, m.Latency.P99)
}
