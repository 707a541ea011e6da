package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"text/tabwriter"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/locomo"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// confidenceCase is one line of testdata/confidence_queries*.jsonl: the
// memories an agent stored about one matter, each with the confidence it
// gave, a query, and the memories (indexes into Memories) that answer it.
//
// Kind says how confidence bears on the answer:
//   - confident: a sure memory and a less sure one compete; the sure one
//     answers (22 cases a half);
//   - unsure: the less sure memory answers, being the more specific one or
//     the sure one being on a neighbouring matter (20 a half);
//   - lone: the one relevant memory is unsure, beside unrelated sure ones
//     (12 a half): weighing confidence must not bury it;
//   - tie: the competing memories are equally sure (10 a half).
//
// The mix leans a little towards the sure memory being right (22 to 20), as
// an honest writer's confidence would, but not so far that weighing it
// could only win. confidence_queries.jsonl is the half a weight is chosen
// on; confidence_queries_heldout.jsonl was written before any weight was
// tried and only confirms the choice.
type confidenceCase struct {
	Kind     string `json:"kind"`
	Query    string `json:"query"`
	Answers  []int  `json:"answers"`
	Memories []struct {
		Text       string  `json:"text"`
		Confidence float64 `json:"confidence"`
	} `json:"memories"`
}

var confidenceKinds = []string{"confident", "unsure", "lone", "tie"}

func loadConfidenceCases(tb testing.TB, file string) []confidenceCase {
	return loadPairs(tb, file, func(c confidenceCase) bool {
		ok := slices.Contains(confidenceKinds, c.Kind) && c.Query != "" && len(c.Answers) > 0 && len(c.Memories) > 1
		for _, a := range c.Answers {
			ok = ok && a >= 0 && a < len(c.Memories)
		}
		for _, m := range c.Memories {
			ok = ok && m.Text != "" && m.Confidence > 0 && m.Confidence <= 1
		}
		return ok
	})
}

// confidenceHalf is one half of the corpus stored as one agent's memory,
// beside the turns of a LoCoMo conversation (all of confidence 1) so that
// ranking is not trivial.
type confidenceHalf struct {
	name    string
	file    string
	agent   string
	pool    int // distractor turns
	cases   []confidenceCase
	answers [][]string // per case, the ids of its answers
}

// loadConfidenceHalves stores both halves in one real SQLite file. The
// write gates that would merge or supersede a case's memories (dedup,
// contradictions) are off: the question is how the memories that stand are
// ranked.
func loadConfidenceHalves(tb testing.TB) (*store.MemoryService, []*confidenceHalf) {
	tb.Helper()
	conv := locomo.Must(tb).Conversations[0]
	db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), store.FileName))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	svc := store.NewMemoryService(db, benchEmbedder())
	svc.Words = store.NewWordVectors(wordvec.New())
	svc.Dedup, svc.Contradictions = false, memory.ContradictionsOff
	halves := []*confidenceHalf{{name: "choose", file: "confidence_queries.jsonl"}, {name: "held-out", file: "confidence_queries_heldout.jsonl"}}
	for _, h := range halves {
		h.agent, h.cases, h.pool = "conf-"+h.name, loadConfidenceCases(tb, h.file), len(conv.Turns)
		ctx := as(memory.Identity{AgentID: h.agent})
		for _, t := range conv.Turns {
			if _, err := svc.Remember(ctx, memory.EntryWrite{Content: t.Text, Category: memory.CategoryEpisodic, OccurredAt: t.Date}); err != nil {
				tb.Fatal(err)
			}
		}
		for _, c := range h.cases {
			ids := make([]string, len(c.Memories))
			for i, m := range c.Memories {
				e, err := svc.Remember(ctx, memory.EntryWrite{Content: m.Text, Confidence: &m.Confidence})
				if err != nil {
					tb.Fatal(err)
				}
				ids[i] = e.ID
			}
			var want []string
			for _, a := range c.Answers {
				want = append(want, ids[a])
			}
			h.answers = append(h.answers, want)
		}
	}
	if _, err := svc.Index.Load(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return svc, halves
}

// confidenceScore is how one ranking fared on one half: R@1 (an answer
// first), MRR (of the first answer in the top 10) and R@5 (the share of the
// answers in the top 5), over all cases and by kind.
type confidenceScore struct {
	r1, mrr, r5 float64
	kinds       map[string]*confidenceScore
	n           int
}

func (s *confidenceScore) add(ranked, want []string) {
	s.n++
	found := 0
	for i, id := range ranked {
		if !slices.Contains(want, id) {
			continue
		}
		if found == 0 {
			s.mrr += 1 / float64(i+1)
			if i == 0 {
				s.r1++
			}
		}
		if i < 5 {
			found++
		}
	}
	s.r5 += float64(found) / float64(len(want))
}

func (s *confidenceScore) mean() {
	for _, x := range []*float64{&s.r1, &s.mrr, &s.r5} {
		*x /= float64(max(s.n, 1))
	}
}

// evaluateConfidence ranks every case of h with svc's retrieval.
func evaluateConfidence(tb testing.TB, svc *store.MemoryService, h *confidenceHalf) confidenceScore {
	all := confidenceScore{kinds: map[string]*confidenceScore{}}
	for _, k := range confidenceKinds {
		all.kinds[k] = &confidenceScore{}
	}
	ctx := as(memory.Identity{AgentID: h.agent})
	for i, c := range h.cases {
		hits, err := svc.Search(ctx, memory.Query{Text: c.Query, Scope: memory.ScopePersonal, Limit: 10})
		if err != nil {
			tb.Fatal(err)
		}
		ranked := make([]string, len(hits))
		for j, hit := range hits {
			ranked[j] = hit.ID
		}
		all.add(ranked, h.answers[i])
		all.kinds[c.Kind].add(ranked, h.answers[i])
	}
	all.mean()
	for _, k := range all.kinds {
		k.mean()
	}
	return all
}

// confidenceVariant is one way of weighing confidence.
type confidenceVariant struct {
	fusion store.Fusion
	list   bool // an RRF list ranked by confidence, not a scaled score
	weight float64
}

func (v confidenceVariant) String() string {
	form := "scale"
	if v.list {
		form = "list"
	}
	return fmt.Sprintf("%s %s w=%g", v.fusion, form, v.weight)
}

// confidenceVariants are the forms and weights measured; the first of each
// fusion (weight 0) is its baseline.
func confidenceVariants() []confidenceVariant {
	var out []confidenceVariant
	for _, w := range []float64{0, 0.1, 0.2, 0.35, 0.5} {
		out = append(out, confidenceVariant{fusion: store.FusionRRF, weight: w})
	}
	for _, w := range []float64{0.1, 0.2, 0.35, 0.5, 1} {
		out = append(out, confidenceVariant{fusion: store.FusionRRF, list: true, weight: w})
	}
	for _, w := range []float64{0, 0.1, 0.2, 0.35, 0.5} {
		out = append(out, confidenceVariant{fusion: store.FusionLinear, weight: w})
	}
	return out
}

// BenchmarkConfidenceRanking prints how weighing a memory's confidence in
// ranking changes retrieval on the labelled corpus, chooses a weight on the
// choosing half by a rule fixed before the held-out half was scored, and
// reports the held-out half's verdict on it.
func BenchmarkConfidenceRanking(b *testing.B) {
	for range b.N {
		svc, halves := loadConfidenceHalves(b)
		defaults := svc.Retrieval
		variants := confidenceVariants()
		scores := make([][]confidenceScore, len(variants))
		for i, v := range variants {
			undo := store.SetConfidenceList(v.list)
			svc.Retrieval = defaults
			svc.Retrieval.Fusion, svc.Retrieval.ConfidenceWeight = v.fusion, v.weight
			for _, h := range halves {
				scores[i] = append(scores[i], evaluateConfidence(b, svc, h))
			}
			undo()
		}
		printConfidence(b, halves, variants, scores)
		chosen := chooseConfidence(variants, scores)
		gained := scores[chosen][0].mrr > scores[0][0].mrr+tieMargin
		fmt.Printf("\nbest on the choosing half: %v, MRR %.4f against %.4f at w=0\n", variants[chosen], scores[chosen][0].mrr, scores[0][0].mrr)
		base, got := scores[0][1], scores[chosen][1]
		fmt.Printf("held out: R@1 %.3f -> %.3f, MRR %.3f -> %.3f, lone R@5 %.3f -> %.3f: %s\n", base.r1, got.r1, base.mrr, got.mrr,
			base.kinds["lone"].r5, got.kinds["lone"].r5, verdict(gained, base, got))
		locomoUnchanged(b, variants[chosen])
		fmt.Println()
	}
}

// tieMargin is the least MRR difference that counts: memory ids are
// random, so exact score ties break differently between runs and move MRR
// by about 0.001; one case moving up one place from second moves it 0.008.
const tieMargin = 0.005

// chooseConfidence applies the rule: of the RRF variants (the default
// fusion) with a weight, the one of highest MRR on the choosing half whose
// lone cases' R@5 is no lower than the baseline's; the earlier (the lighter
// weight, the simpler form) unless a later one beats it by tieMargin.
func chooseConfidence(variants []confidenceVariant, scores [][]confidenceScore) int {
	best := 0
	for i, v := range variants {
		s := scores[i][0]
		if v.fusion != store.FusionRRF || v.weight == 0 || s.kinds["lone"].r5 < scores[0][0].kinds["lone"].r5 {
			continue
		}
		if best == 0 || s.mrr > scores[best][0].mrr+tieMargin {
			best = i
		}
	}
	return best
}

// verdict says whether the held-out half confirms a choice that gained on
// the choosing half: an MRR higher by tieMargin, R@1 no lower, and the lone
// cases' R@5 no lower.
func verdict(gained bool, base, got confidenceScore) string {
	switch {
	case !gained:
		return "nothing to confirm: no weight gains on the choosing half by more than ties move MRR"
	case got.mrr > base.mrr+tieMargin && got.r1 >= base.r1 && got.kinds["lone"].r5 >= base.kinds["lone"].r5:
		return "confirmed"
	}
	return "not confirmed"
}

func printConfidence(b *testing.B, halves []*confidenceHalf, variants []confidenceVariant, scores [][]confidenceScore) {
	fmt.Printf("Confidence in ranking: %d + %d labelled cases beside %d LoCoMo turns (R@1, MRR, R@5; lone R@5; R@1 by kind)\n",
		len(halves[0].cases), len(halves[1].cases), halves[0].pool)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "variant\thalf\tR@1\tMRR\tR@5\tlone R@5")
	for _, k := range confidenceKinds {
		fmt.Fprintf(tw, "\t%s R@1", k)
	}
	fmt.Fprintln(tw, "\t")
	for i, v := range variants {
		for j, h := range halves {
			s := scores[i][j]
			fmt.Fprintf(tw, "%v\t%s\t%.3f\t%.3f\t%.3f\t%.3f", v, h.name, s.r1, s.mrr, s.r5, s.kinds["lone"].r5)
			for _, k := range confidenceKinds {
				fmt.Fprintf(tw, "\t%.3f", s.kinds[k].r1)
			}
			fmt.Fprintln(tw, "\t")
		}
	}
	if err := tw.Flush(); err != nil {
		b.Fatal(err)
	}
}

// locomoUnchanged prints LoCoMo R@10 of conversations 1-5 with and without
// the chosen weighing; every LoCoMo memory has confidence 1, so they must
// be equal.
func locomoUnchanged(b *testing.B, v confidenceVariant) {
	l := loadLoCoMo(b, benchEmbedder())
	defer store.SetConfidenceList(v.list)()
	with := l.defaults
	with.ConfidenceWeight = v.weight
	base, got := l.evaluate(b, "w=0", l.defaults).Pooled(0, 5), l.evaluate(b, v.String(), with).Pooled(0, 5)
	fmt.Printf("LoCoMo conversations 1-5 R@10: %.3f at w=0, %.3f at %v\n", base.R10, got.R10, v)
	if base != got {
		b.Fatalf("LoCoMo, where every confidence is 1, changed: %+v, then %+v", base, got)
	}
}
