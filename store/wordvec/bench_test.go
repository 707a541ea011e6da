package wordvec_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3/driver"
	"github.com/ncruces/go-sqlite3/ext/fts5"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/locomo"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// BenchmarkLoCoMoVectors reports the vector-only retrieval recall of the
// default embedder on LoCoMo (brute-force cosine over each conversation's
// turns), beside ablations that undo one choice each, plain BM25 (FTS5,
// porter tokenizer, OR of the query's words) and a reciprocal-rank fusion
// of the two (k=60, top 50 of each). The BM25 and fused rows are a
// yardstick for tuning the embedder, not the product's retrieval, which
// lives in the memory store and is benchmarked there.
func BenchmarkLoCoMoVectors(b *testing.B) {
	ds := locomo.Must(b)
	for b.Loop() {
		lexical := cached(b, ds, bm25(b))
		def := evaluate(b, ds, wordvec.ID, vectorIndexer(wordvec.New().Embed))
		fused := evaluate(b, ds, "bm25+"+wordvec.ID+" rrf", rrf(lexical, vectorIndexer(wordvec.New().Embed)))
		fmt.Println()
		locomo.PrintTable(os.Stdout, evaluate(b, ds, "bm25", lexical), def, fused)

		rows := []locomo.Report{def, fused}
		for _, v := range []struct {
			name           string
			a, radius, oov float64
		}{
			{"no lift: cosine of 100-d means", 3e-4, 0, 0.5},
			{"plain mean: no SIF weights", 0, 2, 0.5},
			{"SIF a=1e-3", 1e-3, 2, 0.5},
			{"SIF a=1e-4", 1e-4, 2, 0.5},
			{"lift R=1", 3e-4, 1, 0.5},
			{"lift R=4", 3e-4, 4, 0.5},
			{"unknown words ignored", 3e-4, 2, 0},
		} {
			vec := vectorIndexer(wordvec.Variant(v.a, v.radius, v.oov))
			rows = append(rows, evaluate(b, ds, v.name, vec), evaluate(b, ds, "bm25+ "+v.name, rrf(lexical, vec)))
		}
		fmt.Println("\nAblations, each undoing one choice of " + wordvec.ID + " (vector only, then fused with BM25 by RRF):")
		locomo.PrintSummary(os.Stdout, rows...)
		b.ReportMetric(def.All.R5, "vec-R@5")
		b.ReportMetric(def.All.R10, "vec-R@10")
		b.ReportMetric(fused.All.R5, "fused-R@5")
		b.ReportMetric(fused.All.R10, "fused-R@10")
	}
}

// cached runs index's searches for every question once and replays them,
// so that the BM25 side of each fusion costs nothing after the first.
func cached(b *testing.B, ds *locomo.Dataset, index locomo.Indexer) locomo.Indexer {
	ranked := map[string][]string{}
	record := func(ctx context.Context, c *locomo.Conversation) (locomo.Search, error) {
		search, err := index(ctx, c)
		return func(ctx context.Context, q string) ([]string, error) {
			ids, err := search(ctx, q)
			ranked[c.ID+"\x00"+q] = ids
			return ids, err
		}, err
	}
	evaluate(b, ds, "", record)
	return func(ctx context.Context, c *locomo.Conversation) (locomo.Search, error) {
		return func(ctx context.Context, q string) ([]string, error) {
			return ranked[c.ID+"\x00"+q], nil
		}, nil
	}
}

func evaluate(b *testing.B, ds *locomo.Dataset, method string, index locomo.Indexer) locomo.Report {
	b.Helper()
	r, err := locomo.Evaluate(context.Background(), ds, method, index)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// vectorIndexer embeds a conversation's turns and ranks them by cosine
// (dot product: the vectors are unit length).
func vectorIndexer(embed memory.EmbedFunc) locomo.Indexer {
	return func(ctx context.Context, c *locomo.Conversation) (locomo.Search, error) {
		texts := make([]string, len(c.Turns))
		for i, t := range c.Turns {
			texts[i] = t.Text
		}
		vecs, err := embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, query string) ([]string, error) {
			q, err := embed(ctx, []string{query})
			if err != nil {
				return nil, err
			}
			scores := make([]float64, len(vecs))
			for i, v := range vecs {
				for d := range v {
					scores[i] += float64(q[0][d]) * float64(v[d])
				}
			}
			return top(c, scores, 50), nil
		}, nil
	}
}

