package finetune

import (
	"cmp"
	"slices"

	"github.com/memory-mcp/memory-mcp/internal/score"
)

// bm25 is an in-memory Okapi BM25 index over the run's documents, for
// mining hard negatives the way the search finds candidates: by the rarest
// words a query shares with a document. It ranks by the search's BM25
// (score.Memories: k1 0.9, b 0), with an IDF that never reaches 0
// (score.SmoothIDF).
type bm25 struct {
	terms    map[string]int // word -> its postings' number
	postings [][]posting
	n        int
}

type posting struct {
	doc  int32
	freq float32
}

const (
	// bm25Terms and bm25Budget bound a query's work as the store's search
	// does (maxQueryTerms, matchBudget): its rarest words, and no more than
	// the budget of postings beyond the rarest word's. Common words weigh
	// almost nothing in BM25.
	bm25Terms  = 32
	bm25Budget = 5000
)

func newBM25(texts []string) *bm25 {
	x := &bm25{terms: map[string]int{}, n: len(texts)}
	counts := map[string]int{}
	for d, t := range texts {
		clear(counts)
		var order []string
		words(t, func(w string) {
			if counts[w] == 0 {
				order = append(order, w)
			}
			counts[w]++
		})
		for _, w := range order {
			id, ok := x.terms[w]
			if !ok {
				id = len(x.postings)
				x.terms[w] = id
				x.postings = append(x.postings, nil)
			}
			x.postings[id] = append(x.postings[id], posting{int32(d), float32(counts[w])})
		}
	}
	return x
}

// top returns up to k documents best matching query, best first, skipping
// those skip says to; scores is scratch of one float per document, all 0,
// and is left so.
func (x *bm25) top(query string, k int, scores []float64, skip func(int) bool) []int {
	var ids []int
	seen := map[int]bool{}
	words(query, func(w string) {
		if id, ok := x.terms[w]; ok && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	})
	slices.SortFunc(ids, func(a, b int) int { return cmp.Compare(len(x.postings[a]), len(x.postings[b])) })
	var touched []int
	spent := 0
	for i, id := range ids {
		p := x.postings[id]
		if i == bm25Terms || i > 0 && spent+len(p) > bm25Budget {
			break
		}
		spent += len(p)
		w := score.SmoothIDF(float64(x.n), float64(len(p)))
		for _, e := range p {
			if scores[e.doc] == 0 {
				touched = append(touched, int(e.doc))
			}
			f := float64(e.freq)
			scores[e.doc] += score.Memories.Term(w, f, 1, 1) // b 0: the length does not count
		}
	}
	var out []int
	for _, d := range touched {
		if !skip(d) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b int) int {
		if c := cmp.Compare(scores[b], scores[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	for _, d := range touched {
		scores[d] = 0
	}
	return out[:min(k, len(out))]
}
