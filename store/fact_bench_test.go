package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// vocabulary is a deterministic set of pseudo-words; text drawn from it with
// Zipf-distributed frequencies behaves like natural language for BM25: a few
// very common words, a long tail of rare ones.
var vocabulary = func() []string {
	syl := strings.Fields("ka to ri mu se na lo pe vi da gu he ba zo fi ne ta mo ru si")
	words := make([]string, 0, 4000)
	for _, a := range syl {
		for _, b := range syl {
			for _, c := range syl[:10] {
				words = append(words, a+b+c)
			}
		}
	}
	return words
}()

type textGen struct{ zipf *rand.Zipf }

func newTextGen(seed uint64) *textGen {
	r := rand.New(rand.NewPCG(seed, seed+1))
	return &textGen{zipf: rand.NewZipf(r, 1.1, 2, uint64(len(vocabulary)-1))}
}

// sentence makes a deterministic pseudo-fact of n words.
func (g *textGen) sentence(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = vocabulary[g.zipf.Uint64()]
	}
	return strings.Join(w, " ")
}

// BenchmarkPublish measures publishes per second in one process against a real file.
func BenchmarkPublish(b *testing.B) {
	db, _ := openDB(b)
	facts := store.NewFactService(db)
	ctx := as(senior)
	g := newTextGen(1)
	const n = 5000
	start := time.Now()
	for i := range n {
		_, err := facts.Publish(ctx, memory.FactWrite{FactID: fmt.Sprintf("f%d", i%1000), Content: g.sentence(12), Category: memory.FactConvention})
		if err != nil {
			b.Fatal(err)
		}
	}
	el := time.Since(start)
	b.ReportMetric(float64(n)/el.Seconds(), "publishes/s")
	b.Logf("publish, 1 process: %d publishes in %v = %.0f publishes/s", n, el.Round(time.Millisecond), float64(n)/el.Seconds())
}

// seedFacts writes facts × versions publishes with a clock advancing 1s each.
func seedFacts(b *testing.B, facts *store.FactService, n, versions int) {
	ctx := as(senior)
	g := newTextGen(3)
	for v := range versions {
		for i := range n {
			_, err := facts.Publish(ctx, memory.FactWrite{FactID: fmt.Sprintf("fact-%05d", i), Content: g.sentence(15) + fmt.Sprintf(" v%d", v), Category: memory.FactCategories[i%len(memory.FactCategories)]})
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkQueryFacts measures ranked query latency over 10k facts.
func BenchmarkQueryFacts(b *testing.B) {
	db, _ := openDB(b)
	facts := store.NewFactService(db)
	seedFacts(b, facts, 10000, 1)
	// Queries are three words drawn uniformly from the vocabulary, like the
	// content words of a real question; common words are the Zipf head.
	r := rand.New(rand.NewPCG(5, 6))
	ctx := context.Background()
	lat := measure(b, 300, func() error {
		q := vocabulary[r.IntN(len(vocabulary))] + " " + vocabulary[r.IntN(len(vocabulary))] + " " + vocabulary[r.IntN(len(vocabulary))]
		_, err := facts.Query(ctx, memory.FactQuery{Text: q, Limit: 10})
		return err
	})
	report(b, "query_facts over 10k facts", lat)
}

// BenchmarkSnapshotAt measures time travel over 10k facts × 5 versions (50k log rows).
func BenchmarkSnapshotAt(b *testing.B) {
	db, clk := openDB(b)
	facts := store.NewFactService(db)
	first := clk.Peek()
	seedFacts(b, facts, 10000, 5)
	last := clk.Peek()
	r := rand.New(rand.NewPCG(7, 8))
	ctx := context.Background()
	var got int
	lat := measure(b, 30, func() error {
		at := first.Add(time.Duration(r.Int64N(int64(last.Sub(first)))))
		fs, err := facts.SnapshotAt(ctx, at)
		got = len(fs)
		return err
	})
	cur := measure(b, 30, func() error { _, err := facts.SnapshotAt(ctx, time.Time{}); return err })
	b.Logf("current snapshot (10k facts, the baseline): p50 %v p95 %v", cur[15].Round(10*time.Microsecond), cur[28].Round(10*time.Microsecond))
	report(b, fmt.Sprintf("snapshot_at over 50k log rows (last snapshot held %d facts), %.1fx the current snapshot",
		got, float64(lat[15])/float64(cur[15])), lat)
}

func measure(b *testing.B, n int, fn func() error) []time.Duration {
	b.Helper()
	lat := make([]time.Duration, n)
	for i := range lat {
		start := time.Now()
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		lat[i] = time.Since(start)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return lat
}

func report(b *testing.B, what string, sorted []time.Duration) {
	b.Helper()
	p50, p95 := sorted[len(sorted)/2], sorted[len(sorted)*95/100]
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p95.Microseconds())/1000, "p95-ms")
	b.Logf("%s: p50 %v p95 %v (n=%d)", what, p50.Round(10*time.Microsecond), p95.Round(10*time.Microsecond), len(sorted))
}
