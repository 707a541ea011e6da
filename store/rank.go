package store

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/score"
)

// Fusion names how the BM25 and vector candidate lists become one ranking.
type Fusion string

// Fusion strategies (seed 004's FusionStrategy).
const (
	// FusionRRF is reciprocal rank fusion: only ranks count, so BM25 scores and
	// cosines, which live on different scales, never have to be compared.
	FusionRRF Fusion = "rrf"
	// FusionLinear combines normalised relevance with recency decay and a boost
	// for the caller's own memories.
	FusionLinear Fusion = "linear"
)

// ParseFusion validates a fusion strategy name.
func ParseFusion(s string) (Fusion, error) {
	switch f := Fusion(strings.ToLower(strings.TrimSpace(s))); f {
	case FusionRRF, FusionLinear:
		return f, nil
	}
	return "", memory.Errorf(memory.EINVALID, "unknown fusion %q: use rrf or linear", s)
}

// RetrievalConfig tunes hybrid retrieval (seed 004's MemoryRetrievalConfig).
// The defaults were chosen on the LoCoMo benchmark; see the README.
type RetrievalConfig struct {
	Fusion Fusion
	// RRFK is the RRF smoothing constant: score = Σ weight/(k + rank).
	RRFK int
	// BM25Weight and VectorWeight weigh the two candidate lists, in RRF and
	// in LINEAR's relevance alike. A zero weight switches a list off.
	BM25Weight, VectorWeight float64
	// VectorFloor is the least cosine at which the vector list adds a
	// memory no keyword matched; below it, a nearest neighbour is only the
	// least unrelated memory. Memories BM25 found keep their vector rank.
	// The server sets it from the embedder (Embedder.Floor) unless
	// configured; 1 admits no memory on its vector alone.
	VectorFloor float64
	// SoftWeight weighs an RRF list that ranks the other lists' candidates
	// by soft term matching (word vectors). 0 switches it off.
	SoftWeight float64
	// TimeWeight weighs a third RRF list when the query names a period (see
	// timeHint): BM25 over the memories that occurred in it. 0 switches it off.
	TimeWeight float64
	// RelevanceWeight and RecencyWeight (LINEAR) sum to 1.
	RelevanceWeight, RecencyWeight float64
	// DecayPerHour is the exponential recency decay rate (LINEAR).
	DecayPerHour float64
	// PersonalBoost is added to the relevance of the caller's own memories (LINEAR).
	PersonalBoost float64
	// MinRelevance drops hits whose fused score is below it.
	MinRelevance float64
	// Diversity turns on MMR re-ranking over PoolMultiplier × limit candidates.
	Diversity       bool
	DiversityLambda float64
	PoolMultiplier  int
	// Pool is how many candidates each list contributes before fusion (at
	// least the limit times the pool multiplier).
	Pool int
	// ConfidenceWeight, from 0 to 1, lowers a memory's fused score in
	// proportion to the doubt its writer gave it: score × (1 − w·(1 −
	// confidence)). Where every confidence is equal it changes no order.
	// It stays 0 and is no server setting: measured on a labelled corpus
	// (BenchmarkConfidenceRanking), no weight chosen on one half ranked
	// better on the held-out half (see the README).
	ConfidenceWeight float64
}

// DefaultRetrieval returns the tuned defaults.
func DefaultRetrieval() RetrievalConfig {
	return RetrievalConfig{
		Fusion:          FusionRRF,
		RRFK:            10,
		BM25Weight:      1,
		VectorWeight:    0.35,
		TimeWeight:      2,
		SoftWeight:      1,
		RelevanceWeight: 0.8,
		RecencyWeight:   0.2,
		DecayPerHour:    0.005,
		PersonalBoost:   0.1,
		MinRelevance:    0,
		Diversity:       false,
		DiversityLambda: 0.7,
		PoolMultiplier:  3,
		Pool:            100,
	}
}

