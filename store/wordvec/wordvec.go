// Package wordvec is memory-mcp's offline default embedder: static GloVe
// word vectors compiled into the binary (glove100.bin, made by
// scripts/wordvec, which also holds the attribution), no network and no
// model download.
//
// A text's vector is the SIF-weighted mean of its words' vectors (Arora,
// Liang and Ma, "A Simple but Tough-to-Beat Baseline for Sentence
// Embeddings", ICLR 2017), where the word vectors have had the directions
// every word shares removed offline and are scaled to unit length. The mean
// m (|m| <= 1) is then lifted onto the unit sphere one dimension up,
// [m, sqrt(R²-|m|²)] / R, so that the cosine of two lifted vectors ranks
// texts by the Euclidean distance between their means rather than by the
// angle alone: a short text whose mean is one strong word no longer sits
// close to every query that shares that word. On LoCoMo this is worth
// +3 points of R@10 when fused with BM25 (see BenchmarkLoCoMoVectors).
//
// Two consequences for callers. Cosines are compressed: on LoCoMo, query to
// memory cosines lie between 0.95 and 0.99 (5th to 95th percentile), so rank
// by them or rescale them within a candidate pool, and do not apply absolute
// thresholds meant for other embedders. A text without words (empty,
// punctuation only) embeds as the pole [0, ..., 0, 1], a valid unit vector;
// nothing ever embeds as NaN.
package wordvec

import (
	"context"
	"hash/fnv"
	"math"
	"sync"

	memory "github.com/memory-mcp/memory-mcp"
)

// ID names the vectors this package makes. It changes whenever they would:
// a new table, tokeniser, weighting or lift.
const ID = "wordvec-glove100-v1"

// Dim is the length of every vector: the table's 100 plus the lift.
const Dim = 101

// New returns the default embedder. The table is decoded on the first call
// of Embed (about 20 ms), not here, so a server that never embeds pays nothing.
func New() memory.Embedder {
	// Averaged word vectors put every English text close together: on
	// LoCoMo the best match of an off-topic query scores 0.95 to 0.98,
	// as high as the turns that answer a real question. So these vectors
	// re-rank the memories that words found and never find one alone.
	return memory.Embedder{ID: ID, Dim: Dim, Embed: embed, Floor: 1}
}

// params are the embedding choices, measured on LoCoMo (see the benchmark).
type params struct {
	a          float64 // SIF smoothing: word weight a/(a+p(w))
	radius     float64 // lift radius R; 0 leaves the 100-d mean as it is (cosine of means)
	oovNorm    float64 // length of the hashed vector of a word the table lacks
	numberRank int     // frequency rank assumed for numbers, which the table lacks
}

var defaults = params{a: 3e-4, radius: 2, oovNorm: 0.5, numberRank: 1000}

var defaultEmbedder = sync.OnceValues(func() (*embedder, error) {
	t, err := loadTable()
	if err != nil {
		return nil, err
	}
	return newEmbedder(t, defaults), nil
})

func embed(ctx context.Context, texts []string) ([][]float32, error) {
	e, err := defaultEmbedder()
	if err != nil {
		return nil, err
	}
	return e.embed(ctx, texts)
}

// embed is an EmbedFunc; it checks ctx between chunks of 1024 texts.
func (e *embedder) embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, text := range texts {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = e.vector(text)
	}
	return out, nil
}

// embedder turns texts into vectors with one table and one set of params.
type embedder struct {
	t *table
	p params
	// coef[i] is the SIF weight of word i times its quantisation step, so
	// that a word adds coef * int8 to the sum.
	coef      []float32
	weight    []float32
	oovWeight float32
	numWeight float32
	// factor, if set, multiplies the weights of the words it names by
	// their hashes (Weighted).
	factor map[uint64]float32
	hasher wordHasher
}

