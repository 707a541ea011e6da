package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// Search ranks the caller's visible memories against a query: BM25 candidates
// from FTS5 and nearest neighbours from the vector index, fused (RRF or
// LINEAR), thresholded by min_relevance, optionally diversified by MMR, and
// cut to the limit. Expired and forgotten memories are never returned.
func (s *MemoryService) Search(ctx context.Context, q memory.Query) ([]memory.Hit, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return nil, err
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	cfg := s.Retrieval
	if q.MinRelevance != nil {
		cfg.MinRelevance = *q.MinRelevance
	}
	now := s.db.Now.Now()
	f := newFilter(who.AgentID, q, nanos(now))
	qvec, err := s.queryVector(ctx, q.Text, cfg)
	if err != nil {
		return nil, err
	}
	pool := max(cfg.Pool, q.Limit*cfg.PoolMultiplier)
	var hits []memory.Hit
	err = s.db.View(ctx, func(tx *sql.Tx) error {
		cands := map[string]*memory.Candidate{}
		if cfg.BM25Weight > 0 {
			if err := bm25Candidates(ctx, tx, q.Text, f, pool, cands); err != nil {
				return err
			}
		}
		if qvec != nil {
			if err := s.vectorCandidates(ctx, qvec, f, pool, cands); err != nil {
				return err
			}
		}
		ranked := rank(cands, cfg, now, q.Limit)
		entries, err := loadEntries(ctx, tx, ranked)
		if err != nil {
			return err
		}
		hits = finish(ranked, entries, cfg, q.Limit)
		return nil
	})
	return hits, err
}

// queryVector embeds the query after bringing the index up to date, or
// returns nil when vectors are off or the query has no direction.
func (s *MemoryService) queryVector(ctx context.Context, text string, cfg memory.RetrievalConfig) ([]float32, error) {
	if s.Index == nil || cfg.VectorWeight == 0 {
		return nil, nil
	}
	if err := s.Index.Sync(ctx); err != nil {
		return nil, err
	}
	emb := s.Index.Embedder()
	vecs, err := emb.Embed(ctx, []string{text})
	if err != nil {
		// Keyword search still answers; an embedder outage must not make
		// memory unreachable.
		s.Log.WarnContext(ctx, "query embedding failed; searching by BM25 alone", "embedder", emb.ID, "err", err)
		return nil, nil
	}
	if len(vecs) != 1 || len(vecs[0]) != emb.Dim {
		return nil, fmt.Errorf("embedder %s returned %d vectors of dimension %d for a query, want 1 of %d", emb.ID, len(vecs), dimOf(vecs), emb.Dim)
	}
	if isZero(vecs[0]) {
		return nil, nil
	}
	return normalize(vecs[0]), nil
}

// bm25Candidates adds the pool best BM25 matches that pass f to cands.
func bm25Candidates(ctx context.Context, tx *sql.Tx, text string, f filter, pool int, cands map[string]*memory.Candidate) error {
	match := MatchAny(strings.Join(QueryTerms(text), " "))
	if match == "" {
		return nil
	}
	cond, args := f.sql()
	rows, err := tx.QueryContext(ctx, `SELECT m.id, m.shared, m.occurred_at, -bm25(memory_fts)
		FROM memory_fts JOIN memories m ON m.pk = memory_fts.rowid
		WHERE memory_fts MATCH ? AND `+cond+` ORDER BY bm25(memory_fts) LIMIT ?`,
		append(append([]any{match}, args...), pool)...)
	if err != nil {
		return fmt.Errorf("bm25 search: %w", err)
	}
	defer rows.Close()
	for rank := 1; rows.Next(); rank++ {
		var c memory.Candidate
		var shared bool
		var occurred int64
		if err := rows.Scan(&c.ID, &shared, &occurred, &c.BM25); err != nil {
			return err
		}
		c.BM25Rank, c.Personal, c.OccurredAt = rank, !shared, fromNanos(occurred)
		cands[c.ID] = &c
	}
	return rows.Err()
}

