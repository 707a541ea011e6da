package gate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/gate"
	"github.com/memory-mcp/memory-mcp/internal/locomo"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

func loadLoCoMo(b *testing.B) *locomo.Dataset { return locomo.Must(b) }

// variant is one way remember runs: with every gate on (keyed: with an
// idempotency key on every call), or straight to the store with dedup and
// contradiction checks off.
type variant struct {
	name        string
	gates, keys bool
}

// rememberAll writes texts as one agent into a fresh store the variant's
// way and returns how long the writes took.
func rememberAll(b *testing.B, v variant, emb memory.Embedder, texts []string) time.Duration {
	db, err := store.Open(context.Background(), filepath.Join(b.TempDir(), store.FileName))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	mem := store.NewMemoryService(db, &emb)
	mem.Dedup = v.gates
	if !v.gates {
		mem.Contradictions = memory.ContradictionsOff
	}
	g := gate.New(db)
	// The limits the server has by default, raised so that the benchmark
	// measures their cost and never trips them.
	g.Limits = memory.RateLimits{memory.AnyTool: {Burst: 1 << 30, Per: time.Minute}, "remember": {Burst: 1 << 30, Per: time.Minute}}
	ctx := memory.WithIdentity(context.Background(), memory.Identity{AgentID: "bench", Seniority: memory.SeniorityMid, Autonomy: memory.AutonomySemi})
	started := time.Now()
	for i, text := range texts {
		w := memory.EntryWrite{Content: text}
		if !v.gates {
			if _, err := mem.Remember(ctx, w); err != nil {
				b.Fatal(err)
			}
			continue
		}
		args, _ := json.Marshal(map[string]any{"content": text})
		c := memory.WriteCall{Tool: "remember", Args: args}
		if v.keys {
			c.Key = fmt.Sprintf("bench-%d", i)
		}
		_, _, err := g.Run(ctx, c, func(ctx context.Context) (any, string, error) {
			r, err := mem.Remember(ctx, w)
			return r, "", err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(started)
}

// BenchmarkRememberGates times remember with every gate on (idempotency,
// rate limits, dedup, the write log) against the same build with the gates
// off, in rounds that alternate so that the shared machine's noise falls on
// both alike; with the offline embedder, as the server runs by default.
func BenchmarkRememberGates(b *testing.B) {
	texts, _ := loadLoCoMo(b).Corpus()
	const perRound, rounds = 1000, 3
	emb := wordvec.New()
	variants := []variant{{"off", false, false}, {"on", true, false}, {"on+key", true, true}}
	spent := make([]time.Duration, len(variants))
	for r := range rounds {
		part := texts[r*perRound : (r+1)*perRound]
		for i, v := range variants {
			spent[i] += rememberAll(b, v, emb, part)
		}
	}
	rate := func(i int) float64 { return float64(perRound*rounds) / spent[i].Seconds() }
	fmt.Printf("gates remember writes=%d embedder=%s off=%.0f/s on=%.0f/s (ratio %.2f) on+idempotency_key=%.0f/s (ratio %.2f)\n",
		perRound*rounds, emb.ID, rate(0), rate(1), rate(1)/rate(0), rate(2), rate(2)/rate(0))
	b.ReportMetric(rate(1)/rate(0), "ratio")
}

// BenchmarkLoCoMoIngest replays every LoCoMo conversation through the gates
// as its own agent, each turn remembered when its session took place, and
// reads the write log's acceptance and dedup hit rates (WAR, DHR).
func BenchmarkLoCoMoIngest(b *testing.B) {
	ds := loadLoCoMo(b)
	db, err := store.Open(context.Background(), filepath.Join(b.TempDir(), store.FileName))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	mem := store.NewMemoryService(db, nil)
	g := gate.New(db)
	for _, c := range ds.Conversations {
		ctx := memory.WithIdentity(context.Background(), memory.Identity{AgentID: c.ID, Seniority: memory.SeniorityMid, Autonomy: memory.AutonomySemi})
		for _, t := range c.Turns {
			w := memory.EntryWrite{Content: t.Text, Category: memory.CategoryEpisodic, OccurredAt: t.Date}
			args, _ := json.Marshal(map[string]any{"content": t.Text, "category": "episodic", "occurred_at": t.Date})
			_, _, err := g.Run(ctx, memory.WriteCall{Tool: "remember", Args: args}, func(ctx context.Context) (any, string, error) {
				r, err := mem.Remember(ctx, w)
				return r, "", err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	recs, err := db.WriteLog(context.Background(), time.Time{}, "")
	if err != nil {
		b.Fatal(err)
	}
	n := map[memory.WriteOutcome]int{}
	tiers := map[string]int{}
	for _, r := range recs {
		n[r.Outcome]++
		if r.Outcome == memory.WriteOutcomeDuplicate {
			tiers[r.Reason]++
		}
	}
	total := float64(len(recs))
	fmt.Printf("gates locomo ingest writes=%d stored=%d duplicate=%d (exact %d, words %d, semantic %d) rejected=%d WAR=%.3f DHR=%.3f\n",
		len(recs), n[memory.WriteOutcomeStored], n[memory.WriteOutcomeDuplicate], tiers[memory.DedupExact], tiers[memory.DedupWords], tiers[memory.DedupSemantic],
		n[memory.WriteOutcomeRejected], float64(n[memory.WriteOutcomeStored])/total, float64(n[memory.WriteOutcomeDuplicate])/total)
}