func newEmbedder(t *table, p params) *embedder {
	e := &embedder{t: t, p: p, coef: make([]float32, len(t.ranks)), weight: make([]float32, len(t.ranks))}
	for i, r := range t.ranks {
		e.weight[i] = e.sif(int(r))
		e.coef[i] = e.weight[i] * t.steps[i]
	}
	e.oovWeight = e.sif(t.vocab) // rarer than any word in the source
	e.numWeight = e.sif(p.numberRank)
	return e
}

// sif is the weight a/(a+p) of the word of frequency rank r, its
// probability p estimated by Zipf's law over the source vocabulary (GloVe
// lists words most frequent first: see TestTableIsFrequencyOrdered).
func (e *embedder) sif(rank int) float32 {
	h := math.Log(float64(e.t.vocab)) + 0.5772156649 // harmonic number H(vocab)
	p := 1 / (float64(rank+1) * h)
	if e.p.a == 0 {
		return 1
	}
	return float32(e.p.a / (e.p.a + p))
}

// vector embeds one text. A text without words (empty, punctuation only)
// gets the pole [0, ..., 0, 1]: a valid unit vector, the same for all such
// texts, never NaN.
func (e *embedder) vector(text string) []float32 {
	dim := e.t.dim
	v := make([]float32, dim+1)
	var total float32
	e.t.tokens(text, func(w string) {
		f := float32(1)
		if e.factor != nil {
			if g, ok := e.factor[e.hasher.hash(w)]; ok {
				f = g
			}
		}
		if i, ok := e.t.index[w]; ok {
			row := e.t.quant[int(i)*dim : int(i+1)*dim]
			c := e.coef[i] * f
			for d := range dim {
				v[d] += c * float32(int8(row[d]))
			}
			total += e.weight[i] * f
			return
		}
		if e.p.oovNorm == 0 {
			return
		}
		wt := e.oovWeight
		if hasDigit(w) {
			wt = e.numWeight
		}
		wt *= f
		addHashed(v[:dim], w, wt*float32(e.p.oovNorm))
		total += wt
	})
	if total > 0 {
		for d := range dim {
			v[d] /= total
		}
	}
	return e.lift(v)
}

// lift sets the last coordinate of v (the mean in v[:dim]) and scales v to
// unit length.
func (e *embedder) lift(v []float32) []float32 {
	dim := len(v) - 1
	var m2 float64
	for _, x := range v[:dim] {
		m2 += float64(x) * float64(x)
	}
	if e.p.radius > 0 {
		v[dim] = float32(math.Sqrt(math.Max(e.p.radius*e.p.radius-m2, 0)))
		m2 += float64(v[dim]) * float64(v[dim])
	}
	if m2 == 0 {
		v[dim] = 1
		return v
	}
	inv := float32(1 / math.Sqrt(m2))
	for d := range v {
		v[d] *= inv
	}
	return v
}

// addHashed adds s times a vector of length 1 that is a pure function of w
// (random signs drawn from w's hash) to v. Words the table lacks (names,
// ids, numbers, typos) thus still match themselves, and only themselves:
// two such vectors are nearly orthogonal (|cos| ~ 0.1 in 100 dimensions).
// The sign generator is spelled out here, not taken from math/rand, so
// that stored vectors stay valid across Go releases.
func addHashed(v []float32, w string, s float32) {
	h := fnv.New64a()
	h.Write([]byte(w))
	state := h.Sum64()
	step := s / float32(math.Sqrt(float64(len(v))))
	var bits uint64
	for d := range v {
		if d%64 == 0 {
			bits = splitmix64(&state)
		}
		if bits&1 == 1 {
			v[d] += step
		} else {
			v[d] -= step
		}
		bits >>= 1
	}
}

// splitmix64 advances state and returns the next output of SplitMix64.
func splitmix64(state *uint64) uint64 {
	*state += 0x9e3779b97f4a7c15
	z := *state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func hasDigit(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= '0' && w[i] <= '9' {
			return true
		}
	}
	return false
}
