package store

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

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
			if got := recency(now.Add(-tc.age), now, tc.rate); math.Abs(got-tc.want) > 1e-6 {
				t.Fatalf("Recency(age %v, rate %v) = %v, want %v", tc.age, tc.rate, got, tc.want)
			}
		})
	}
}

func TestLinearScore(t *testing.T) {
	c := DefaultRetrieval()
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
			if got := linearScore(tc.rel, tc.rec, tc.personal, c); !approx(got, tc.want) {
				t.Fatalf("linearScore(%v, %v, %v) = %v, want %v", tc.rel, tc.rec, tc.personal, got, tc.want)
			}
		})
	}
}

func candidateIDs(cs []scored) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// rrf60 is RRF with k 60 and the two lists weighed equally.
func rrf60() RetrievalConfig {
	c := DefaultRetrieval()
	c.Fusion, c.RRFK, c.BM25Weight, c.VectorWeight, c.TimeWeight, c.SoftWeight = FusionRRF, 60, 1, 1, 1, 0
	return c
}

func TestFuseRRF(t *testing.T) {
	c := rrf60()
	cands := []scored{
		{ID: "bm25-only-1", BM25Rank: 1},
		{ID: "both-2-2", BM25Rank: 2, VectorRank: 2},
		{ID: "vec-only-1", VectorRank: 1},
		{ID: "bm25-only-3", BM25Rank: 3},
	}
	both := ranLists{BM25: true, Vector: true}
	fuse(cands, c, time.Now(), both)
	// Both lists at rank 2 beat first place in one; the two single-list firsts
	// tie and fall back to id order.
	if got := candidateIDs(cands); !slices.Equal(got, []string{"both-2-2", "bm25-only-1", "vec-only-1", "bm25-only-3"}) {
		t.Fatalf("order = %v", got)
	}
	if !approx(cands[0].Score, (2.0/62)/(2.0/61)) || !approx(cands[1].Score, 0.5) {
		t.Fatalf("scores = %v, %v", cands[0].Score, cands[1].Score)
	}

	c.BM25Weight = 2 // BM25 counts double: its first place now beats the vector's
	fuse(cands, c, time.Now(), both)
	if got := candidateIDs(cands); got[1] != "bm25-only-1" || got[2] != "bm25-only-3" {
		t.Fatalf("weighted order = %v", got)
	}
}

// A list counts towards the scale only when it produced candidates: the
// time list when the query named a period with memories in it, the vector
// list when there was a query vector and something above the floor.
func TestFuseCountsOnlyListsThatProduced(t *testing.T) {
	c := rrf60()
	cands := []scored{{ID: "a", BM25Rank: 1}, {ID: "b", BM25Rank: 2, TimeRank: 1}}
	fuse(cands, c, time.Now(), ranLists{BM25: true})
	if got := candidateIDs(cands); !slices.Equal(got, []string{"a", "b"}) || !approx(cands[0].Score, 1) {
		t.Fatalf("untimed: %v %v", got, cands[0].Score)
	}
	fuse(cands, c, time.Now(), ranLists{BM25: true, Time: true})
	if got := candidateIDs(cands); !slices.Equal(got, []string{"b", "a"}) || !approx(cands[0].Score, (1.0/62+1.0/61)/(2.0/61)) {
		t.Fatalf("timed: %v %v", got, cands[0].Score)
	}
	// BM25 first with nothing else produced: the top scores 1, whatever the
	// vector weight.
	c.VectorWeight = 5
	only := []scored{{ID: "a", BM25Rank: 1}, {ID: "b", BM25Rank: 2}}
	fuse(only, c, time.Now(), ranLists{BM25: true})
	if !approx(only[0].Score, 1) || !approx(only[1].Score, 61.0/62) {
		t.Fatalf("bm25 alone: %v", only)
	}
}

