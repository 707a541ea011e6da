package memory

import (
	"context"
	"strconv"
	"strings"
)

// EmbedFunc embeds texts into vectors, one per text, all of one dimension.
type EmbedFunc func(ctx context.Context, texts []string) ([][]float32, error)

// Embedder is an EmbedFunc with what is stored beside every vector it makes:
// an ID that changes whenever the vectors would (provider, model, dimension,
// table version), so vectors from different embedders are never compared.
type Embedder struct {
	ID    string
	Dim   int
	Embed EmbedFunc
	// Floor is the cosine below which this embedder's nearest neighbours
	// are typically unrelated: the default vector_floor (see RetrievalConfig).
	Floor float64
}

// adapterMark separates a base embedder's ID from the version of the
// fine-tuned adapter over it (finetune/): "wordvec-glove100-v1+ft3".
const adapterMark = "+ft"

// AdaptedEmbedderID is the ID of the vectors base's adapter of the given
// version makes; version 0 is base itself.
func AdaptedEmbedderID(base string, version int) string {
	if version == 0 {
		return base
	}
	return base + adapterMark + strconv.Itoa(version)
}

// SplitEmbedderID splits an embedder ID into its base and its adapter's
// version (0 when the ID names no adapter).
func SplitEmbedderID(id string) (base string, version int) {
	i := strings.LastIndex(id, adapterMark)
	if i < 0 {
		return id, 0
	}
	v, err := strconv.Atoi(id[i+len(adapterMark):])
	if err != nil || v < 1 || strconv.Itoa(v) != id[i+len(adapterMark):] {
		return id, 0
	}
	return id[:i], v
}
