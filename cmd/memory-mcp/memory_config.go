package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/memory-mcp/memory-mcp/store"
)

// memorySettings are the embedder and retrieval settings. Retrieval defaults
// come from store.DefaultRetrieval, the values tuned on LoCoMo.
func memorySettings() []setting {
	d := store.DefaultRetrieval()
	f := func(v float64) func() string { return constant(strconv.FormatFloat(v, 'g', -1, 64)) }
	return []setting{
		{"embedder", "offline (built-in word vectors), openai (an OpenAI-compatible endpoint) or none (keyword search only)", constant("offline"),
			func(c *Config, v string) error {
				switch v {
				case "offline", "openai", "none":
					c.Embedder = v
					return nil
				}
				return fmt.Errorf("unknown embedder %q: use offline, openai or none", v)
			}},
		{"embedding-base-url", "OpenAI-compatible endpoint including /v1 (embedder openai)", constant("https://api.openai.com/v1"),
			func(c *Config, v string) error { c.EmbeddingBaseURL = v; return nil }},
		{"embedding-model", "embedding model name (embedder openai)", constant("text-embedding-3-small"),
			func(c *Config, v string) error { c.EmbeddingModel = v; return nil }},
		{"embedding-dimensions", "vector length to request and expect (embedder openai); 0 asks the server once at start", constant("0"),
			func(c *Config, v string) (err error) {
				if c.EmbeddingDimensions, err = strconv.Atoi(v); err != nil || c.EmbeddingDimensions < 0 {
					return fmt.Errorf("%q is not 0 or a positive integer", v)
				}
				return nil
			}},
		{"embedding-batch-size", "texts per embedding request (embedder openai)", constant("64"),
			func(c *Config, v string) (err error) { c.EmbeddingBatchSize, err = parsePositive(v); return }},
		{"fusion", "how keyword and vector rankings combine: rrf or linear", constant(string(d.Fusion)),
			func(c *Config, v string) (err error) { c.Retrieval.Fusion, err = store.ParseFusion(v); return }},
		{"rrf-k", "RRF smoothing constant k, 1 to 1000", constant(strconv.Itoa(d.RRFK)),
			func(c *Config, v string) (err error) { c.Retrieval.RRFK, err = parsePositive(v); return }},
		{"bm25-weight", "weight of the keyword (BM25) ranking; 0 turns it off", f(d.BM25Weight),
			func(c *Config, v string) (err error) { c.Retrieval.BM25Weight, err = parseFloat(v); return }},
		{"vector-weight", "weight of the vector ranking; 0 turns it off", f(d.VectorWeight),
			func(c *Config, v string) (err error) { c.Retrieval.VectorWeight, err = parseFloat(v); return }},
		{"time-weight", "RRF weight of the memories that occurred in a period the query names (\"in March 2024\"); 0 turns it off", f(d.TimeWeight),
			func(c *Config, v string) (err error) { c.Retrieval.TimeWeight, err = parseFloat(v); return }},
		{"soft-weight", "RRF weight of soft term matching (query words against memory words by word vectors); 0 turns it off", f(d.SoftWeight),
			func(c *Config, v string) (err error) { c.Retrieval.SoftWeight, err = parseFloat(v); return }},
		{"recency-weight", "linear fusion: weight of recency against relevance, 0 to 1", f(d.RecencyWeight),
			func(c *Config, v string) (err error) {
				c.Retrieval.RecencyWeight, err = parseFloat(v)
				c.Retrieval.RelevanceWeight = 1 - c.Retrieval.RecencyWeight
				return
			}},
		{"recency-decay", "linear fusion: exponential recency decay rate per hour", f(d.DecayPerHour),
			func(c *Config, v string) (err error) { c.Retrieval.DecayPerHour, err = parseFloat(v); return }},
		{"personal-boost", "linear fusion: relevance added to your own memories over shared ones, 0 to 1", f(d.PersonalBoost),
			func(c *Config, v string) (err error) { c.Retrieval.PersonalBoost, err = parseFloat(v); return }},
		{"vector-floor", "least cosine at which the vector ranking adds a memory no word matched, -1 to 1; \"embedder\" takes the embedder's own (offline: 1, none; openai: 0.25)",
			constant("embedder"),
			func(c *Config, v string) (err error) {
				if c.EmbedderFloor = v == "embedder"; c.EmbedderFloor {
					return nil
				}
				c.Retrieval.VectorFloor, err = parseFloat(v)
				return
			}},
		{"min-relevance", "default floor on a search result's score, 0 to 1", f(d.MinRelevance),
			func(c *Config, v string) (err error) { c.Retrieval.MinRelevance, err = parseFloat(v); return }},
		{"diversity", "re-rank search results by MMR so near-duplicates do not crowd out the rest (true/false)", constant(strconv.FormatBool(d.Diversity)),
			func(c *Config, v string) (err error) { c.Retrieval.Diversity, err = parseBool(v); return }},
		{"diversity-lambda", "MMR trade-off: 1 pure relevance, 0 pure diversity", f(d.DiversityLambda),
			func(c *Config, v string) (err error) { c.Retrieval.DiversityLambda, err = parseFloat(v); return }},
		{"candidate-pool", "candidates each ranking contributes before fusion", constant(strconv.Itoa(d.Pool)),
			func(c *Config, v string) (err error) { c.Retrieval.Pool, err = parsePositive(v); return }},
		{"pool-multiplier", "MMR chooses from limit × this many fused candidates", constant(strconv.Itoa(d.PoolMultiplier)),
			func(c *Config, v string) (err error) { c.Retrieval.PoolMultiplier, err = parsePositive(v); return }},
	}
}

// parseFloat reads a finite number: NaN and infinities are not settings.
func parseFloat(v string) (float64, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%q is not a finite number", v)
	}
	return x, nil
}
