package wordvec

import (
	"context"
	"sync"

	memory "github.com/memory-mcp/memory-mcp"
)

// Variant is an embedder with other choices than the defaults, for the
// benchmark's ablation rows: SIF smoothing a (0 = plain mean), lift radius
// (0 = cosine of the 100-d means) and the length of hashed vectors for
// words the table lacks (0 = ignore them).
func Variant(a, radius, oovNorm float64) memory.EmbedFunc {
	e := sync.OnceValues(func() (*embedder, error) {
		t, err := loadTable()
		if err != nil {
			return nil, err
		}
		p := defaults
		p.a, p.radius, p.oovNorm = a, radius, oovNorm
		return newEmbedder(t, p), nil
	})
	return func(ctx context.Context, texts []string) ([][]float32, error) {
		e, err := e()
		if err != nil {
			return nil, err
		}
		return e.embed(ctx, texts)
	}
}

// ParseTable decodes the embedded table afresh and readies an embedder
// over it, as the first embedding does; it returns the embedder (to keep
// alive while the heap is measured) and the table's word count.
func ParseTable() (any, int, error) {
	t, err := parseTable(tableData)
	if err != nil {
		return nil, 0, err
	}
	return newEmbedder(t, defaults), len(t.ranks), nil
}
