package finetune_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"text/tabwriter"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/finetune"
	"github.com/memory-mcp/memory-mcp/internal/locomo"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// locomoRun is LoCoMo stored through the real memory service in one real
// SQLite file, each conversation the personal space of an agent named
// after it, as the store's LoCoMo benchmark stores it; and per
// conversation the documents fine-tuning learns from: its turns, nothing
// else (no question, no answer, no other conversation).
type locomoRun struct {
	ds   *locomo.Dataset
	db   *store.DB
	base memory.Embedder
	svc  *store.MemoryService // the base embedder's
	turn map[string]string    // memory id -> turn id
	docs map[string][]finetune.Doc
}

func loadLoCoMo(tb testing.TB) *locomoRun {
	tb.Helper()
	ds := locomo.Must(tb)
	db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), store.FileName))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	l := &locomoRun{ds: ds, db: db, base: wordvec.New(), turn: map[string]string{}, docs: map[string][]finetune.Doc{}}
	l.svc = l.service(l.base)
	for _, c := range ds.Conversations {
		ctx := memory.WithIdentity(context.Background(), memory.Identity{AgentID: c.ID})
		seen := map[string]bool{}
		for _, t := range c.Turns {
			r, err := l.svc.Remember(ctx, memory.EntryWrite{Content: t.Text, Category: memory.CategoryEpisodic, OccurredAt: t.Date,
				Source: "locomo " + c.ID + " " + t.ID})
			if err != nil {
				tb.Fatal(err)
			}
			if !seen[r.ID] {
				seen[r.ID] = true
				l.turn[r.ID] = t.ID
				l.docs[c.ID] = append(l.docs[c.ID], finetune.Doc{ID: r.ID, Agent: c.ID, Text: r.Content, At: r.OccurredAt})
			}
		}
	}
	if _, err := l.svc.Index.Load(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return l
}

// service is a memory service over the run's file searching with emb, as
// the product starts one (soft matching by the built-in word vectors).
func (l *locomoRun) service(emb memory.Embedder) *store.MemoryService {
	svc := store.NewMemoryService(l.db, &emb)
	svc.Words = store.NewWordVectors(wordvec.New())
	return svc
}

// tuned is one conversation's fine-tuning: the run's outcome and a memory
// service over the conversation's memories embedded through the adapter
// (or the base service, when the gate kept the adapter out and gated is set).
type tuned struct {
	run *finetune.Tuned
	svc *store.MemoryService
}

// tune fine-tunes on conversation c's turns alone with cfg and pairs made
// by sources.
func (l *locomoRun) tune(tb testing.TB, c *locomo.Conversation, cfg finetune.Config, sources []finetune.Source) tuned {
	tb.Helper()
	ctx := context.Background()
	docs := l.docs[c.ID]
	var pairs []finetune.Pair
	for _, s := range sources {
		switch s {
		case finetune.SourceICT:
			pairs = append(pairs, finetune.ICTPairs(docs, rand.New(rand.NewPCG(cfg.Train.Seed, 1)))...)
		case finetune.SourceNeighbour:
			pairs = append(pairs, finetune.NeighbourPairs(docs)...)
		}
	}
	run, err := finetune.Tune(ctx, finetune.Input{Base: l.base, Docs: docs, Pairs: pairs, Version: 1, WordKey: benchKey}, cfg, true, nil)
	if err != nil {
		tb.Fatal(err)
	}
	emb, err := run.Adapter.Embedder(l.base, benchKey)
	if err != nil {
		tb.Fatal(err)
	}
	vecs := map[string][]float32{}
	for _, d := range docs {
		v, err := emb.Embed(ctx, []string{d.Text})
		if err != nil {
			tb.Fatal(err)
		}
		vecs[d.ID] = v[0]
	}
	svc := l.service(emb)
	if _, err := svc.Index.LoadVectors(ctx, func(id string) []float32 { return vecs[id] }); err != nil {
		tb.Fatal(err)
	}
	return tuned{run: run, svc: svc}
}

