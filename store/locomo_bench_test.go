package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/locomo"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// locomoSpaces is LoCoMo stored through the real memory service in one real
// store (a SQLite file, or a PostgreSQL database): each conversation is the personal space of an agent named
// after it, each turn one memory that occurred on its session's date.
type locomoSpaces struct {
	ds   *locomo.Dataset
	svc  *store.MemoryService
	db   *store.DB
	turn map[string]string // memory id -> turn id
	// defaults is the service's retrieval configuration as the product
	// starts it: DefaultRetrieval with the embedder's vector floor.
	defaults store.RetrievalConfig
}

func loadLoCoMo(tb testing.TB, emb *memory.Embedder) *locomoSpaces {
	tb.Helper()
	db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), store.FileName))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return loadLoCoMoInto(tb, db, emb)
}

// loadLoCoMoInto is loadLoCoMo into db, a fresh store on either engine.
func loadLoCoMoInto(tb testing.TB, db *store.DB, emb *memory.Embedder) *locomoSpaces {
	tb.Helper()
	ds := locomo.Must(tb)
	svc := store.NewMemoryService(db, emb)
	svc.Words = store.NewWordVectors(wordvec.New())
	l := &locomoSpaces{ds: ds, svc: svc, db: db, turn: map[string]string{}, defaults: svc.Retrieval}
	for _, c := range ds.Conversations {
		ctx := as(memory.Identity{AgentID: c.ID})
		for _, t := range c.Turns {
			e, err := svc.Remember(ctx, memory.EntryWrite{Content: t.Text, Category: memory.CategoryEpisodic, OccurredAt: t.Date,
				Source: "locomo " + c.ID + " " + t.ID})
			if err != nil {
				tb.Fatal(err)
			}
			l.turn[e.ID] = t.ID
		}
	}
	if svc.Index != nil {
		if _, err := svc.Index.Load(context.Background()); err != nil {
			tb.Fatal(err)
		}
	}
	return l
}

// evaluate scores one retrieval configuration over every question.
func (l *locomoSpaces) evaluate(tb testing.TB, method string, cfg store.RetrievalConfig) locomo.Report {
	tb.Helper()
	l.svc.Retrieval = cfg
	r, err := locomo.Evaluate(context.Background(), l.ds, method, func(_ context.Context, c *locomo.Conversation) (locomo.Search, error) {
		who := as(memory.Identity{AgentID: c.ID})
		return func(_ context.Context, query string) ([]string, error) {
			hits, err := l.svc.Search(who, memory.Query{Text: query, Scope: memory.ScopePersonal, Limit: 10})
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

// BenchmarkLoCoMo prints LoCoMo retrieval recall for BM25 alone, vectors
// alone (neither with the time list) and the fused default, through the real
// store on each engine: a real SQLite file, and a PostgreSQL database on the
// test server when MEMORY_MCP_TEST_POSTGRES names one. Both engines index
// the same terms and rank them alike, so their figures must agree; the
// difference is printed, and the ablations run on SQLite.
func BenchmarkLoCoMo(b *testing.B) {
	for range b.N {
		var all, fused []locomo.Report
		var names []string
		for _, e := range locomoEngines() {
			l := loadLoCoMoInto(b, e.open(b), benchEmbedder())
			bm, vec, def := l.defaults, l.defaults, l.defaults
			bm.VectorWeight, bm.TimeWeight, bm.SoftWeight = 0, 0, 0
			vec.BM25Weight, vec.TimeWeight, vec.SoftWeight, vec.VectorFloor = 0, 0, 0, -1
			reports := []locomo.Report{l.evaluate(b, e.name+" bm25", bm)}
			if l.svc.Index != nil {
				reports = append(reports, l.evaluate(b, e.name+" vector", vec), l.evaluate(b, e.name+" fused", def))
			}
			all, fused, names = append(all, reports...), append(fused, reports[len(reports)-1]), append(names, e.name)
			if e.name == "sqlite" {
				b.ReportMetric(reports[len(reports)-1].All.R5, "R@5")
				b.ReportMetric(reports[len(reports)-1].All.R10, "R@10")
				b.ReportMetric(reports[len(reports)-1].All.MRR, "MRR")
			} else {
				b.ReportMetric(reports[len(reports)-1].All.R5, e.name+"-R@5")
				b.ReportMetric(reports[len(reports)-1].All.R10, e.name+"-R@10")
			}
			if e.name == "sqlite" && l.svc.Index != nil {
				defer l.ablations(b, reports[len(reports)-1])
			}
		}
		if err := locomo.PrintTable(os.Stdout, all...); err != nil {
			b.Fatal(err)
		}
		fmt.Println("\nLoCoMo recall of one conversation at a time (categories 1-4)")
		if err := locomo.PrintSpread(os.Stdout, all...); err != nil {
			b.Fatal(err)
		}
		fmt.Println("\nLoCoMo recall of conversations 1-5 (tune), 6-10 (held out) and all (categories 1-4)")
		if err := locomo.PrintSplit(os.Stdout, all...); err != nil {
			b.Fatal(err)
		}
		for i := 1; i < len(fused); i++ {
			fmt.Printf("\n%s - %s, fused, categories 1-4: R@5 %+.4f, R@10 %+.4f, MRR %+.4f\n", names[i], names[0],
				fused[i].All.R5-fused[0].All.R5, fused[i].All.R10-fused[0].All.R10, fused[i].All.MRR-fused[0].All.MRR)
		}
		if len(fused) == 1 {
			fmt.Printf("\nPostgreSQL not measured: %s is not set\n", storetest.PostgresEnv)
		}
		fmt.Println()
	}
}

// locomoEngine opens a fresh store on one engine.
type locomoEngine struct {
	name string
	open func(testing.TB) *store.DB
}

// locomoEngines opens the stores BenchmarkLoCoMo measures, each with the
// real clock, as the product runs: SQLite always, PostgreSQL when the test
// server is given.
func locomoEngines() []locomoEngine {
	engines := []locomoEngine{{"sqlite", func(tb testing.TB) *store.DB {
		db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), store.FileName))
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { db.Close() })
		return db
	}}}
	if os.Getenv(storetest.PostgresEnv) == "" {
		return engines
	}
	return append(engines, locomoEngine{"postgres", func(tb testing.TB) *store.DB {
		db, err := store.OpenPostgres(context.Background(), storetest.PostgresURL(tb))
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { db.Close() })
		return db
	}})
}