func TestFuseLinear(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := DefaultRetrieval()
	c.Fusion, c.RelevanceWeight, c.RecencyWeight, c.DecayPerHour, c.PersonalBoost = FusionLinear, 0.5, 0.5, 0.1, 0
	cands := []scored{
		{ID: "old-exact", BM25: 10, Cosine: 1, OccurredAt: now.Add(-100 * time.Hour)},
		{ID: "new-half", BM25: 5, Cosine: 0.5, OccurredAt: now},
		{ID: "negative-cosine", Cosine: -0.5, OccurredAt: now.Add(-1000 * time.Hour)},
	}
	both := ranLists{BM25: true, Vector: true}
	fuse(cands, c, now, both)
	// old-exact: 0.5·1 + 0.5·e^-10; new-half: 0.5·0.5 + 0.5·1.
	if got := candidateIDs(cands); !slices.Equal(got, []string{"new-half", "old-exact", "negative-cosine"}) {
		t.Fatalf("order = %v", got)
	}
	if !approx(cands[0].Score, 0.75) || !approx(cands[1].Score, 0.5+0.5*math.Exp(-10)) || cands[2].Score > 1e-9 {
		t.Fatalf("scores = %v", []float64{cands[0].Score, cands[1].Score, cands[2].Score})
	}

	// The personal boost lifts the caller's own memory over an equal shared one.
	c.PersonalBoost = 0.2
	eq := []scored{{ID: "a-shared", BM25: 1, OccurredAt: now}, {ID: "b-mine", BM25: 1, OccurredAt: now, Personal: true}}
	fuse(eq, c, now, both)
	if eq[0].ID != "b-mine" {
		t.Fatalf("boost order = %v", candidateIDs(eq))
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
		if got := jaccard(bigrams(tc.a), bigrams(tc.b)); !approx(got, tc.want) {
			t.Errorf("jaccard(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestMMR(t *testing.T) {
	cands := []scored{
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
			if got := candidateIDs(mmr(cands, tc.lambda, tc.limit)); !slices.Equal(got, tc.want) {
				t.Fatalf("mmr(λ=%v, %d) = %v, want %v", tc.lambda, tc.limit, got, tc.want)
			}
		})
	}
}

func TestRetrievalConfigValidate(t *testing.T) {
	if err := DefaultRetrieval().Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*RetrievalConfig)
		want string
	}{
		{"fusion", func(c *RetrievalConfig) { c.Fusion = "max" }, `unknown fusion "max"`},
		{"rrf k", func(c *RetrievalConfig) { c.RRFK = 0 }, "rrf_k 0 is out of range"},
		{"weights", func(c *RetrievalConfig) { c.BM25Weight, c.VectorWeight = 0, 0 }, "not both be zero"},
		{"negative weight", func(c *RetrievalConfig) { c.VectorWeight = -1 }, "vector_weight -1 is negative"},
		{"NaN bm25 weight", func(c *RetrievalConfig) { c.BM25Weight = math.NaN() }, "bm25_weight NaN is not a finite number"},
		{"infinite vector weight", func(c *RetrievalConfig) { c.VectorWeight = math.Inf(1) }, "vector_weight +Inf is not a finite number"},
		{"infinite soft weight", func(c *RetrievalConfig) { c.SoftWeight = math.Inf(1) }, "soft_weight +Inf is not a finite number"},
		{"infinite time weight", func(c *RetrievalConfig) { c.TimeWeight = math.Inf(1) }, "time_weight +Inf"},
		{"NaN decay", func(c *RetrievalConfig) { c.DecayPerHour = math.NaN() }, "recency_decay NaN"},
		{"vector floor", func(c *RetrievalConfig) { c.VectorFloor = 1.5 }, "vector_floor 1.5 is out of range: use -1 to 1"},
		{"weight sum", func(c *RetrievalConfig) { c.RelevanceWeight = 0.5 }, "must sum to 1"},
		{"min relevance", func(c *RetrievalConfig) { c.MinRelevance = 2 }, "min_relevance 2 is out of range"},
		{"lambda", func(c *RetrievalConfig) { c.DiversityLambda = -1 }, "diversity_lambda -1"},
		{"decay", func(c *RetrievalConfig) { c.DecayPerHour = -1 }, "recency_decay -1 is negative"},
		{"pool multiplier", func(c *RetrievalConfig) { c.PoolMultiplier = 0 }, "pool multiplier 0"},
		{"confidence weight", func(c *RetrievalConfig) { c.ConfidenceWeight = 1.5 }, "confidence_weight 1.5 is out of range: use 0 to 1"},
		{"NaN confidence weight", func(c *RetrievalConfig) { c.ConfidenceWeight = math.NaN() }, "confidence_weight NaN is not a finite number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultRetrieval()
			tc.edit(&c)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want %q", err, tc.want)
			}
		})
	}
}