// Validate checks every knob's range. Every number must be finite: a NaN
// or infinite weight would make every score NaN and every search empty.
func (c RetrievalConfig) Validate() error {
	if _, err := ParseFusion(string(c.Fusion)); err != nil {
		return err
	}
	if c.RRFK < 1 || c.RRFK > 1000 {
		return memory.Errorf(memory.EINVALID, "rrf_k %d is out of range: use 1 to 1000", c.RRFK)
	}
	for _, k := range []struct {
		name   string
		v      float64
		lo, hi float64
	}{
		{"bm25_weight", c.BM25Weight, 0, math.MaxFloat64}, {"vector_weight", c.VectorWeight, 0, math.MaxFloat64},
		{"time_weight", c.TimeWeight, 0, math.MaxFloat64}, {"soft_weight", c.SoftWeight, 0, math.MaxFloat64},
		{"vector_floor", c.VectorFloor, -1, 1}, {"recency_decay", c.DecayPerHour, 0, math.MaxFloat64},
		{"relevance_weight", c.RelevanceWeight, 0, 1}, {"recency_weight", c.RecencyWeight, 0, 1},
		{"personal_boost", c.PersonalBoost, 0, 1}, {"min_relevance", c.MinRelevance, 0, 1},
		{"diversity_lambda", c.DiversityLambda, 0, 1}, {"confidence_weight", c.ConfidenceWeight, 0, 1},
	} {
		if err := checkRange(k.name, k.v, k.lo, k.hi); err != nil {
			return err
		}
	}
	if c.BM25Weight+c.VectorWeight == 0 {
		return memory.Errorf(memory.EINVALID, "bm25 and vector weights must not both be zero: one list must find the candidates")
	}
	if math.Abs(c.RelevanceWeight+c.RecencyWeight-1) > 1e-6 {
		return memory.Errorf(memory.EINVALID, "relevance_weight %v + recency_weight %v must sum to 1", c.RelevanceWeight, c.RecencyWeight)
	}
	if c.PoolMultiplier < 1 || c.PoolMultiplier > 20 {
		return memory.Errorf(memory.EINVALID, "pool multiplier %d is out of range: use 1 to 20", c.PoolMultiplier)
	}
	if c.Pool < 1 || c.Pool > 10000 {
		return memory.Errorf(memory.EINVALID, "candidate pool %d is out of range: use 1 to 10000", c.Pool)
	}
	return nil
}

// checkRange rejects a number that is not finite or lies outside [lo, hi]
// (hi math.MaxFloat64: no upper bound).
func checkRange(name string, v, lo, hi float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return memory.Errorf(memory.EINVALID, "%s %v is not a finite number", name, v)
	case v < lo && lo == 0:
		return memory.Errorf(memory.EINVALID, "%s %v is negative", name, v)
	case v < lo || v > hi:
		return memory.Errorf(memory.EINVALID, "%s %v is out of range: use %v to %v", name, v, lo, hi)
	}
	return nil
}

// scored is one memory found by BM25, by vector similarity or both, on its
// way to a fused score.
type scored struct {
	ID         string
	BM25Rank   int     // 1-based rank in the BM25 list; 0 when absent
	BM25       float64 // BM25 score, higher is better (negated FTS5 bm25())
	VectorRank int     // 1-based rank in the vector list; 0 when absent
	Cosine     float64
	TimeRank   int // 1-based rank in the list of memories in the query's period; 0 when absent
	SoftRank   int // 1-based rank by soft term matching; 0 when absent
	OccurredAt time.Time
	Personal   bool   // the caller's own memory (LINEAR's personal boost)
	Text       string // for MMR's similarity
	// Confidence is the memory's confidence, read only when ranking weighs
	// it (known says it was read).
	Confidence float64
	known      bool
	Score      float64
}

// recency is exp(-rate × age in hours): 1 now, decaying towards 0. Future
// times count as now.
func recency(at, now time.Time, perHour float64) float64 {
	hours := now.Sub(at).Hours()
	if hours <= 0 {
		return 1
	}
	return math.Exp(-perHour * hours)
}

// linearScore is seed 004's LINEAR combination: relevance (plus the personal
// boost, capped at 1) weighted against recency, clamped to [0, 1].
func linearScore(relevance, recency float64, personal bool, c RetrievalConfig) float64 {
	if personal {
		relevance = math.Min(1, relevance+c.PersonalBoost)
	}
	return clamp01(c.RelevanceWeight*relevance + c.RecencyWeight*recency)
}

// ranLists says which rankings produced at least one candidate. Only those
// count towards the score's scale: a list that found nothing cannot have
// ranked the best memory first.
type ranLists struct{ BM25, Vector, Time, Soft bool }

// weights are c's list weights, 0 for the lists that produced nothing, in
// the order BM25, vector, time, soft.
func (ran ranLists) weights(c RetrievalConfig) []float64 {
	w := []float64{0, 0, 0, 0}
	for i, on := range []bool{ran.BM25, ran.Vector, ran.Time, ran.Soft} {
		if on {
			w[i] = []float64{c.BM25Weight, c.VectorWeight, c.TimeWeight, c.SoftWeight}[i]
		}
	}
	return w
}

