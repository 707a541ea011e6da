package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/locomo"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// benchCorpus returns LoCoMo's turns as memory texts and its questions as
// queries: real conversational text of the length agents remember.
func benchCorpus(tb testing.TB) (texts, queries []string) {
	return locomo.Must(tb).Corpus()
}

// BenchmarkMemoryScale grows one agent's memories to 1k, 10k and 100k through
// the real Remember, and at each size prints remember throughput and search
// latency (p50/p95 over 300 LoCoMo questions): the default fused search, BM25
// alone and vectors alone, and the index's vector query beside chromem-go's
// over the same vectors.
func BenchmarkMemoryScale(b *testing.B) {
	for range b.N {
		texts, queries := benchCorpus(b)
		queries = queries[:300]
		emb := benchEmbedder()
		db, err := store.Open(context.Background(), filepath.Join(b.TempDir(), store.FileName))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		s := store.NewMemoryService(db, emb)
		s.Words = store.NewWordVectors(wordvec.New())
		if s.Index != nil {
			if _, err := s.Index.Load(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
		ctx := as(memory.Identity{AgentID: "bench"})
		defaults := s.Retrieval
		have := 0
		for _, n := range []int{1_000, 10_000, 100_000} {
			start := time.Now()
			for ; have < n; have++ {
				if _, err := s.Remember(ctx, memory.EntryWrite{Content: locomo.Grown(texts, have), Category: memory.CategoryEpisodic}); err != nil {
					b.Fatal(err)
				}
			}
			added := n - (n / 10)
			if n == 1_000 {
				added = n
			}
			rate := float64(added) / time.Since(start).Seconds()
			b.Logf("remember: %d memories stored at %.0f/s", added, rate)
			fmt.Printf("memories=%d remember=%.0f/s", n, rate)
			for _, m := range []struct {
				name string
				edit func(*store.RetrievalConfig)
			}{{"fused", func(*store.RetrievalConfig) {}},
				{"bm25", func(c *store.RetrievalConfig) { c.VectorWeight, c.TimeWeight, c.SoftWeight = 0, 0, 0 }},
				{"vector", func(c *store.RetrievalConfig) { c.BM25Weight, c.TimeWeight, c.SoftWeight, c.VectorFloor = 0, 0, 0, -1 }}} {
				if s.Index == nil && m.name != "bm25" {
					continue
				}
				s.Retrieval = defaults
				m.edit(&s.Retrieval)
				p50, p95 := latency(b, queries, func(q string) error {
					_, err := s.Search(ctx, memory.Query{Text: q, Scope: memory.ScopePersonal, Limit: 10})
					return err
				})
				fmt.Printf(" search_%s_p50=%.2fms p95=%.2fms", m.name, ms(p50), ms(p95))
				if m.name == "fused" {
					b.ReportMetric(ms(p50), fmt.Sprintf("p50-ms@%d", n))
					b.ReportMetric(ms(p95), fmt.Sprintf("p95-ms@%d", n))
				}
			}
			// A period that holds every memory: the period filters FTS5's
			// matches, so this costs about what no period does.
			s.Retrieval = defaults
			since := time.Now().AddDate(-10, 0, 0)
			p50, p95 := latency(b, queries, func(q string) error {
				_, err := s.Search(ctx, memory.Query{Text: q, Scope: memory.ScopePersonal, Limit: 10, Since: since})
				return err
			})
			fmt.Printf(" search_fused_wide_since_p50=%.2fms p95=%.2fms", ms(p50), ms(p95))
			if s.Index != nil {
				chromemVsFlat(b, s, db, queries, *emb)
			}
			fmt.Println()
		}
	}
}

// chromemVsFlat prints the p50 of the vector query alone (top 100, no
// filter) in the index and in chromem-go holding the same vectors.
func chromemVsFlat(b *testing.B, s *store.MemoryService, db *store.DB, queries []string, emb memory.Embedder) {
	ctx := context.Background()
	vecs, err := emb.Embed(ctx, queries)
	if err != nil {
		b.Fatal(err)
	}
	ch, err := store.NewChromem(ctx, db, "bench")
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	index, _ := latency(b, queries, func(string) error {
		s.Index.IndexQuery(vecs[i%len(vecs)], "bench", 100)
		i++
		return nil
	})
	i = 0
	chromem, _ := latency(b, queries, func(string) error {
		_, err := ch.Query(ctx, vecs[i%len(vecs)], 100)
		i++
		return err
	})
	fmt.Printf(" vector_top100_index_p50=%.2fms chromem_p50=%.2fms", ms(index), ms(chromem))
}

// latency runs fn for every query and returns the median and 95th percentile.
func latency(b *testing.B, queries []string, fn func(q string) error) (p50, p95 time.Duration) {
	ds := make([]time.Duration, len(queries))
	for i, q := range queries {
		start := time.Now()
		if err := fn(q); err != nil {
			b.Fatal(err)
		}
		ds[i] = time.Since(start)
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[len(ds)*95/100]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkLongQuery searches one agent's 10k memories with queries of
// MaxQueryBytes of real conversation (consecutive LoCoMo turns, a different
// stretch each time, so most words are new to the caches): the "what is the
// conversation about" query memory_context invites. ns/op is one search.
func BenchmarkLongQuery(b *testing.B) {
	texts, _ := benchCorpus(b)
	s, ctx := benchStore(b, texts, 10_000)
	queries := longQueries(texts, 64)
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Search(ctx, memory.Query{Text: queries[i%len(queries)], Scope: memory.ScopePersonal, Limit: 10}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchStore stores the first n grown texts as one agent's memories through
// the real service (offline embedder, soft matching, loaded index).
func benchStore(b *testing.B, texts []string, n int) (*store.MemoryService, context.Context) {
	db, err := store.Open(context.Background(), filepath.Join(b.TempDir(), store.FileName))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	s := store.NewMemoryService(db, benchEmbedder())
	s.Words = store.NewWordVectors(wordvec.New())
	ctx := as(memory.Identity{AgentID: "bench"})
	for i := range n {
		if _, err := s.Remember(ctx, memory.EntryWrite{Content: locomo.Grown(texts, i), Category: memory.CategoryEpisodic}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Index.Load(context.Background()); err != nil {
		b.Fatal(err)
	}
	return s, ctx
}

// longQueries returns n queries of up to MaxQueryBytes, each consecutive
// texts from its own starting point, cut at a word boundary.
func longQueries(texts []string, n int) []string {
	out := make([]string, n)
	for i := range out {
		var q strings.Builder
		for j := i * len(texts) / n; ; j++ {
			t := texts[j%len(texts)]
			if q.Len()+1+len(t) > memory.MaxQueryBytes {
				break
			}
			q.WriteString(t + " ")
		}
		out[i] = q.String()
	}
	return out
}

// BenchmarkSearchNewWords measures what soft matching's word vectors cost a
// long-running process: 10k memories of 12 words drawn from 200k made-up
// ones (the ids, names and typos real memories are full of), then 300
// searches that each bring a thousand or so words the process has not seen.
// It prints the growth of RSS and of the live heap (after a collection)
// over those searches, and the p50 of the same searches run again.
func BenchmarkSearchNewWords(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	syll := []string{"ka", "lo", "mi", "nu", "re", "sa", "to", "vi", "zo", "pe", "gu", "ba", "di", "fe", "ho", "ju"}
	word := func() string {
		n := rng.IntN(200_000)
		var w strings.Builder
		for range 5 {
			w.WriteString(syll[n%len(syll)])
			n /= len(syll)
		}
		return w.String()
	}
	text := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = word()
		}
		return strings.Join(ws, " ")
	}
	texts := make([]string, 10_000)
	for i := range texts {
		texts[i] = text(12)
	}
	queries := make([]string, 300)
	for i := range queries {
		queries[i] = text(8)
	}
	s, ctx := benchStore(b, texts, len(texts))
	heap0, rss0 := settled(b)
	first, _ := latency(b, queries, func(q string) error {
		_, err := s.Search(ctx, memory.Query{Text: q, Scope: memory.ScopePersonal, Limit: 10})
		return err
	})
	heap1, rss1 := settled(b)
	again, _ := latency(b, queries, func(q string) error {
		_, err := s.Search(ctx, memory.Query{Text: q, Scope: memory.ScopePersonal, Limit: 10})
		return err
	})
	fmt.Printf("300 searches bringing new words: heap +%.1f MB, rss +%.1f MB; p50 first %.2fms, again %.2fms\n",
		mb(heap1-heap0), mb(rss1-rss0), ms(first), ms(again))
	b.ReportMetric(mb(rss1-rss0), "rss-growth-MB")
	b.ReportMetric(mb(heap1-heap0), "heap-growth-MB")
	b.ReportMetric(ms(again), "p50-ms")
}

// settled collects garbage, returns it to the system, and reads the live
// heap and the process's resident set.
func settled(b *testing.B) (heap, rss int64) {
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status: ", err)
	}
	for line := range strings.Lines(string(status)) {
		if kb, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
			rss = n << 10
		}
	}
	return int64(m.HeapInuse), rss
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }
