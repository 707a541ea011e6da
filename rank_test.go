package memory_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestRRFScore(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ranks   []int
		weights []float64
		k       int
		want    float64
	}{
		{"first in both lists", []int{1, 1}, []float64{1, 1}, 60, 1},
		{"first in one list only", []int{1, 0}, []float64{1, 1}, 60, 0.5},
		{"absent from both", []int{0, 0}, []float64{1, 1}, 60, 0},
		{"second and third", []int{2, 3}, []float64{1, 1}, 60, (1.0/62 + 1.0/63) / (2.0 / 61)},
		{"small k sharpens", []int{2, 0}, []float64{1, 1}, 1, (1.0 / 3) / (2.0 / 2)},
		{"weights", []int{1, 0}, []float64{3, 1}, 60, 0.75},
		{"zero weight list ignored", []int{0, 5}, []float64{1, 0}, 60, 0},
		{"no weight at all", []int{1, 1}, []float64{0, 0}, 60, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := memory.RRFScore(tc.ranks, tc.weights, tc.k); !near(got, tc.want) {
				t.Fatalf("RRFScore(%v, %v, %d) = %v, want %v", tc.ranks, tc.weights, tc.k, got, tc.want)
			}
		})
	}
}

func TestRecency(t *testing.T) {
	ln2 := math.Ln2
	halfLife := time.Duration(ln2 / 0.01 * float64(time.Hour))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		age  time.Duration
		rate float64
		want float64
	}{
		{"now", 0, 0.1, 1},
		{"future counts as now", -time.Hour, 0.1, 1},
		{"one hour", time.Hour, 0.1, math.Exp(-0.1)},
		{"a day at 0.005", 24 * time.Hour, 0.005, math.Exp(-0.12)},
		{"no decay", 1000 * time.Hour, 0, 1},
		{"half-life", halfLife, 0.01, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := memory.Recency(now.Add(-tc.age), now, tc.rate); math.Abs(got-tc.want) > 1e-6 {
				t.Fatalf("Recency(age %v, rate %v) = %v, want %v", tc.age, tc.rate, got, tc.want)
			}
		})
	}
}

func TestLinearScore(t *testing.T) {
	c := memory.DefaultRetrieval()
	c.RelevanceWeight, c.RecencyWeight, c.PersonalBoost = 0.7, 0.3, 0.2
	for _, tc := range []struct {
		name       string
		rel, rec   float64
		personal   bool
		want       float64
		relWeights [2]float64
	}{
		{"shared", 0.5, 1, false, 0.7*0.5 + 0.3, [2]float64{}},
		{"personal boost", 0.5, 1, true, 0.7*0.7 + 0.3, [2]float64{}},
		{"boost capped at 1", 0.9, 0, true, 0.7, [2]float64{}},
		{"all zero", 0, 0, false, 0, [2]float64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := memory.LinearScore(tc.rel, tc.rec, tc.personal, c); !near(got, tc.want) {
				t.Fatalf("LinearScore(%v, %v, %v) = %v, want %v", tc.rel, tc.rec, tc.personal, got, tc.want)
			}
		})
	}
}