// Where every memory is equally sure, weighing confidence changes no
// order, at any weight, in either form and either fusion. (At weight 1 a
// confidence of 0 scores every memory 0, so confidences are drawn above 0.)
func TestEqualConfidenceKeepsTheOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	now := time.Now()
	all := ranLists{BM25: true, Vector: true, Time: true, Soft: true}
	for trial := range 500 {
		n := 2 + r.IntN(30)
		conf := 1 - r.Float64() // (0, 1]
		if trial%5 == 0 {
			conf = []float64{0.5, 1}[trial%2]
		}
		cands := make([]scored, n)
		for i := range cands {
			rankOrNone := func() int { return r.IntN(n+1) * r.IntN(2) }
			cands[i] = scored{ID: string(rune('a' + i)), BM25Rank: 1 + r.IntN(n), BM25: r.Float64() * 10,
				VectorRank: rankOrNone(), Cosine: r.Float64(), TimeRank: rankOrNone(), SoftRank: rankOrNone(),
				OccurredAt: now.Add(-time.Duration(r.IntN(1000)) * time.Hour), Personal: r.IntN(2) == 0, Confidence: conf, known: true}
		}
		for _, fusion := range []Fusion{FusionRRF, FusionLinear} {
			for _, list := range []bool{false, true} {
				c := DefaultRetrieval()
				c.Fusion = fusion
				base := slices.Clone(cands)
				fuse(base, c, now, all)
				c.ConfidenceWeight = r.Float64()
				confidenceList = list
				got := slices.Clone(cands)
				fuse(got, c, now, all)
				confidenceList = false
				if !slices.EqualFunc(base, got, func(a, b scored) bool { return a.ID == b.ID }) {
					t.Fatalf("trial %d, %s, list %v, weight %v, confidence %v: order %v became %v",
						trial, fusion, list, c.ConfidenceWeight, conf, ids(base), ids(got))
				}
			}
		}
	}
}

func ids(cands []scored) []string {
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.ID
	}
	return out
}

// Of two equally relevant candidates the surer ranks first; a clearly more
// relevant one keeps its place over a surer one at a light weight.
func TestFuseWeighsConfidence(t *testing.T) {
	now := time.Now()
	for _, fusion := range []Fusion{FusionRRF, FusionLinear} {
		c := DefaultRetrieval()
		c.Fusion, c.ConfidenceWeight = fusion, 0.1
		tied := []scored{{ID: "a-unsure", BM25Rank: 1, BM25: 5, Confidence: 0.5, OccurredAt: now},
			{ID: "b-sure", BM25Rank: 1, BM25: 5, Confidence: 1, OccurredAt: now}}
		fuse(tied, c, now, ranLists{BM25: true})
		if tied[0].ID != "b-sure" || !(tied[0].Score > tied[1].Score) {
			t.Errorf("%s: tied candidates ranked %v, scores %v and %v", fusion, ids(tied), tied[0].Score, tied[1].Score)
		}
		apart := []scored{{ID: "a-unsure", BM25Rank: 1, BM25: 9, Confidence: 0.5, OccurredAt: now},
			{ID: "b-sure", BM25Rank: 5, BM25: 3, Confidence: 1, OccurredAt: now}}
		fuse(apart, c, now, ranLists{BM25: true})
		if apart[0].ID != "a-unsure" {
			t.Errorf("%s: the more relevant but unsure candidate lost its place: %v", fusion, ids(apart))
		}
	}
}
