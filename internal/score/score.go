// Package score holds the ranking arithmetic the search (store/) and the
// embedding fine-tuning (finetune/) share: Okapi BM25 and its inverse
// document frequency, reciprocal rank fusion, and dot products of unit
// vectors. It is a leaf: it imports nothing of the module, so that one
// formula serves both and they cannot drift apart.
package score

import "math"

// BM25 is Okapi BM25's two parameters.
type BM25 struct{ K1, B float64 }

// Memories is the BM25 the search ranks memories with, and fine-tuning
// mines hard negatives with. FTS5's bm25() uses k1 1.2 and b 0.75. On
// LoCoMo less length normalisation ranks better (BM25 alone, R@5: b 0.75
// 0.532, b 0.3 0.559, b 0 0.564, all with k1 0.9), and b 0 spares a lookup
// of each matching row's length. Memories are short statements; a long one
// gains from matching more distinct words, not from repeating them (k1
// saturates repetition quickly).
var Memories = BM25{K1: 0.9, B: 0}

// Term is one term's score in a document: idf × f(k1+1) / (f + k1(1 − b +
// b·dl/avgdl)), for a term found f times in a document of length dl, the
// mean length being avgdl.
func (p BM25) Term(idf, f, dl, avgdl float64) float64 {
	norm := p.K1 * (1 - p.B + p.B*dl/avgdl)
	return idf * f * (p.K1 + 1) / (f + norm)
}

// IDF is FTS5's inverse document frequency: ln((N − n + 0.5)/(n + 0.5)),
// floored at 1e-6 so that a term in most rows still counts a little. n is
// capped at N: a frequency counted earlier (or in another snapshot) may
// exceed the rows left after memories were forgotten, and the logarithm of
// a negative number would poison the score with NaN.
func IDF(rows, df float64) float64 {
	df = min(df, rows)
	return max(1e-6, math.Log((rows-df+0.5)/(df+0.5)))
}

// SmoothIDF is Lucene's inverse document frequency, ln(1 + (N − n +
// 0.5)/(n + 0.5)): never 0, so a word most documents hold still ranks them
// a little. Fine-tuning mines hard negatives by it: with IDF's floor the
// adapters it trained found up to 0.005 less of LoCoMo's evidence
// (vectors R@10).
func SmoothIDF(rows, df float64) float64 {
	return math.Log(1 + (rows-df+0.5)/(df+0.5))
}

// RRF is reciprocal rank fusion of one document's ranks (0 = absent from
// that list), scaled so that first place in every weighted list scores 1:
// Σ wᵢ/(k+rankᵢ) ÷ Σ wᵢ/(k+1). An absolute scale, unlike min-max, keeps a
// relevance floor meaningful across queries.
func RRF(ranks []int, weights []float64, k int) float64 {
	var sum, top float64
	for i, r := range ranks {
		top += weights[i] / float64(k+1)
		if r > 0 {
			sum += weights[i] / float64(k+r)
		}
	}
	if top == 0 {
		return 0
	}
	return sum / top
}

// Dot is the inner product of two vectors of equal length, unrolled by
// four: of unit vectors, their cosine.
func Dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// Unit scales v to unit length in place; a zero vector stays zero.
func Unit(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return v
}