func ids(cs []memory.SearchCandidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// rrf60 is RRF with k 60 and the two lists weighed equally.
func rrf60() memory.RetrievalConfig {
	c := memory.DefaultRetrieval()
	c.Fusion, c.RRFK, c.BM25Weight, c.VectorWeight, c.TimeWeight, c.SoftWeight = memory.RRF, 60, 1, 1, 1, 0
	return c
}

func TestFuseRRF(t *testing.T) {
	c := rrf60()
	cands := []memory.SearchCandidate{
		{ID: "bm25-only-1", BM25Rank: 1},
		{ID: "both-2-2", BM25Rank: 2, VectorRank: 2},
		{ID: "vec-only-1", VectorRank: 1},
		{ID: "bm25-only-3", BM25Rank: 3},
	}
	both := memory.Lists{BM25: true, Vector: true}
	memory.Fuse(cands, c, time.Now(), both)
	// Both lists at rank 2 beat first place in one; the two single-list firsts
	// tie and fall back to id order.
	if got := ids(cands); !slices.Equal(got, []string{"both-2-2", "bm25-only-1", "vec-only-1", "bm25-only-3"}) {
		t.Fatalf("order = %v", got)
	}
	if !near(cands[0].Score, (2.0/62)/(2.0/61)) || !near(cands[1].Score, 0.5) {
		t.Fatalf("scores = %v, %v", cands[0].Score, cands[1].Score)
	}

	c.BM25Weight = 2 // BM25 counts double: its first place now beats the vector's
	memory.Fuse(cands, c, time.Now(), both)
	if got := ids(cands); got[1] != "bm25-only-1" || got[2] != "bm25-only-3" {
		t.Fatalf("weighted order = %v", got)
	}
}

// A list counts towards the scale only when it produced candidates: the
// time list when the query named a period with memories in it, the vector
// list when there was a query vector and something above the floor.
func TestFuseCountsOnlyListsThatProduced(t *testing.T) {
	c := rrf60()
	cands := []memory.SearchCandidate{{ID: "a", BM25Rank: 1}, {ID: "b", BM25Rank: 2, TimeRank: 1}}
	memory.Fuse(cands, c, time.Now(), memory.Lists{BM25: true})
	if got := ids(cands); !slices.Equal(got, []string{"a", "b"}) || !near(cands[0].Score, 1) {
		t.Fatalf("untimed: %v %v", got, cands[0].Score)
	}
	memory.Fuse(cands, c, time.Now(), memory.Lists{BM25: true, Time: true})
	if got := ids(cands); !slices.Equal(got, []string{"b", "a"}) || !near(cands[0].Score, (1.0/62+1.0/61)/(2.0/61)) {
		t.Fatalf("timed: %v %v", got, cands[0].Score)
	}
	// BM25 first with nothing else produced: the top scores 1, whatever the
	// vector weight.
	c.VectorWeight = 5
	only := []memory.SearchCandidate{{ID: "a", BM25Rank: 1}, {ID: "b", BM25Rank: 2}}
	memory.Fuse(only, c, time.Now(), memory.Lists{BM25: true})
	if !near(only[0].Score, 1) || !near(only[1].Score, 61.0/62) {
		t.Fatalf("bm25 alone: %v", only)
	}
}

func TestFuseLinear(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := memory.DefaultRetrieval()
	c.Fusion, c.RelevanceWeight, c.RecencyWeight, c.DecayPerHour, c.PersonalBoost = memory.Linear, 0.5, 0.5, 0.1, 0
	cands := []memory.SearchCandidate{
		{ID: "old-exact", BM25: 10, Cosine: 1, OccurredAt: now.Add(-100 * time.Hour)},
		{ID: "new-half", BM25: 5, Cosine: 0.5, OccurredAt: now},
		{ID: "negative-cosine", Cosine: -0.5, OccurredAt: now.Add(-1000 * time.Hour)},
	}
	both := memory.Lists{BM25: true, Vector: true}
	memory.Fuse(cands, c, now, both)
	// old-exact: 0.5·1 + 0.5·e^-10; new-half: 0.5·0.5 + 0.5·1.
	if got := ids(cands); !slices.Equal(got, []string{"new-half", "old-exact", "negative-cosine"}) {
		t.Fatalf("order = %v", got)
	}
	if !near(cands[0].Score, 0.75) || !near(cands[1].Score, 0.5+0.5*math.Exp(-10)) || cands[2].Score > 1e-9 {
		t.Fatalf("scores = %v", []float64{cands[0].Score, cands[1].Score, cands[2].Score})
	}

	// The personal boost lifts the caller's own memory over an equal shared one.
	c.PersonalBoost = 0.2
	eq := []memory.SearchCandidate{{ID: "a-shared", BM25: 1, OccurredAt: now}, {ID: "b-mine", BM25: 1, OccurredAt: now, Personal: true}}
	memory.Fuse(eq, c, now, both)
	if eq[0].ID != "b-mine" {
		t.Fatalf("boost order = %v", ids(eq))
	}
}

func TestBigramJaccard(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want float64
	}{
		{"the quick brown fox", "the quick brown fox", 1},
		{"The Quick, brown fox!", "the quick brown fox", 1},
		{"the quick brown fox", "the quick red fox", 1.0 / 5},
		{"alpha beta", "gamma delta", 0},
		{"single", "single", 0}, // no bigrams in one word
		{"", "", 0},
	} {
		if got := memory.Jaccard(memory.Bigrams(tc.a), memory.Bigrams(tc.b)); !near(got, tc.want) {
			t.Errorf("Jaccard(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestMMR(t *testing.T) {
	cands := []memory.SearchCandidate{
		{ID: "a", Score: 1.0, Text: "deploy the api with blue green"},
		{ID: "a-dup", Score: 0.95, Text: "deploy the api with blue green today"},
		{ID: "b", Score: 0.8, Text: "rotate database credentials monthly"},
		{ID: "c", Score: 0.7, Text: "lunch is at noon"},
	}
	for _, tc := range []struct {
		name   string
		lambda float64
		limit  int
		want   []string
	}{
		{"pure relevance keeps order", 1, 4, []string{"a", "a-dup", "b", "c"}},
		{"diversity demotes the near-duplicate", 0.7, 3, []string{"a", "b", "c"}},
		{"limit cuts", 0.7, 2, []string{"a", "b"}},
		{"limit above length", 0.7, 10, []string{"a", "b", "c", "a-dup"}},
		{"empty", 0.7, 0, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ids(memory.MMR(cands, tc.lambda, tc.limit)); !slices.Equal(got, tc.want) {
				t.Fatalf("MMR(λ=%v, %d) = %v, want %v", tc.lambda, tc.limit, got, tc.want)
			}
		})
	}
}

func TestRetrievalConfigValidate(t *testing.T) {
	if err := memory.DefaultRetrieval().Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*memory.RetrievalConfig)
		want string
	}{
		{"fusion", func(c *memory.RetrievalConfig) { c.Fusion = "max" }, `unknown fusion "max"`},
		{"rrf k", func(c *memory.RetrievalConfig) { c.RRFK = 0 }, "rrf_k 0 is out of range"},
		{"weights", func(c *memory.RetrievalConfig) { c.BM25Weight, c.VectorWeight = 0, 0 }, "not both be zero"},
		{"negative weight", func(c *memory.RetrievalConfig) { c.VectorWeight = -1 }, "vector_weight -1 is negative"},
		{"NaN bm25 weight", func(c *memory.RetrievalConfig) { c.BM25Weight = math.NaN() }, "bm25_weight NaN is not a finite number"},
		{"infinite vector weight", func(c *memory.RetrievalConfig) { c.VectorWeight = math.Inf(1) }, "vector_weight +Inf is not a finite number"},
		{"infinite soft weight", func(c *memory.RetrievalConfig) { c.SoftWeight = math.Inf(1) }, "soft_weight +Inf is not a finite number"},
		{"infinite time weight", func(c *memory.RetrievalConfig) { c.TimeWeight = math.Inf(1) }, "time_weight +Inf"},
		{"NaN decay", func(c *memory.RetrievalConfig) { c.DecayPerHour = math.NaN() }, "recency_decay NaN"},
		{"vector floor", func(c *memory.RetrievalConfig) { c.VectorFloor = 1.5 }, "vector_floor 1.5 is out of range: use -1 to 1"},
		{"weight sum", func(c *memory.RetrievalConfig) { c.RelevanceWeight = 0.5 }, "must sum to 1"},
		{"min relevance", func(c *memory.RetrievalConfig) { c.MinRelevance = 2 }, "min_relevance 2 is out of range"},
		{"lambda", func(c *memory.RetrievalConfig) { c.DiversityLambda = -1 }, "diversity_lambda -1"},
		{"decay", func(c *memory.RetrievalConfig) { c.DecayPerHour = -1 }, "recency_decay -1 is negative"},
		{"pool multiplier", func(c *memory.RetrievalConfig) { c.PoolMultiplier = 0 }, "pool multiplier 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := memory.DefaultRetrieval()
			tc.edit(&c)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want %q", err, tc.want)
			}
		})
	}
}
