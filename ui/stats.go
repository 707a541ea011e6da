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
	Span     string // the trends' window: day, week or month
	Spans    []string
	Charts   []*chart
}

// span is a trend's window: how many steps of what length, and how a
// step's start is labelled.
type span struct {
	Step  time.Duration
	Steps int
	Label string // a time layout
}

// spans are the windows a curator may choose for the trends.
var spans = map[string]span{
	"day":   {Step: time.Hour, Steps: 24, Label: "15h"},
	"week":  {Step: 6 * time.Hour, Steps: 28, Label: "01-02 15h"},
	"month": {Step: 24 * time.Hour, Steps: 30, Label: "01-02"},
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
	if err := h.trends(r, &d); err != nil {
		return view{}, err
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

// trends draws the chosen window's charts: writes by outcome, duplicates
// and merges, p95 latency per gate (the write log's), conflicts opened and
// settled, consolidation's archive growth and active memories per agent
// (the store's).
func (h *handler) trends(r *http.Request, d *statsData) error {
	d.Span, d.Spans = strings.TrimSpace(r.URL.Query().Get("span")), []string{"day", "week", "month"}
	if d.Span == "" {
		d.Span = "week"
	}
	sp, ok := spans[d.Span]
	if !ok {
		return memory.Errorf(memory.EINVALID, "span %q is not one of day, week, month", d.Span)
	}
	tq := memory.TrendQuery{Until: h.now.Now(), Step: sp.Step, Steps: sp.Steps}
	labels := make([]string, sp.Steps)
	for i := range labels {
		labels[i] = tq.Since().Add(time.Duration(i) * sp.Step).UTC().Format(sp.Label)
	}
	if h.svc.Metrics != nil {
		ms, err := h.svc.Metrics.WriteTrend(r.Context(), tq)
		if err != nil {
			return err
		}
		d.Charts = append(d.Charts, writeCharts(ms, labels)...)
	}
	if h.svc.Memories != nil {
		mt, err := h.svc.Memories.Trends(r.Context(), tq)
		if err != nil {
			return err
		}
		d.Charts = append(d.Charts, memoryCharts(mt, labels)...)
	}
	for _, c := range d.Charts {
		c.layout()
	}
	return nil
}

// writeCharts are the write log's charts.
func writeCharts(ms []memory.WriteMetrics, labels []string) []*chart {
	byOutcome := &chart{ID: "writes", Title: "Writes by outcome", Unit: "calls", Kind: "bars", Steps: labels}
	for _, o := range outcomes {
		byOutcome.Series = append(byOutcome.Series, series{Name: string(o), Values: perStep(ms, func(m memory.WriteMetrics) float64 {
			return float64(m.Outcomes[o])
		})})
	}
	dedup := &chart{ID: "dedup", Title: "Duplicates and merges", Unit: "calls", Kind: "lines", Steps: labels}
	for _, o := range []memory.WriteOutcome{memory.WriteOutcomeDuplicate, memory.WriteOutcomeMerged} {
		dedup.Series = append(dedup.Series, series{Name: string(o), Values: perStep(ms, func(m memory.WriteMetrics) float64 {
			return float64(m.Outcomes[o])
		})})
	}
	latency := &chart{ID: "latency", Title: "p95 latency per gate", Unit: "ms", Kind: "lines", Steps: labels}
	gates := map[string]bool{}
	for _, m := range ms {
		for g := range m.Gates {
			gates[g] = true
		}
	}
	names := make([]string, 0, len(gates))
	for g := range gates {
		names = append(names, g)
	}
	sort.Strings(names)
	for _, g := range names {
		latency.Series = append(latency.Series, series{Name: g, Values: perStep(ms, func(m memory.WriteMetrics) float64 { return m.Gates[g].P95 })})
	}
	latency.Series = append(latency.Series, series{Name: "whole call", Values: perStep(ms, func(m memory.WriteMetrics) float64 { return m.Latency.P95 })})
	return []*chart{byOutcome, dedup, latency}
}

func perStep(ms []memory.WriteMetrics, f func(memory.WriteMetrics) float64) []float64 {
	out := make([]float64, len(ms))
	for i, m := range ms {
		out[i] = f(m)
	}
	return out
}

// memoryCharts are the store's charts.
func memoryCharts(mt memory.MemoryTrends, labels []string) []*chart {
	conflicts := &chart{ID: "conflicts", Title: "Conflicts opened and settled", Unit: "conflicts", Kind: "lines", Steps: labels,
		Series: []series{{Name: "opened", Values: floats(mt.ConflictsOpened)}, {Name: "settled", Values: floats(mt.ConflictsSettled)}}}
	archive := &chart{ID: "archive", Title: "Archive growth after consolidation", Unit: "memories archived into a summary", Kind: "bars",
		Steps: labels, Series: []series{{Name: "consolidated", Values: floats(mt.Consolidated)}}}
	active := &chart{ID: "active", Title: "Active memories per agent", Unit: "memories", Kind: "lines", Steps: labels}
	for _, a := range mt.Active {
		active.Series = append(active.Series, series{Name: a.AgentID, Values: floats(a.Counts)})
	}
	return []*chart{conflicts, archive, active}
}

func floats(ns []int) []float64 {
	out := make([]float64, len(ns))
	for i, n := range ns {
		out[i] = float64(n)
	}
	return out
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
