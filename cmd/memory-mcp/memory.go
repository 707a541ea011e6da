package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/llm"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// openMemories builds the memory service over db: the configured embedder,
// the retrieval settings, and the vector index loaded from the stored vectors.
func openMemories(ctx context.Context, cfg *Config, db *store.DB, log *slog.Logger) (*store.MemoryService, error) {
	if err := cfg.Retrieval.Validate(); err != nil {
		return nil, fmt.Errorf("retrieval settings: %s", errorText(err))
	}
	emb, err := newEmbedder(ctx, cfg)
	if err != nil {
		// Memory must stay reachable while an embedding server is down:
		// search by keyword, store new memories without vectors, and say
		// how to fill them in later.
		log.Error("embedder unavailable: searching memories by keyword only; new memories get no vector until `memory-mcp reindex --missing`",
			"embedder", cfg.Embedder, "err", err)
		emb = nil
	}
	base := emb
	emb = inForce(ctx, cfg, db, emb, log)
	s := store.NewMemoryService(db, emb)
	floor := s.Retrieval.VectorFloor // the embedder's own
	s.Retrieval, s.MaxContentBytes, s.Log = cfg.Retrieval, cfg.MaxContentBytes, log
	if cfg.EmbedderFloor {
		s.Retrieval.VectorFloor = floor
	}
	if cfg.Retrieval.SoftWeight > 0 {
		// Soft matching compares single words with the built-in word
		// vectors, whichever embedder makes the memories' vectors.
		s.Words = store.NewWordVectors(wordvec.New())
	}
	if cfg.Retrieval.VectorWeight == 0 {
		// No search would query the index, so do not spend the start-up
		// time and memory on it (about 1 s and 70 MB at 100k memories).
		// New memories still get vectors: turning vectors on later needs
		// no reindex.
		s.Index = nil
	}
	if s.Index == nil {
		log.Info("memory search uses keywords only", "embedder", cfg.Embedder, "vector_weight", cfg.Retrieval.VectorWeight)
		return s, nil
	}
	s.Index.Log = log
	follow(cfg, db, *base, s.Index)
	start := time.Now()
	st, err := s.Index.Load(ctx)
	if err != nil {
		return nil, err
	}
	// Loading reads every stored row once; hand what it left behind back to
	// the operating system now rather than at the collector's leisure.
	debug.FreeOSMemory()
	log.Info("vector index loaded", "embedder", emb.ID, "memories", st.Indexed, "took", time.Since(start).Round(time.Millisecond))
	for id, n := range st.Foreign {
		log.Warn("memories embedded by a different embedder are searched by keyword only until you run `memory-mcp reindex`",
			"count", n, "stored_embedder", id, "configured_embedder", emb.ID)
	}
	if st.Missing > 0 {
		log.Warn("memories stored without a vector (the embedder failed when they were written) are searched by keyword only until you run `memory-mcp reindex --missing`",
			"count", st.Missing)
	}
	return s, nil
}

// reindex re-embeds the stored memories with the configured embedder,
// drawing a progress bar on stderr.
func reindex(ctx context.Context, cfg *Config, staleOnly bool, stderr io.Writer) error {
	emb, err := newEmbedder(ctx, cfg)
	if err != nil {
		return err
	}
	if emb == nil {
		return fmt.Errorf("embedder is none: there are no vectors to make; choose --embedder offline or openai")
	}
	db, _, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	emb = inForce(ctx, cfg, db, emb, newLogger(cfg, stderr))
	start := time.Now()
	n, err := store.Reindex(ctx, db, *emb, store.ReindexOptions{Batch: cfg.EmbeddingBatchSize, StaleOnly: staleOnly,
		Progress: progressBar(stderr, "reindex", start)})
	fmt.Fprintf(stderr, "\nreindexed %d memories with %s in %s\n", n, emb.ID, time.Since(start).Round(time.Millisecond))
	return err
}

// progressBar draws "reindex [=====>    ]  1200/5882  20%  340/s" over
// itself, label first. The share is rounded down, so that it says 100%
// (and the bar is full) only once done is total: 19,950 of 20,000 is 99%.
func progressBar(w io.Writer, label string, start time.Time) func(done, total int) {
	const width = 30
	return func(done, total int) {
		done = max(0, min(done, total))
		pct, fill := 100, width
		if total > 0 {
			pct, fill = int(int64(done)*100/int64(total)), int(int64(done)*width/int64(total))
		}
		bar := strings.Repeat("=", fill) + strings.Repeat(" ", width-fill)
		if fill > 0 && fill < width {
			bar = strings.Repeat("=", fill-1) + ">" + strings.Repeat(" ", width-fill)
		}
		rate := float64(done) / max(time.Since(start).Seconds(), 1e-3)
		fmt.Fprintf(w, "\r%s [%s] %d/%d %3d%% %.0f/s", label, bar, done, total, pct, rate)
	}
}

// cutFlag removes a boolean flag (-name or --name) from args and reports
// whether it was there.
func cutFlag(args []string, name string) ([]string, bool) {
	i := slices.IndexFunc(args, func(a string) bool { return a == "-"+name || a == "--"+name })
	if i < 0 {
		return args, false
	}
	return slices.Delete(slices.Clone(args), i, i+1), true
}

// newEmbedder returns the configured embedder, nil for none. The openai
// embedder asks the server for its dimension when none is configured.
func newEmbedder(ctx context.Context, cfg *Config) (*memory.Embedder, error) {
	switch cfg.Embedder {
	case "none":
		return nil, nil
	case "offline":
		e := wordvec.New()
		return &e, nil
	}
	c := llm.New(llm.Config{BaseURL: cfg.EmbeddingBaseURL, APIKey: cfg.EmbeddingAPIKey, Model: cfg.EmbeddingModel})
	e, err := llm.NewEmbedder(ctx, c, llm.EmbedConfig{Dimensions: cfg.EmbeddingDimensions, BatchSize: cfg.EmbeddingBatchSize})
	if err != nil {
		return nil, err
	}
	return &e, nil
}
