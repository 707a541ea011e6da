package gate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
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

// writer is one variant's store, kept open across the rounds so that each
// round adds to what the variant wrote before, as a server's store grows.
type writer struct {
	variant
	db   *store.DB
	mem  *store.MemoryService
	g    *gate.Gates
	ctx  context.Context
	next int // the idempotency key's number
}

func newWriter(b *testing.B, v variant, emb memory.Embedder) *writer {
	db, err := store.Open(context.Background(), filepath.Join(b.TempDir(), store.FileName))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
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
	return &writer{variant: v, db: db, mem: mem, g: g, ctx: ctx}
}

// remember writes texts the variant's way and returns how long it took.
func (wr *writer) remember(b *testing.B, texts []string) time.Duration {
	started := time.Now()
	for _, text := range texts {
		w := memory.EntryWrite{Content: text}
		if !wr.gates {
			if _, err := wr.mem.Remember(wr.ctx, w); err != nil {
				b.Fatal(err)
			}
			continue
		}
		args, _ := json.Marshal(map[string]any{"content": text})
		c := memory.WriteCall{Tool: "remember", Args: args}
		if wr.keys {
			wr.next++
			c.Key = fmt.Sprintf("bench-%d", wr.next)
		}
		_, _, err := wr.g.Run(wr.ctx, c, func(ctx context.Context) (any, string, error) {
			r, err := wr.mem.Remember(ctx, w)
			return r, "", err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(started)
}

// BenchmarkRememberGates times remember with every gate on (idempotency,
// rate limits, dedup, contradictions, the risk tier, the write log) against
// the same build with the gates off, with the offline embedder, as the
// server runs by default. The variants take turns in short rounds, each
// adding the same texts to its own store, so that a burst of the shared
// machine's load falls on one round; the ratio is the median of the
// rounds' ratios, and the total's is printed beside it.
func BenchmarkRememberGates(b *testing.B) {
	texts, _ := loadLoCoMo(b).Corpus()
	const perRound, rounds = 100, 30
	emb := wordvec.New()
	var writers []*writer
	for _, v := range []variant{{"off", false, false}, {"on", true, false}, {"on+key", true, true}} {
		writers = append(writers, newWriter(b, v, emb))
	}
	spent := make([]time.Duration, len(writers))
	ratios := make([][]float64, len(writers))
	for r := range rounds {
		part := texts[r*perRound : (r+1)*perRound]
		took := make([]time.Duration, len(writers))
		for i, w := range writers {
			took[i] = w.remember(b, part)
			spent[i] += took[i]
		}
		for i := range writers {
			ratios[i] = append(ratios[i], took[0].Seconds()/took[i].Seconds())
		}
	}
	rate := func(i int) float64 { return float64(perRound*rounds) / spent[i].Seconds() }
	median := func(i int) float64 {
		slices.Sort(ratios[i])
		return ratios[i][len(ratios[i])/2]
	}
	fmt.Printf("gates remember writes=%d rounds=%d embedder=%s off=%.0f/s on=%.0f/s (ratio %.2f, median of rounds %.2f) on+idempotency_key=%.0f/s (ratio %.2f, median %.2f)\n",
		perRound*rounds, rounds, emb.ID, rate(0), rate(1), rate(1)/rate(0), median(1), rate(2), rate(2)/rate(0), median(2))
	b.ReportMetric(median(1), "ratio")
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
