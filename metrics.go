package memory

import (
	"context"
	"math"
	"slices"
	"sort"
	"time"
)

// WriteMetrics are seed 003's write-path metrics over a window of the write
// log: how many calls of tools that write were made and how they ended, the
// write acceptance rate (WAR: stored and merged / all), the dedup hit rate
// (DHR: duplicate and merged / all), why calls were refused, and each
// gate's latency.
type WriteMetrics struct {
	// Scope is whose calls: one caller's (an agent sees its own), or all.
	Scope    string                 `json:"scope"`
	Since    time.Time              `json:"since"`
	Until    time.Time              `json:"until"`
	Calls    int                    `json:"calls"`
	Outcomes map[WriteOutcome]int   `json:"outcomes"`
	WAR      float64                `json:"write_acceptance_rate"`
	DHR      float64                `json:"dedup_hit_rate"`
	Rejected []RejectionCount       `json:"rejected"` // by gate and code, most first
	Tools    map[string]int         `json:"tools"`    // calls per tool
	Gates    map[string]GateLatency `json:"gate_latency"`
	// Latency is from a call's admission to its outcome, gates and service.
	Latency GateLatency `json:"latency"`
}

// RejectionCount counts the calls one gate refused with one code.
type RejectionCount struct {
	Gate  string `json:"gate"`
	Code  string `json:"code"`
	Count int    `json:"count"`
}

// GateLatency are percentiles of the time spent in one gate, in
// milliseconds.
type GateLatency struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50_ms"`
	P95   float64 `json:"p95_ms"`
	P99   float64 `json:"p99_ms"`
}

// MetricsService reads the write-path metrics.
type MetricsService interface {
	// WriteMetrics summarises the write log over the window ending now.
	WriteMetrics(ctx context.Context, window time.Duration) (WriteMetrics, error)
	// WriteTrend summarises the write log over each of q's steps, oldest
	// first, from one read of it.
	WriteTrend(ctx context.Context, q TrendQuery) ([]WriteMetrics, error)
}

// TrendQuery is a window cut into equal steps: Steps of Step each,
// ending at Until.
type TrendQuery struct {
	Until time.Time
	Step  time.Duration
	Steps int
}

// MaxTrendSteps bounds the steps of a trend.
const MaxTrendSteps = 100

// Check refuses an empty or oversize window.
func (q TrendQuery) Check() error {
	if q.Step <= 0 || q.Steps < 1 || q.Steps > MaxTrendSteps {
		return Errorf(EINVALID, "a trend is 1 to %d steps of a positive length (asked: %d of %s)", MaxTrendSteps, q.Steps, q.Step)
	}
	return nil
}

// Since is when the window begins.
func (q TrendQuery) Since() time.Time { return q.Until.Add(-time.Duration(q.Steps) * q.Step) }

// StepOf returns the index of the step t falls in: -1 before the window,
// Steps at or after its end.
func (q TrendQuery) StepOf(t time.Time) int {
	if t.Before(q.Since()) {
		return -1
	}
	return min(int(t.Sub(q.Since())/q.Step), q.Steps)
}

// MemoryTrends are the memory store's figures per step of a TrendQuery,
// oldest first: what a curator watches move over days.
type MemoryTrends struct {
	// ConflictsOpened and ConflictsSettled count conflicts between
	// memories found, and decided, in each step.
	ConflictsOpened  []int `json:"conflicts_opened"`
	ConflictsSettled []int `json:"conflicts_settled"`
	// Consolidated counts the memories archived into a summary in each
	// step: how the archive grows after consolidation.
	Consolidated []int `json:"consolidated"`
	// Active counts each agent's active personal memories at each step's
	// end (written before it, neither forgotten nor archived by then), the
	// agents with the most now first.
	Active []AgentCounts `json:"active"`
}

// AgentCounts is one agent's figure per step.
type AgentCounts struct {
	AgentID string `json:"agent_id"`
	Counts  []int  `json:"counts"`
}

// SummariseWrites computes the metrics of the write log lines recs, which
// lie between since and until.
func SummariseWrites(recs []WriteRecord, since, until time.Time) WriteMetrics {
	m := WriteMetrics{Since: since, Until: until, Calls: len(recs), Outcomes: map[WriteOutcome]int{},
		Tools: map[string]int{}, Gates: map[string]GateLatency{}, Rejected: []RejectionCount{}}
	gates := map[string][]time.Duration{}
	var total []time.Duration
	rejected := map[[2]string]int{}
	for _, r := range recs {
		m.Outcomes[r.Outcome]++
		m.Tools[r.Tool]++
		if r.Outcome == WriteOutcomeRejected {
			rejected[[2]string{r.Gate, r.Reason}]++
		}
		for g, d := range r.Gates {
			gates[g] = append(gates[g], d)
		}
		total = append(total, r.Latency)
	}
	if m.Calls > 0 {
		m.WAR = float64(m.Outcomes[WriteOutcomeStored]+m.Outcomes[WriteOutcomeMerged]) / float64(m.Calls)
		m.DHR = float64(m.Outcomes[WriteOutcomeDuplicate]+m.Outcomes[WriteOutcomeMerged]) / float64(m.Calls)
	}
	for k, n := range rejected {
		m.Rejected = append(m.Rejected, RejectionCount{Gate: k[0], Code: k[1], Count: n})
	}
	sort.Slice(m.Rejected, func(i, j int) bool {
		a, b := m.Rejected[i], m.Rejected[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Gate+a.Code < b.Gate+b.Code
	})
	for g, ds := range gates {
		m.Gates[g] = latency(ds)
	}
	m.Latency = latency(total)
	return m
}

// latency returns the percentiles of ds (nearest rank).
func latency(ds []time.Duration) GateLatency {
	if len(ds) == 0 {
		return GateLatency{}
	}
	slices.Sort(ds)
	at := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(ds)))) - 1
		return float64(ds[max(i, 0)]) / float64(time.Millisecond)
	}
	return GateLatency{Count: len(ds), P50: at(0.50), P95: at(0.95), P99: at(0.99)}
}
