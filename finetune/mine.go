package finetune

import (
	"runtime"
	"slices"
	"sync"
	"unicode/utf8"

	memory "github.com/memory-mcp/memory-mcp"

	"github.com/memory-mcp/memory-mcp/internal/score"
)

// The seed's token caps: documents are embedded up to 512 tokens, queries
// up to 128, in mining, training and evaluation alike.
const (
	DocTokens   = 512
	QueryTokens = 128
)

// capTokens cuts text to its longest prefix estimated at no more than max
// tokens (memory.EstimateTokens), at a word boundary where there is one,
// and reports whether it cut.
func capTokens(text string, max int) (string, bool) {
	if memory.EstimateTokens(text) <= max {
		return text, false
	}
	ascii, other, cut, lastSpace := 0, 0, 0, -1
	for i, r := range text {
		if r < utf8.RuneSelf {
			ascii++
		} else {
			other++
		}
		if (ascii+3)/4+other > max {
			cut = i
			break
		}
		if r == ' ' || r == '\n' {
			lastSpace = i
		}
	}
	if lastSpace > cut/2 {
		cut = lastSpace
	}
	return text[:cut], true
}

// mine finds up to n hard negatives for each pair: the documents the
// current retrieval ranks highest for its query that are not its positive
// (nor the document it came from), taken in turn from BM25's ranking and
// the base vectors' so that both kinds of near miss are learned from.
func mine(pairs []Pair, docTexts []string, docVecs, qVecs [][]float32, n int) {
	if n == 0 {
		return
	}
	idx := newBM25(docTexts)
	parallel(len(pairs), func(lo, hi int) {
		scores := make([]float64, len(docTexts))
		for i := lo; i < hi; i++ {
			p := &pairs[i]
			skip := func(d int) bool { return d == p.Doc || d == p.From }
			lexical := idx.top(p.Query, n, scores, skip)
			semantic := nearest(qVecs[i], docVecs, n, skip)
			p.Negatives = interleave(n, lexical, semantic)
		}
	})
}

// interleave takes from each list in turn, skipping repeats, up to n.
func interleave(n int, lists ...[]int) []int {
	var out []int
	for k := 0; len(out) < n; k++ {
		more := false
		for _, l := range lists {
			if k < len(l) {
				more = true
				if !slices.Contains(out, l[k]) && len(out) < n {
					out = append(out, l[k])
				}
			}
		}
		if !more {
			break
		}
	}
	return out
}

// nearest returns the k documents of highest cosine with q (all unit
// vectors), best first, ties to the lower index, skipping those skip names.
func nearest(q []float32, docs [][]float32, k int, skip func(int) bool) []int {
	type hit struct {
		doc int
		cos float32
	}
	var top []hit // ascending, at most k
	for d, v := range docs {
		if v == nil || skip(d) {
			continue
		}
		c := score.Dot(q, v)
		if len(top) == k && c <= top[0].cos {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, c, func(h hit, c float32) int {
			if h.cos < c {
				return -1
			}
			return 1 // equal cosines: the earlier document stays above
		})
		top = slices.Insert(top, i, hit{d, c})
		if len(top) > k {
			top = top[1:]
		}
	}
	out := make([]int, len(top))
	for i, h := range top {
		out[len(top)-1-i] = h.doc
	}
	return out
}

// parallel splits [0, n) into a contiguous range per processor and runs
// work on each at once. Each index is done by one call, so results written
// by index do not depend on the split.
func parallel(n int, work func(lo, hi int)) {
	p := min(runtime.GOMAXPROCS(0), max(n/64, 1))
	var wg sync.WaitGroup
	for w := range p {
		lo, hi := n*w/p, n*(w+1)/p
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(lo, hi)
		}()
	}
	wg.Wait()
}
