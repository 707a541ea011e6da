package store

import (
	"context"
	"sort"
)

// ChromemQuery runs the index's vector query for an agent's personal space,
// for benchmarks that time it apart from BM25.
func (x *Index) ChromemQuery(ctx context.Context, vec []float32, agent string, n int) (int, error) {
	hits, err := x.query(ctx, vectorQuery{vec: normalize(vec), spaces: []string{personalSpace(agent)}, keep: func(docMeta) bool { return true }, n: n})
	return len(hits), err
}

// FlatIndex is the baseline chromem is measured against: every vector of a
// space in one contiguous slab, scanned in full for each query.
type FlatIndex struct {
	dim  int
	ids  []string
	slab []float32
}

// NewFlatIndex loads the vectors of agent's personal memories.
func NewFlatIndex(ctx context.Context, db *DB, agent string, dim int) (*FlatIndex, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, embedding FROM memories WHERE agent_id = ? AND shared = 0 AND forgotten_at IS NULL AND embedding IS NOT NULL`, agent)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	f := &FlatIndex{dim: dim}
	for rows.Next() {
		var id string
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return nil, err
		}
		v, err := decodeVector(b)
		if err != nil {
			return nil, err
		}
		f.ids = append(f.ids, id)
		f.slab = append(f.slab, normalize(v)...)
	}
	return f, rows.Err()
}

// Query returns the ids of the n vectors nearest vec.
func (f *FlatIndex) Query(vec []float32, n int) []string {
	vec = normalize(vec)
	type hit struct {
		i   int
		sim float32
	}
	top := make([]hit, 0, n+1)
	for i := range f.ids {
		row := f.slab[i*f.dim : (i+1)*f.dim]
		var s float32
		for j, x := range row {
			s += x * vec[j]
		}
		if len(top) < n || s > top[len(top)-1].sim {
			k := sort.Search(len(top), func(k int) bool { return top[k].sim < s })
			top = append(top, hit{})
			copy(top[k+1:], top[k:])
			top[k] = hit{i, s}
			if len(top) > n {
				top = top[:n]
			}
		}
	}
	out := make([]string, len(top))
	for i, h := range top {
		out[i] = f.ids[h.i]
	}
	return out
}

// SetMatchBudget changes matchBudget for a test and returns the undo.
func SetMatchBudget(n int) func() {
	old := matchBudget
	matchBudget = n
	return func() { matchBudget = old }
}
