package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/memory-mcp/memory-mcp/internal/score"
)

func unit(v ...float32) []float32 { return score.Unit(v) }

func TestSpacePutDropNearest(t *testing.T) {
	s := &space{dim: 2, slot: map[string]int{}}
	s.put("east", unit(1, 0), docMeta{ns: "a"})
	s.put("north", unit(0, 1), docMeta{ns: "b"})
	s.put("northeast", unit(1, 1), docMeta{ns: "a"})
	s.put("west", unit(-1, 0), docMeta{ns: "b"})
	all := func(docMeta) bool { return true }
	ids := func(hs []vectorHit) []string {
		out := make([]string, len(hs))
		for i, h := range hs {
			out[i] = h.id
		}
		return out
	}
	q := unit(1, 0.2)
	if got := ids(s.nearest(q, 10, all)); !slices.Equal(got, []string{"east", "northeast", "north", "west"}) {
		t.Fatalf("nearest = %v", got)
	}
	if got := ids(s.nearest(q, 2, all)); !slices.Equal(got, []string{"east", "northeast"}) {
		t.Fatalf("top 2 = %v", got)
	}
	if got := ids(s.nearest(q, 10, func(m docMeta) bool { return m.ns == "b" })); !slices.Equal(got, []string{"north", "west"}) {
		t.Fatalf("filtered = %v", got)
	}
	s.drop("east")                        // from the middle: "west" moves into its slot
	s.drop("west")                        // the moved one, now first
	s.drop("nosuch")                      // unknown: no-op
	s.put("north", unit(1, 0), docMeta{}) // replace in place
	if got := ids(s.nearest(q, 10, all)); !slices.Equal(got, []string{"north", "northeast"}) || len(s.ids) != 2 || len(s.vecs) != 4 {
		t.Fatalf("after drops: %v, %d ids, %d floats", got, len(s.ids), len(s.vecs))
	}
	for id, i := range s.slot {
		if s.ids[i] != id {
			t.Fatalf("slot of %s is %d, which holds %s", id, i, s.ids[i])
		}
	}
	if s.nearest(q, 0, all) != nil || (&space{dim: 2, slot: map[string]int{}}).nearest(q, 5, all) != nil {
		t.Fatal("empty query or space returned hits")
	}
}

// The parallel scan must find exactly what a sequential sort finds.
func TestSpaceParallelScanAgreesWithSort(t *testing.T) {
	defer func(old int) { parallelMin = old }(parallelMin)
	parallelMin = 10
	r := rand.New(rand.NewPCG(1, 2))
	s := &space{dim: 8, slot: map[string]int{}}
	type pair struct {
		id  string
		sim float64
	}
	q := make([]float32, 8)
	for i := range q {
		q[i] = r.Float32() - 0.5
	}
	q = score.Unit(q)
	var want []pair
	for i := range 500 {
		v := make([]float32, 8)
		for j := range v {
			v[j] = r.Float32() - 0.5
		}
		id := fmt.Sprintf("m%03d", i)
		s.put(id, score.Unit(v), docMeta{})
		want = append(want, pair{id, float64(score.Dot(q, score.Unit(v)))})
	}
	sort.Slice(want, func(i, j int) bool { return want[i].sim > want[j].sim })
	got := s.nearest(q, 25, func(docMeta) bool { return true })
	for i := range 25 {
		if got[i].id != want[i].id {
			t.Fatalf("rank %d: got %s, want %s", i, got[i].id, want[i].id)
		}
	}
}
