package store_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// Both engines index the same terms and rank them with the same BM25, so a
// search returns the same memories in the same order with the same scores
// and relevance on either, and a fact search the same facts and scores.
func TestEnginesRankAlike(t *testing.T) {
	words := strings.Fields(`deploy deployed deploys server servers kafka consumer lag alert internal international
		memory memorial account accounting billing invoice invoices schedule vacuum postgres backup restore rollout
		canary region cluster node nodes latency budget meeting meetings café naive`)
	rng := rand.New(rand.NewPCG(7, 24))
	sentence := func(n int) string {
		out := make([]string, n)
		for i := range out {
			out[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(out, " ")
	}
	type doc struct {
		content, ns string
		tags        []string
		bob         bool // written by bob, whose memories ann's search never reads
	}
	docs := make([]doc, 80)
	for i := range docs {
		docs[i] = doc{content: fmt.Sprintf("note %d: %s", i, sentence(3+rng.IntN(12))), ns: []string{"ops", "dev"}[rng.IntN(2)],
			tags: []string{words[rng.IntN(len(words))]}, bob: rng.IntN(4) == 0}
	}
	// Names with signs and CJK text make terms of their own (pairs of
	// characters), which both engines count alike.
	for i, c := range []string{"I write C++ and C# at work", "the C team ships .NET and Node.js", "昨日は東京タワーに行った",
		"東京の会議は木曜日", "we use F# for pricing, not C#"} {
		docs = append(docs, doc{content: fmt.Sprintf("note x%d: %s", i, c), ns: "dev"})
	}
	// A word said many times counts each time; a memory may say the very
	// tokens that mark a memory's space and namespace (ann's personal
	// space, namespace ops), which count as words of its text only, and
	// never put bob's memory in ann's space.
	docs = append(docs, doc{content: "note y0: deploy deploy deploy deploy the server", ns: "ops"},
		doc{content: "note y1: zp616e6e0 zn6f70730 deploy", ns: "ops"},
		doc{content: "note y2: zp616e6e0 zn6f70730 kafka", ns: "ops", bob: true})
	queries := []memory.Query{{Text: "zp616e6e0 deploy"}, {Text: "zn6f70730 kafka", Namespaces: []string{"ops"}},
		{Text: "zp616e6e0", Scope: memory.ScopePersonal}, {Text: "deploy deploy server"}, {Text: "C# at work"}, {Text: "東京タワー"}, {Text: "node.js .net c++"},
		{Text: "deploying servers"}, {Text: "kafka lag alert"}, {Text: "international accounting"},
		{Text: "the memorial meeting"}, {Text: "cafe latency budget", Namespaces: []string{"ops"}},
		{Text: "billing invoices"}, {Text: "postgres vacuum backup", Scope: memory.ScopePersonal},
		{Text: "canary rollout region", Tags: []string{"node"}}, {Text: "note 17"},
	}
	type hit struct {
		content         string
		score, relevant float64
	}
	run := func(open opener) (map[string][]hit, [][]memory.Fact) {
		s, db, _ := memoriesOn(t, open, nil)
		for _, d := range docs {
			who := ann
			if d.bob {
				who = bob
			}
			remember(t, s, who, memory.EntryWrite{Content: d.content, Namespace: d.ns, Tags: d.tags})
		}
		got := map[string][]hit{}
		for _, q := range queries {
			hits, err := s.Search(as(ann), q)
			if err != nil {
				t.Fatalf("search %q: %v", q.Text, err)
			}
			for _, h := range hits {
				got[q.Text] = append(got[q.Text], hit{h.Content, h.Score, h.Relevance})
			}
		}
		facts := store.NewFactService(db)
		for i, d := range docs[:30] {
			if _, err := facts.Publish(as(senior), memory.FactWrite{FactID: fmt.Sprintf("f%d", i%20), Content: d.content,
				Category: memory.FactConvention, Tags: d.tags}); err != nil {
				t.Fatal(err)
			}
		}
		var found [][]memory.Fact
		for _, q := range queries {
			fs, err := facts.Query(as(senior), memory.FactQuery{Text: q.Text})
			if err != nil {
				t.Fatalf("query facts %q: %v", q.Text, err)
			}
			found = append(found, fs)
		}
		return got, found
	}
	lite, liteFacts := run(openDB)
	pg, pgFacts := run(openPostgresDB)
	for _, q := range queries {
		a, b := lite[q.Text], pg[q.Text]
		if len(a) == 0 {
			t.Errorf("search %q found nothing on SQLite: the test asks nothing of it", q.Text)
		}
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("search %q:\n  sqlite   %v\n  postgres %v", q.Text, a, b)
		}
	}
	for i, q := range queries {
		if fmt.Sprint(factScores(liteFacts[i])) != fmt.Sprint(factScores(pgFacts[i])) {
			t.Errorf("fact query %q:\n  sqlite   %v\n  postgres %v", q.Text, factScores(liteFacts[i]), factScores(pgFacts[i]))
		}
	}
}

func factScores(fs []memory.Fact) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = fmt.Sprintf("%s:%v", f.ID, f.Score)
	}
	return out
}