// evaluate scores the questions of the conversations of ds with the
// search each conversation's service makes under cfg.
func (l *locomoRun) evaluate(tb testing.TB, ds *locomo.Dataset, method string, cfg store.RetrievalConfig,
	svc func(c *locomo.Conversation) *store.MemoryService) locomo.Report {
	tb.Helper()
	r, err := locomo.Evaluate(context.Background(), ds, method, func(_ context.Context, c *locomo.Conversation) (locomo.Search, error) {
		s := svc(c)
		s.Retrieval = cfg
		who := memory.WithIdentity(context.Background(), memory.Identity{AgentID: c.ID})
		return func(_ context.Context, query string) ([]string, error) {
			hits, err := s.Search(who, memory.Query{Text: query, Scope: memory.ScopePersonal, Limit: 10})
			ids := make([]string, len(hits))
			for i, h := range hits {
				ids[i] = l.turn[h.ID]
			}
			return ids, err
		}, nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// vectorsAlone is the default retrieval with every list but the vectors
// off and no floor, as the store's benchmark measures "vector".
func vectorsAlone(cfg store.RetrievalConfig) store.RetrievalConfig {
	cfg.BM25Weight, cfg.TimeWeight, cfg.SoftWeight, cfg.VectorFloor = 0, 0, 0, -1
	return cfg
}

// comparison is one idea's figures before and after, on the same questions.
type comparison struct {
	name                    string
	vecBefore, vecAfter     locomo.Report
	fusedBefore, fusedAfter locomo.Report
	runs                    []*finetune.Tuned
}

// compare fine-tunes every conversation of ds with cfg and sources and
// scores vectors alone and the fused default before and after. With gated
// set, a conversation whose adapter the gate refused keeps the base.
func (l *locomoRun) compare(tb testing.TB, ds *locomo.Dataset, name string, cfg finetune.Config, sources []finetune.Source, gated bool) comparison {
	tb.Helper()
	fused := l.svc.Retrieval
	cmp := comparison{name: name}
	after := map[string]*store.MemoryService{}
	for i := range ds.Conversations {
		c := &ds.Conversations[i]
		t := l.tune(tb, c, cfg, sources)
		cmp.runs = append(cmp.runs, t.run)
		after[c.ID] = t.svc
		if gated && !t.run.Passed {
			after[c.ID] = l.svc
		}
	}
	base := func(*locomo.Conversation) *store.MemoryService { return l.svc }
	tunedSvc := func(c *locomo.Conversation) *store.MemoryService { return after[c.ID] }
	cmp.vecBefore = l.evaluate(tb, ds, "vectors", vectorsAlone(fused), base)
	cmp.vecAfter = l.evaluate(tb, ds, "vectors", vectorsAlone(fused), tunedSvc)
	cmp.fusedBefore = l.evaluate(tb, ds, "fused", fused, base)
	cmp.fusedAfter = l.evaluate(tb, ds, "fused", fused, tunedSvc)
	l.svc.Retrieval = fused
	return cmp
}

// printPerConversation writes a row per conversation and pooled rows.
func printPerConversation(w io.Writer, ds *locomo.Dataset, c comparison) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "conversation\tpairs\theld-out R@10\twins/losses\tvectors R@10\tfused R@5\tfused R@10\tfused NDCG@10\t")
	arrow := func(a, b float64) string { return fmt.Sprintf("%.3f -> %.3f", a, b) }
	for i, conv := range ds.Conversations {
		r := c.runs[i]
		gate := fmt.Sprintf("%d/%d", r.Wins, r.Losses)
		if !r.Passed {
			gate += " (kept out)"
		}
		vb, va := c.vecBefore.Conversations[i], c.vecAfter.Conversations[i]
		fb, fa := c.fusedBefore.Conversations[i], c.fusedAfter.Conversations[i]
		fmt.Fprintf(tw, "%d %s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", i+1, conv.ID, total(r.Trained), arrow(r.Base.All.R10, r.Adapted.All.R10), gate,
			arrow(vb.R10, va.R10),
			arrow(fb.R5, fa.R5), arrow(fb.R10, fa.R10), arrow(fb.NDCG10, fa.NDCG10))
	}
	n := len(ds.Conversations)
	half := (n + 1) / 2
	for _, part := range []struct {
		name     string
		from, to int
	}{{"1-5 (tune)", 0, half}, {"6-10 (held out)", half, n}, {"all", 0, n}} {
		if part.from >= part.to {
			continue
		}
		vb, va := c.vecBefore.Pooled(part.from, part.to), c.vecAfter.Pooled(part.from, part.to)
		fb, fa := c.fusedBefore.Pooled(part.from, part.to), c.fusedAfter.Pooled(part.from, part.to)
		fmt.Fprintf(tw, "%s\t\t\t\t%s\t%s\t%s\t%s\t\n", part.name, arrow(vb.R10, va.R10), arrow(fb.R5, fa.R5), arrow(fb.R10, fa.R10),
			arrow(fb.NDCG10, fa.NDCG10))
	}
	tw.Flush()
}

func total(m map[finetune.Source]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// benchKey hashes the words of the benchmark's word weights.
var benchKey = []byte("locomo benchmark word key")

var bothSources = []finetune.Source{finetune.SourceICT, finetune.SourceNeighbour}

// BenchmarkLoCoMoFineTune prints, per conversation and pooled, LoCoMo
// recall before and after fine-tuning on each conversation's own turns
// (each conversation its own agent; no question, no answer, nothing of
// another conversation is learned from): the vectors alone and the fused
// default, the product's gate deciding whether a conversation's adapter is
// used. Then what each idea gave, ungated. The settings were chosen on
// conversations 1-5; 6-10 confirm.
func BenchmarkLoCoMoFineTune(b *testing.B) {
	for range b.N {
		l := loadLoCoMo(b)
		c := l.compare(b, l.ds, "default", finetune.DefaultConfig(), []finetune.Source{finetune.SourceICT}, true)
		fmt.Println("LoCoMo, fine-tuned per conversation on its own turns (categories 1-4; before -> after; the gate as deployed)")
		printPerConversation(os.Stdout, l.ds, c)
		b.ReportMetric(c.vecAfter.All.R10-c.vecBefore.All.R10, "vecR@10gain")
		b.ReportMetric(c.fusedAfter.All.R5, "fusedR@5")
		b.ReportMetric(c.fusedAfter.All.R10, "fusedR@10")
		fmt.Println()
		l.ideas(b)
	}
}

// ideas prints what each idea gave on its own, ungated: the vectors'
// R@10 and the fused R@5 and R@10 after, on 1-5, 6-10 and all.
func (l *locomoRun) ideas(b *testing.B) {
	ict, both := []finetune.Source{finetune.SourceICT}, bothSources
	def := finetune.DefaultConfig()
	variant := func(edit func(*finetune.Config)) finetune.Config {
		c := finetune.DefaultConfig()
		edit(&c)
		return c
	}
	rows := []struct {
		name    string
		cfg     finetune.Config
		sources []finetune.Source
	}{
		{"default: ict, word weights, map", def, ict},
		{"word weights alone", variant(func(c *finetune.Config) { c.Train.Epochs = 0 }), ict},
		{"map alone (no word weights)", variant(func(c *finetune.Config) { c.WordWeights = false }), ict},
		{"+ neighbour pairs", def, both},
		{"neighbour pairs alone", def, []finetune.Source{finetune.SourceNeighbour}},
		{"no hard negatives", variant(func(c *finetune.Config) { c.Negatives = 0 }), ict},
		{"10 epochs", variant(func(c *finetune.Config) { c.Train.Epochs = 10 }), ict},
		{"lr 3e-4", variant(func(c *finetune.Config) { c.Train.LR = 3e-4 }), ict},
	}
	fmt.Println("LoCoMo fine-tuning ideas, each ungated (categories 1-4; before -> after)")
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "idea	conversations	vectors R@10	fused R@5	fused R@10	")
	n := len(l.ds.Conversations)
	for _, r := range rows {
		c := l.compare(b, l.ds, r.name, r.cfg, r.sources, false)
		for _, part := range []struct {
			name     string
			from, to int
		}{{"1-5", 0, 5}, {"6-10", 5, n}, {"all", 0, n}} {
			vb, va := c.vecBefore.Pooled(part.from, part.to), c.vecAfter.Pooled(part.from, part.to)
			fb, fa := c.fusedBefore.Pooled(part.from, part.to), c.fusedAfter.Pooled(part.from, part.to)
			fmt.Fprintf(tw, "%s\t%s\t%.3f -> %.3f\t%.3f -> %.3f\t%.3f -> %.3f\t\n", r.name, part.name, vb.R10, va.R10, fb.R5, fa.R5, fb.R10, fa.R10)
		}
	}
	tw.Flush()
	fmt.Println()
}
