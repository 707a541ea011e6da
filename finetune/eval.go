package finetune

import (
	"math"

	"github.com/memory-mcp/memory-mcp/internal/score"
)

// Figures are a retriever's recall on held-out pairs: each pair's query
// against every document, with the pair's positive the one relevant answer.
type Figures struct {
	Pairs int     `json:"pairs"`
	R10   float64 `json:"recall_at_10"`
	NDCG  float64 `json:"ndcg_at_10"`
	R100  float64 `json:"recall_at_100"`
	// MRR is the mean reciprocal rank over the whole ranking (not cut at 10).
	MRR float64 `json:"mrr"`
}

// add scores one ranking in which the positive came at rank (from 1; 0
// when it is not ranked at all).
func (f *Figures) add(rank int) {
	f.Pairs++
	if rank < 1 {
		return
	}
	if rank <= 10 {
		f.R10++
		f.NDCG += 1 / math.Log2(float64(rank)+1)
	}
	if rank <= 100 {
		f.R100++
	}
	f.MRR += 1 / float64(rank)
}

// mean turns sums into averages.
func (f Figures) mean() Figures {
	if f.Pairs == 0 {
		return f
	}
	n := float64(f.Pairs)
	return Figures{Pairs: f.Pairs, R10: f.R10 / n, NDCG: f.NDCG / n, R100: f.R100 / n, MRR: f.MRR / n}
}

// vectorRank is where the positive of a pair ranks by cosine among all
// documents: one more than the documents (other than the positive and the
// one the query came from) scoring above the positive's own vector, which
// for an ICT pair is that of the document without the query's sentence.
func vectorRank(q, pos []float32, docs [][]float32, doc, from int) int {
	s := score.Dot(q, pos)
	rank := 1
	for d, v := range docs {
		if d == doc || d == from || v == nil {
			continue
		}
		if score.Dot(q, v) > s {
			rank++
		}
	}
	return rank
}

// Scores are one embedder's figures on the held-out pairs, overall and by
// the source of the pairs.
type Scores struct {
	All      Figures            `json:"all"`
	BySource map[Source]Figures `json:"by_source,omitempty"`
	ranks    []int              // each held-out pair's, in order
}
