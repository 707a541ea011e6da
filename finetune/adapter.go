package finetune

import (
	"context"
	"fmt"
	"math"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// Adapter is what fine-tuning learns: a map of the base embedder's vectors,
// v -> (v + U Vᵀ v) / |v + U Vᵀ v|, the identity plus a map of low rank.
// It needs nothing of the embedder but its vectors, so the same adapter
// serves the offline word vectors and an OpenAI-compatible model alike; a
// vector is all a model behind an API gives, and training the model itself
// would need the model. Starting at the identity, the adapter begins as
// the base embedder and moves from it only as far as the training pairs
// pull it. On the offline embedder the vector's last coordinate is nearly
// constant (the lift onto the sphere), so the map can also shift the mean
// word vector: an affine map of it.
//
// Over the offline embedder an adapter also carries word weights: factors
// on the weights of the words its vectors average (see wordWeights).
type Adapter struct {
	Base    string // the base embedder's ID
	Version int    // 1, 2, ... per base embedder, in the order trained
	Dim     int
	Rank    int
	U, V    []float32 // Dim × Rank each, row-major
	// Words multiply the offline embedder's word weights, by the words'
	// keyed hashes (wordvec.Weighted); empty over any other embedder.
	Words map[uint64]float32
	// KeyCheck tells whether a key is the one Words were hashed with
	// (keyCheck); 0 when there are no words.
	KeyCheck uint64
}

// keyCheck is the hash of a fixed text under a word key: an adapter whose
// words were hashed under another key would weigh no word, silently.
func keyCheck(key []byte) uint64 {
	return wordvec.WordHash(key, "memory-mcp adapter word key check v1")
}

// ID is the embedder ID of vectors the adapter made.
func (a *Adapter) ID() string { return memory.AdaptedEmbedderID(a.Base, a.Version) }

// Apply maps one base vector into dst (which it returns, grown as needed)
// and scales it to unit length.
func (a *Adapter) Apply(dst, x []float32) []float32 {
	d, r := a.Dim, a.Rank
	h := make([]float32, r)
	for i := range d {
		xi := x[i]
		row := a.V[i*r : (i+1)*r]
		for k := range r {
			h[k] += row[k] * xi
		}
	}
	dst = append(dst[:0], x...)
	var norm float64
	for i := range d {
		row := a.U[i*r : (i+1)*r]
		var s float32
		for k := range r {
			s += row[k] * h[k]
		}
		dst[i] += s
		norm += float64(dst[i]) * float64(dst[i])
	}
	if norm > 0 {
		inv := float32(1 / math.Sqrt(norm))
		for i := range dst {
			dst[i] *= inv
		}
	}
	return dst
}

// Embedder wraps base so that every vector it makes passes through the
// adapter; its ID names the adapter's version, so that vectors of different
// versions are never compared. base must be the embedder the adapter was
// trained over, and key the key its words were hashed with.
func (a *Adapter) Embedder(base memory.Embedder, key []byte) (memory.Embedder, error) {
	if base.ID != a.Base || base.Dim != a.Dim {
		return memory.Embedder{}, fmt.Errorf("adapter version %d was trained over embedder %s (%d dimensions), not %s (%d)",
			a.Version, a.Base, a.Dim, base.ID, base.Dim)
	}
	inner, err := a.weighted(base, key)
	if err != nil {
		return memory.Embedder{}, err
	}
	embed := func(ctx context.Context, texts []string) ([][]float32, error) {
		vecs, err := inner.Embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		for i, v := range vecs {
			if len(v) != a.Dim {
				return nil, fmt.Errorf("embedder %s returned a vector of dimension %d, want %d", base.ID, len(v), a.Dim)
			}
			vecs[i] = a.Apply(nil, v)
		}
		return vecs, nil
	}
	return memory.Embedder{ID: a.ID(), Dim: a.Dim, Embed: embed, Floor: base.Floor}, nil
}

// weighted is base with the adapter's word weights, or base itself when
// it has none.
func (a *Adapter) weighted(base memory.Embedder, key []byte) (memory.Embedder, error) {
	if len(a.Words) == 0 {
		return base, nil
	}
	if base.ID != wordvec.ID {
		return memory.Embedder{}, fmt.Errorf("adapter version %d weighs words, which only the offline embedder %s averages, not %s",
			a.Version, wordvec.ID, base.ID)
	}
	if keyCheck(key) != a.KeyCheck {
		return memory.Embedder{}, fmt.Errorf("adapter version %d was trained under another word key than this data directory's (its provenance key changed?)", a.Version)
	}
	return wordvec.Weighted(base.ID, key, a.Words)
}
