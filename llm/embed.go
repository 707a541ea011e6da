package llm

import (
	"context"
	"fmt"
	"math"

	openai "github.com/sashabaranov/go-openai"

	memory "github.com/memory-mcp/memory-mcp"
)

// EmbedConfig shapes the requests of the OpenAI-compatible embedder.
type EmbedConfig struct {
	// Dimensions is the vector length. When > 0 it is sent as the request's
	// `dimensions` (models such as text-embedding-3-* shorten their vectors
	// to it) and every response is checked against it. When 0 nothing is
	// sent and NewEmbedder asks the server once to learn the model's length.
	Dimensions int
	// BatchSize is the number of texts per request; 0 means 64.
	BatchSize int
}

// DefaultEmbedBatchSize is the batch size used when EmbedConfig.BatchSize is 0.
const DefaultEmbedBatchSize = 64

// DimensionError reports vectors of another length than the embedder's.
// Vectors of different lengths cannot be compared, so nothing is stored.
type DimensionError struct {
	Model     string
	Want, Got int
}

// Error says what happened and the two ways out.
func (e *DimensionError) Error() string {
	return fmt.Sprintf("embedding model %q returned %d-dimensional vectors, but %d were expected: "+
		"set --embedding-dimensions to %d (or 0 to use whatever the model returns), "+
		"then run `memory-mcp reindex` so that every stored memory is embedded with the same model and size",
		e.Model, e.Got, e.Want, e.Got)
}

// NewEmbedder returns an embedder that calls c's server (POST
// {BaseURL}/embeddings) with c's model, in batches, retrying rate limits and
// server errors as c does. Its ID is "openai:<model>:<dimensions>". With
// cfg.Dimensions 0 it embeds one probe text now to learn the dimension, so
// it needs the server to be up; with cfg.Dimensions set it makes no request.
// Vectors are returned scaled to unit length.
func NewEmbedder(ctx context.Context, c *Client, cfg EmbedConfig) (memory.Embedder, error) {
	if c.cfg.Model == "" {
		return memory.Embedder{}, fmt.Errorf("embedding model is not set")
	}
	if cfg.Dimensions < 0 || cfg.BatchSize < 0 {
		return memory.Embedder{}, fmt.Errorf("embedding dimensions (%d) and batch size (%d) must not be negative", cfg.Dimensions, cfg.BatchSize)
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = DefaultEmbedBatchSize
	}
	e := &embedder{c: c, cfg: cfg, dim: cfg.Dimensions}
	if e.dim == 0 {
		v, err := e.batch(ctx, []string{"dimension probe"})
		if err != nil {
			return memory.Embedder{}, fmt.Errorf("ask %s for the dimension of %q: %w", c.cfg.BaseURL, c.cfg.Model, err)
		}
		e.dim = len(v[0])
	}
	// Trained embedding models spread unrelated texts out: OpenAI's
	// text-embedding-3 models put unrelated pairs mostly below 0.25.
	return memory.Embedder{ID: fmt.Sprintf("openai:%s:%d", c.cfg.Model, e.dim), Dim: e.dim, Embed: e.embed, Floor: 0.25}, nil
}

type embedder struct {
	c   *Client
	cfg EmbedConfig
	dim int // 0 only while probing
}

// embed is the EmbedFunc: texts in batches of cfg.BatchSize, in order.
func (e *embedder) embed(ctx context.Context, texts []string) ([][]float32, error) {
	for i, t := range texts {
		if t == "" {
			return nil, fmt.Errorf("embed: text %d of %d is empty, which OpenAI-compatible servers reject", i+1, len(texts))
		}
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.cfg.BatchSize {
		end := min(start+e.cfg.BatchSize, len(texts))
		vecs, err := e.batch(ctx, texts[start:end])
		if err != nil {
			return nil, fmt.Errorf("embed texts %d-%d of %d: %w", start+1, end, len(texts), err)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// batch embeds texts in one request (retried by c.retry), placing each
// vector by the index the server gives it rather than by its position.
func (e *embedder) batch(ctx context.Context, texts []string) ([][]float32, error) {
	req := openai.EmbeddingRequestStrings{Input: texts, Model: openai.EmbeddingModel(e.c.cfg.Model), Dimensions: e.cfg.Dimensions}
	var resp openai.EmbeddingResponse
	err := e.c.retry(ctx, func() error {
		var err error
		resp, err = e.c.api.CreateEmbeddings(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(resp.Data) != len(texts) {
		return nil, fmt.Errorf("server returned %d embeddings for %d texts", len(resp.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(texts) || out[d.Index] != nil {
			return nil, fmt.Errorf("server returned embedding index %d, out of range or repeated for %d texts", d.Index, len(texts))
		}
		v, err := e.check(d.Embedding, d.Index)
		if err != nil {
			return nil, err
		}
		out[d.Index] = v
	}
	return out, nil
}

// check verifies a vector's length and scales it to unit length.
func (e *embedder) check(v []float32, i int) ([]float32, error) {
	if e.dim != 0 && len(v) != e.dim {
		return nil, &DimensionError{Model: e.c.cfg.Model, Want: e.dim, Got: len(v)}
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil, fmt.Errorf("server returned a zero or non-finite vector for text %d of the batch", i+1)
	}
	inv := float32(1 / math.Sqrt(n))
	for d := range v {
		v[d] *= inv
	}
	return v, nil
}