// top returns the ids of the n turns with the highest scores, ties in turn order.
func top(c *locomo.Conversation, scores []float64, n int) []string {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	ids := make([]string, 0, n)
	for _, i := range idx[:min(n, len(idx))] {
		ids = append(ids, c.Turns[i].ID)
	}
	return ids
}

// bm25 returns an Indexer that puts a conversation's turns in an in-memory
// FTS5 table with the tokenizer the store uses and ranks them by bm25.
func bm25(b *testing.B) locomo.Indexer {
	return func(ctx context.Context, c *locomo.Conversation) (locomo.Search, error) {
		db, err := driver.Open(":memory:", fts5.Register)
		if err != nil {
			return nil, err
		}
		b.Cleanup(func() { db.Close() })
		db.SetMaxOpenConns(1) // one connection: one in-memory database
		return bm25Search(ctx, db, c)
	}
}

func bm25Search(ctx context.Context, db *sql.DB, c *locomo.Conversation) (locomo.Search, error) {
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE turns USING fts5(id UNINDEXED, content, tokenize='porter unicode61 remove_diacritics 2')`); err != nil {
		return nil, err
	}
	for _, t := range c.Turns {
		if _, err := db.ExecContext(ctx, `INSERT INTO turns (id, content) VALUES (?, ?)`, t.ID, t.Text); err != nil {
			return nil, err
		}
	}
	return func(ctx context.Context, query string) ([]string, error) {
		rows, err := db.QueryContext(ctx, `SELECT id FROM turns WHERE turns MATCH ? ORDER BY bm25(turns) LIMIT 50`, store.MatchAny(query))
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return ids, rows.Err()
	}, nil
}

// rrf fuses two rankings by reciprocal rank (k=60), ties broken by turn id.
func rrf(a, b locomo.Indexer) locomo.Indexer {
	return func(ctx context.Context, c *locomo.Conversation) (locomo.Search, error) {
		sa, err := a(ctx, c)
		if err != nil {
			return nil, err
		}
		sb, err := b(ctx, c)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, query string) ([]string, error) {
			score := map[string]float64{}
			for _, s := range []locomo.Search{sa, sb} {
				ids, err := s(ctx, query)
				if err != nil {
					return nil, err
				}
				for rank, id := range ids {
					score[id] += 1 / (60 + float64(rank+1))
				}
			}
			ids := make([]string, 0, len(score))
			for id := range score {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			sort.SliceStable(ids, func(i, j int) bool { return score[ids[i]] > score[ids[j]] })
			return ids[:min(10, len(ids))], nil
		}, nil
	}
}

// BenchmarkEmbed measures embedding throughput on prose (Newton's Opticks,
// shipped with Go, cut into 25-word texts), the cost of a start-up
// re-index of 100k memories and of one query.
func BenchmarkEmbed(b *testing.B) {
	texts := opticks(b, 25)
	embed := wordvec.New().Embed
	if _, err := embed(context.Background(), texts[:1]); err != nil { // load the table outside the timing
		b.Fatal(err)
	}
	for b.Loop() {
		start := time.Now()
		n := 0
		for n < 100_000 {
			batch := texts[:min(len(texts), 100_000-n)]
			if _, err := embed(context.Background(), batch); err != nil {
				b.Fatal(err)
			}
			n += len(batch)
		}
		el := time.Since(start)
		b.ReportMetric(float64(n)/el.Seconds(), "embeddings/s")
		b.ReportMetric(float64(el.Microseconds())/float64(n), "µs/embedding")
		b.Logf("100,000 texts of 25 words in %v", el.Round(time.Millisecond))
	}
}

// BenchmarkTableLoad measures decoding the embedded table (done once per
// process, on the first embedding) and the heap it keeps.
func BenchmarkTableLoad(b *testing.B) {
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		e, words, err := wordvec.ParseTable()
		el := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(e)
		b.ReportMetric(float64(el.Microseconds())/1000, "ms/load")
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MB")
		b.ReportMetric(float64(words), "words")
	}
}

func opticks(b *testing.B, words int) []string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "src", "testdata", "Isaac.Newton-Opticks.txt"))
	if err != nil {
		b.Fatal(err)
	}
	fields := strings.Fields(string(raw))
	var texts []string
	for i := 0; i+words <= len(fields); i += words {
		texts = append(texts, strings.Join(fields[i:i+words], " "))
	}
	return texts
}
