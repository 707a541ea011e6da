package store

import (
	"container/heap"
	"runtime"
	"sync"

	"github.com/memory-mcp/memory-mcp/internal/score"
)

// space holds the unit vectors of one space in a single slab, with their ids
// and filter metadata in parallel slices: a query reads memory front to back.
type space struct {
	dim      int
	personal bool // an agent's personal space, not a shared one
	ids      []string
	meta     []docMeta
	vecs     []float32      // len(ids) × dim
	slot     map[string]int // id -> index in ids
}

// put adds or replaces a memory's vector and metadata.
func (s *space) put(id string, vec []float32, m docMeta) {
	if i, ok := s.slot[id]; ok {
		copy(s.vecs[i*s.dim:], vec)
		s.meta[i] = m
		return
	}
	s.slot[id] = len(s.ids)
	s.ids = append(s.ids, id)
	s.meta = append(s.meta, m)
	s.vecs = append(s.vecs, vec...)
}

// drop removes a memory by moving the last one into its slot.
func (s *space) drop(id string) {
	i, ok := s.slot[id]
	if !ok {
		return
	}
	last := len(s.ids) - 1
	if i != last {
		s.ids[i], s.meta[i] = s.ids[last], s.meta[last]
		copy(s.vecs[i*s.dim:(i+1)*s.dim], s.vecs[last*s.dim:])
		s.slot[s.ids[i]] = i
	}
	delete(s.slot, id)
	s.ids, s.meta, s.vecs = s.ids[:last], s.meta[:last], s.vecs[:last*s.dim]
}

// parallelMin is the space size from which a scan is split across CPUs.
var parallelMin = 16384

// nearest returns up to n memories passing keep, by descending cosine with
// vec (a unit vector; stored vectors are unit too, so the dot product is the
// cosine). Large spaces are scanned in one chunk per CPU.
func (s *space) nearest(vec []float32, n int, keep func(docMeta) bool) []vectorHit {
	if n <= 0 || len(s.ids) == 0 {
		return nil
	}
	parts := 1
	if len(s.ids) >= parallelMin {
		parts = runtime.GOMAXPROCS(0)
	}
	tops := make([]topK, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*len(s.ids)/parts, (p+1)*len(s.ids)/parts
		wg.Go(func() { tops[p] = s.scan(vec, n, keep, lo, hi) })
	}
	wg.Wait()
	all := tops[0]
	for _, t := range tops[1:] {
		for _, h := range t.hits {
			all.offer(h, n)
		}
	}
	return all.sorted()
}

// scan finds the best n in [lo, hi).
func (s *space) scan(vec []float32, n int, keep func(docMeta) bool, lo, hi int) topK {
	t := topK{hits: make(scoreHeap, 0, n)}
	for i := lo; i < hi; i++ {
		if !keep(s.meta[i]) {
			continue
		}
		sim := float64(score.Dot(vec, s.vecs[i*s.dim:(i+1)*s.dim]))
		if len(t.hits) < n || sim > t.hits[0].cosine {
			t.offer(vectorHit{id: s.ids[i], cosine: sim, occurred: s.meta[i].occurred, personal: s.personal}, n)
		}
	}
	return t
}

// topK keeps the n best hits seen in a min-heap on cosine.
type topK struct{ hits scoreHeap }

func (t *topK) offer(h vectorHit, n int) {
	if len(t.hits) < n {
		heap.Push(&t.hits, h)
		return
	}
	if h.cosine > t.hits[0].cosine {
		t.hits[0] = h
		heap.Fix(&t.hits, 0)
	}
}

// sorted empties the heap, best first.
func (t *topK) sorted() []vectorHit {
	out := make([]vectorHit, len(t.hits))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&t.hits).(vectorHit)
	}
	return out
}

type scoreHeap []vectorHit

func (h scoreHeap) Len() int           { return len(h) }
func (h scoreHeap) Less(i, j int) bool { return h[i].cosine < h[j].cosine }
func (h scoreHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scoreHeap) Push(x any)        { *h = append(*h, x.(vectorHit)) }
func (h *scoreHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