// vectorCandidates adds the pool nearest memories that pass f to cands.
func (s *MemoryService) vectorCandidates(ctx context.Context, vec []float32, f filter, pool int, cands map[string]*memory.Candidate) error {
	hits, err := s.Index.query(ctx, vectorQuery{vec: vec, spaces: s.Index.spaces(f.agent, f.scope), where: f.where(), keep: f.keep, n: pool})
	if err != nil {
		return err
	}
	for i, h := range hits {
		c, ok := cands[h.id]
		if !ok {
			m := s.Index.meta(h.id)
			c = &memory.Candidate{ID: h.id, Personal: !strings.HasPrefix(m.space, "s/"), OccurredAt: fromNanos(m.occurred)}
			cands[h.id] = c
		}
		c.VectorRank, c.Cosine = i+1, h.cosine
	}
	return nil
}

// rank fuses the candidates and keeps those at or above min_relevance: the
// limit, or the over-fetched pool MMR chooses from.
func rank(cands map[string]*memory.Candidate, cfg memory.RetrievalConfig, now time.Time, limit int) []memory.Candidate {
	list := make([]memory.Candidate, 0, len(cands))
	for _, c := range cands {
		list = append(list, *c)
	}
	memory.Fuse(list, cfg, now)
	keep := limit
	if cfg.Diversity {
		keep = limit * cfg.PoolMultiplier
	}
	out := list[:0]
	for _, c := range list {
		if c.Score >= cfg.MinRelevance && len(out) < keep {
			out = append(out, c)
		}
	}
	return out
}

// finish applies MMR when configured and pairs each ranked candidate with its
// entry; candidates whose entry vanished (forgotten since the index synced)
// are dropped.
func finish(ranked []memory.Candidate, entries map[string]memory.Entry, cfg memory.RetrievalConfig, limit int) []memory.Hit {
	live := ranked[:0]
	for _, c := range ranked {
		if e, ok := entries[c.ID]; ok {
			c.Text = e.Content
			live = append(live, c)
		}
	}
	if cfg.Diversity {
		live = memory.MMR(live, cfg.DiversityLambda, limit)
	}
	hits := make([]memory.Hit, 0, min(limit, len(live)))
	for _, c := range live[:min(limit, len(live))] {
		hits = append(hits, memory.Hit{Entry: entries[c.ID], Score: c.Score})
	}
	return hits
}

// loadEntries reads the still-active entries of the ranked candidates.
func loadEntries(ctx context.Context, tx *sql.Tx, ranked []memory.Candidate) (map[string]memory.Entry, error) {
	out := make(map[string]memory.Entry, len(ranked))
	if len(ranked) == 0 {
		return out, nil
	}
	ids := make([]any, len(ranked))
	for i, c := range ranked {
		ids[i] = c.ID
	}
	rows, err := tx.QueryContext(ctx, entryColumns+` FROM memories m WHERE m.forgotten_at IS NULL AND m.id IN (`+placeholders(len(ids))+`)`, ids...)
	if err != nil {
		return nil, fmt.Errorf("load hits: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, err
		}
		out[e.ID] = e
	}
	return out, rows.Err()
}

// spaces lists the collections a scope reads: the agent's personal space,
// and every other agent's shared space.
func (x *Index) spaces(agent string, scope memory.Scope) []string {
	var out []string
	if scope != memory.Shared {
		out = append(out, personalSpace(agent))
	}
	if scope == memory.Personal {
		return out
	}
	var shared []string
	x.mu.RLock()
	for name := range x.vdb.ListCollections() {
		if strings.HasPrefix(name, "s/") && name != sharedSpace(agent) {
			shared = append(shared, name)
		}
	}
	x.mu.RUnlock()
	slices.Sort(shared)
	return append(out, shared...)
}

// meta returns what the index knows of memory id.
func (x *Index) meta(id string) docMeta {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.docs[id]
}