// ablations prints the fused default beside variants with one choice undone,
// so that each default's share of the recall is on record.
func (l *locomoSpaces) ablations(b *testing.B, fused locomo.Report) {
	variant := func(name string, edit func(*store.RetrievalConfig)) locomo.Report {
		c := l.defaults
		edit(&c)
		return l.evaluate(b, name, c)
	}
	fused.Method = "fused default"
	reports := []locomo.Report{fused,
		variant("- soft matching", func(c *store.RetrievalConfig) { c.SoftWeight = 0 }),
		variant("- time list", func(c *store.RetrievalConfig) { c.TimeWeight = 0 }),
		variant("- vectors", func(c *store.RetrievalConfig) { c.VectorWeight = 0 }),
		variant("vectors find alone (floor 0)", func(c *store.RetrievalConfig) { c.VectorFloor = 0 }),
		variant("rrf k 60, vectors at 1", func(c *store.RetrievalConfig) { c.RRFK, c.VectorWeight = 60, 1 }),
		variant("mmr diversity on", func(c *store.RetrievalConfig) { c.Diversity = true }),
		variant("linear fusion", func(c *store.RetrievalConfig) { c.Fusion = store.FusionLinear }),
	}
	undo := store.SetBM25(1.2, 0.75)
	reports = append(reports, variant("bm25 k1 1.2, b 0.75", func(*store.RetrievalConfig) {}))
	undo()
	fmt.Println("LoCoMo ablations (categories 1-4; each row undoes one default)")
	if err := locomo.PrintSummary(os.Stdout, reports...); err != nil {
		b.Fatal(err)
	}
	fmt.Println("\nThe ablations on conversations 1-5 (tune), 6-10 (held out) and all")
	if err := locomo.PrintSplit(os.Stdout, reports...); err != nil {
		b.Fatal(err)
	}
	fmt.Println()
}

// benchEmbedder is the product's offline default.
func benchEmbedder() *memory.Embedder {
	e := wordvec.New()
	return &e
}
