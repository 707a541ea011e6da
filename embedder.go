package memory

import "context"

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