// fuse scores the candidates by c's strategy and sorts them best first; ties
// go to the better single-list rank, then to the id, so results are stable.
// LINEAR has recency instead of the optional lists.
func fuse(cands []scored, c RetrievalConfig, now time.Time, ran ranLists) {
	maxBM25 := 0.0
	for _, cd := range cands {
		maxBM25 = math.Max(maxBM25, cd.BM25)
	}
	weights := ran.weights(c)
	for i := range cands {
		cd := &cands[i]
		if c.Fusion == FusionLinear {
			cd.Score = linearScore(linearRelevance(cd, maxBM25, c, ran), recency(cd.OccurredAt, now, c.DecayPerHour), cd.Personal, c)
		} else {
			cd.Score = score.RRF([]int{cd.BM25Rank, cd.VectorRank, cd.TimeRank, cd.SoftRank}, weights, c.RRFK)
		}
	}
	weighConfidence(cands, c, weights)
	slices.SortStableFunc(cands, func(a, b scored) int {
		if d := cmp.Compare(b.Score, a.Score); d != 0 {
			return d
		}
		if d := cmp.Compare(bestRank(a), bestRank(b)); d != 0 {
			return d
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// confidenceList, when set, weighs confidence as one more RRF list (the
// candidates ranked by confidence, equal confidences sharing a rank)
// instead of scaling the fused score. Only the benchmark sets it: it is the
// alternative the scaling was measured against (see the README).
var confidenceList bool

// weighConfidence applies c.ConfidenceWeight to the fused scores; weights
// are RRF's list weights.
func weighConfidence(cands []scored, c RetrievalConfig, weights []float64) {
	w := c.ConfidenceWeight
	if w == 0 {
		return
	}
	if confidenceList && c.Fusion == FusionRRF {
		addConfidenceList(cands, c.RRFK, weights, w)
		return
	}
	for i := range cands {
		cands[i].Score *= 1 - w*(1-cands[i].Confidence)
	}
}

// addConfidenceList fuses into each RRF score the candidate's reciprocal
// rank by confidence, weighed w, keeping rrfScore's scale (first place in
// every list scores 1).
func addConfidenceList(cands []scored, k int, weights []float64, w float64) {
	var max float64
	for _, x := range weights {
		max += x / float64(k+1)
	}
	for i := range cands {
		rank := 1
		for _, o := range cands {
			if o.Confidence > cands[i].Confidence {
				rank++
			}
		}
		cands[i].Score = (cands[i].Score*max + w/float64(k+rank)) / (max + w/float64(k+1))
	}
}

// linearRelevance is the weighted mean of the BM25 score relative to the best
// in the pool and the (non-negative) cosine, over the lists that produced
// candidates.
func linearRelevance(cd *scored, maxBM25 float64, c RetrievalConfig, ran ranLists) float64 {
	w := ran.weights(c)
	if w[0]+w[1] == 0 {
		return 0
	}
	var bm float64
	if maxBM25 > 0 {
		bm = cd.BM25 / maxBM25
	}
	return clamp01((w[0]*bm + w[1]*math.Max(0, cd.Cosine)) / (w[0] + w[1]))
}

func bestRank(c scored) int {
	r := math.MaxInt
	for _, x := range []int{c.BM25Rank, c.VectorRank, c.TimeRank, c.SoftRank} {
		if x > 0 && x < r {
			r = x
		}
	}
	return r
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }

// bigrams returns the set of adjacent lower-case word pairs in text.
func bigrams(text string) map[string]struct{} {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
	out := make(map[string]struct{}, len(words))
	for i := 1; i < len(words); i++ {
		out[words[i-1]+" "+words[i]] = struct{}{}
	}
	return out
}

// jaccard is |a∩b| / |a∪b|, 0 when both are empty.
func jaccard(a, b map[string]struct{}) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for k := range a {
		if _, ok := b[k]; ok {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// mmr re-ranks sorted candidates by maximal marginal relevance and returns at
// most limit of them: each step takes the candidate maximising
// λ·score − (1−λ)·(its highest word-bigram Jaccard with those already taken).
func mmr(cands []scored, lambda float64, limit int) []scored {
	grams := make([]map[string]struct{}, len(cands))
	for i, c := range cands {
		grams[i] = bigrams(c.Text)
	}
	taken := make([]bool, len(cands))
	maxSim := make([]float64, len(cands))
	out := make([]scored, 0, min(limit, len(cands)))
	for len(out) < limit && len(out) < len(cands) {
		best, bestScore := -1, math.Inf(-1)
		for i, c := range cands {
			if taken[i] {
				continue
			}
			if s := lambda*c.Score - (1-lambda)*maxSim[i]; s > bestScore {
				best, bestScore = i, s
			}
		}
		taken[best] = true
		out = append(out, cands[best])
		for i := range cands {
			if !taken[i] {
				maxSim[i] = math.Max(maxSim[i], jaccard(grams[i], grams[best]))
			}
		}
	}
	return out
}
