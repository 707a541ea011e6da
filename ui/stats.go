package ui

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// defaultWindow is the window the write figures cover unless asked.
const defaultWindow = "24h"

type statsData struct {
	Window   string
	Writes   *memory.WriteMetrics
	Outcomes []count // every outcome, in a fixed order
	Tools    []count // most calls first
	Gates    []gateLatency
	Agent    string
	Memories *memory.MemoryStats
}

type count struct {
	Name string
	N    int
}

type gateLatency struct {
	Gate string
	memory.GateLatency
}

// outcomes is the order the write outcomes are shown in.
var outcomes = []memory.WriteOutcome{memory.WriteOutcomeStored, memory.WriteOutcomeMerged, memory.WriteOutcomeDuplicate,
	memory.WriteOutcomeReplayed, memory.WriteOutcomeUnchanged, memory.WriteOutcomeHeld, memory.WriteOutcomeRejected}

// stats shows the write path's figures over a window (every caller's, to a
// human) and, for an agent named, its memories by category and state.
func (h *handler) stats(r *http.Request) (view, error) {
	q := r.URL.Query()
	d := statsData{Window: strings.TrimSpace(q.Get("window")), Agent: strings.TrimSpace(q.Get("agent"))}
	if d.Window == "" {
		d.Window = defaultWindow
	}
	if h.svc.Metrics != nil {
		w, err := memory.ParseAge("window", d.Window)
		if err != nil {
			return view{}, err
		}
		if *w <= 0 {
			return view{}, memory.Errorf(memory.EINVALID, "window %q must be longer than nothing, e.g. 24h", d.Window)
		}
		m, err := h.svc.Metrics.WriteMetrics(r.Context(), *w)
		if err != nil {
			return view{}, err
		}
		d.Writes, d.Outcomes, d.Tools, d.Gates = &m, outcomeCounts(m), toolCounts(m), gateLatencies(m)
	}
	if d.Agent != "" && h.svc.Memories != nil {
		s, err := h.svc.Memories.Stats(r.Context(), d.Agent)
		if err != nil {
			return view{}, err
		}
		d.Memories = &s
	}
	return view{Title: "Statistics", Data: d}, nil
}

func outcomeCounts(m memory.WriteMetrics) []count {
	out := make([]count, len(outcomes))
	for i, o := range outcomes {
		out[i] = count{Name: string(o), N: m.Outcomes[o]}
	}
	return out
}

func toolCounts(m memory.WriteMetrics) []count {
	out := make([]count, 0, len(m.Tools))
	for t, n := range m.Tools {
		out = append(out, count{Name: t, N: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].N > out[j].N || out[i].N == out[j].N && out[i].Name < out[j].Name })
	return out
}

func gateLatencies(m memory.WriteMetrics) []gateLatency {
	out := make([]gateLatency, 0, len(m.Gates)+1)
	for g, l := range m.Gates {
		out = append(out, gateLatency{Gate: g, GateLatency: l})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Gate < out[j].Gate })
	return append(out, gateLatency{Gate: "whole call", GateLatency: m.Latency})
}

// overviewData is the first page: what waits for a human, and the last
// day's writes.
type overviewData struct {
	Pending       int
	HasPending    bool
	Approvals     int
	ApprovalsFull bool
	HasApprovals  bool
	Conflicts     int
	ConflictsFull bool
	HasConflicts  bool
	Repeats       int // writes answered duplicate whose words were not stored after all
	RepeatsFull   bool
	HasRepeats    bool
	Writes        *memory.WriteMetrics
}

// overview counts what waits for a curator, each from one bounded read.
func (h *handler) overview(r *http.Request) (view, error) {
	ctx := r.Context()
	var d overviewData
	if h.svc.Promotion != nil {
		l, err := h.svc.Promotion.ListPending(ctx, memory.PendingQuery{Limit: 1}) // for its total
		if err != nil {
			return view{}, err
		}
		d.HasPending, d.Pending = true, l.Total
	}
	if h.svc.Approvals != nil {
		as, err := h.svc.Approvals.ListApprovals(ctx, memory.ApprovalFilter{Status: memory.ApprovalPending, Limit: approvalRows})
		if err != nil {
			return view{}, err
		}
		d.HasApprovals, d.Approvals, d.ApprovalsFull = true, len(as), len(as) == approvalRows
	}
	for _, list := range h.conflictLists() {
		cs, err := list(ctx, memory.ConflictQuery{Limit: memory.MaxSearchLimit})
		if err != nil {
			return view{}, err
		}
		d.HasConflicts, d.Conflicts = true, d.Conflicts+len(cs)
		d.ConflictsFull = d.ConflictsFull || len(cs) == memory.MaxSearchLimit
	}
	if h.svc.Memories != nil {
		reps, err := h.svc.Memories.Repeats(ctx, memory.RepeatQuery{Open: true, Limit: memory.MaxSearchLimit})
		if err != nil {
			return view{}, err
		}
		d.HasRepeats, d.Repeats, d.RepeatsFull = true, len(reps), len(reps) == memory.MaxSearchLimit
	}
	if h.svc.Metrics != nil {
		m, err := h.svc.Metrics.WriteMetrics(ctx, 24*time.Hour)
		if err != nil {
			return view{}, err
		}
		d.Writes = &m
	}
	return view{Title: "Review", Data: d}, nil
}

// conflictLists are the services that list conflicts: between memories,
// between facts.
func (h *handler) conflictLists() []func(context.Context, memory.ConflictQuery) ([]memory.Conflict, error) {
	var out []func(context.Context, memory.ConflictQuery) ([]memory.Conflict, error)
	if h.svc.Memories != nil {
		out = append(out, h.svc.Memories.Conflicts)
	}
	if h.svc.Facts != nil {
		out = append(out, h.svc.Facts.Conflicts)
	}
	return out
}
