package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"

	memory "github.com/memory-mcp/memory-mcp"
)

// WordVectors embeds single words, each once, for soft term matching: the
// search's fourth list ranks the candidates the other lists found by how
// closely their words match the query's words ("art" meets "painting",
// "pets" meets "cat"), which exact keyword matching cannot see.
type WordVectors struct {
	emb   memory.Embedder
	mu    sync.RWMutex
	cache map[string][]float32 // word -> unit vector
}

// maxCachedWords bounds the word vector cache (about 500 bytes a word).
const maxCachedWords = 200_000

// NewWordVectors returns word vectors made by emb (the offline word-vector
// embedder: one word is one table lookup).
func NewWordVectors(emb memory.Embedder) *WordVectors {
	return &WordVectors{emb: emb, cache: map[string][]float32{}}
}

// vectors returns the vector of every word, embedding the ones not seen
// before in one call.
func (w *WordVectors) vectors(ctx context.Context, words []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(words))
	var missing []string
	w.mu.RLock()
	for _, word := range words {
		if v, ok := w.cache[word]; ok {
			out[word] = v
		} else if !slices.Contains(missing, word) {
			missing = append(missing, word)
		}
	}
	w.mu.RUnlock()
	if len(missing) == 0 {
		return out, nil
	}
	vecs, err := w.emb.Embed(ctx, missing)
	if err != nil {
		return nil, fmt.Errorf("embed words: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.cache)+len(missing) > maxCachedWords {
		// A vocabulary this large is mostly ids and typos: start over
		// rather than grow without bound.
		w.cache = map[string][]float32{}
	}
	for i, word := range missing {
		v := normalize(vecs[i])
		w.cache[word], out[word] = v, v
	}
	return out, nil
}

// SoftFloor is the cosine below which two different words do not match at
// all; above it a match counts (cos − floor)/(1 − floor), and the same word
// counts 1. With the offline embedder's lifted vectors 0.8 is a cosine of
// about 0.2 between the words' GloVe vectors; on LoCoMo 0.7 to 0.8 rank
// alike and 0.9 worse.
var SoftFloor = 0.8

// SoftDepth is how deep into each other list soft matching looks: it
// re-ranks what they found near their tops.
var SoftDepth = 50

// softRank ranks the candidates within SoftDepth of the top of some list by
// soft term matching against the query's words: Σ over query words of IDF ×
// the best match among the memory's words. Those with any match get their
// SoftRank; it reports whether any did.
func (s *MemoryService) softRank(ctx context.Context, tx *sql.Tx, terms []queryTerm, st spaceStats, cands map[string]*memory.SearchCandidate) (bool, error) {
	var ids []string
	for id, c := range cands {
		if near(c.BM25Rank) || near(c.VectorRank) || near(c.TimeRank) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 || len(terms) == 0 {
		return false, nil
	}
	contents, err := s.contents(ctx, tx, ids)
	if err != nil {
		return false, err
	}
	docWords := make(map[string][]string, len(contents))
	all := make([]string, 0, len(terms))
	for _, t := range terms {
		all = append(all, t.text)
	}
	for id, c := range contents {
		docWords[id] = QueryTerms(c)
		all = append(all, docWords[id]...)
	}
	vecs, err := s.Words.vectors(ctx, all)
	if err != nil {
		return false, err
	}
	rows := float64(st.rows)
	type scored struct {
		id    string
		score float64
	}
	var list []scored
	for id, words := range docWords {
		if sc := softScore(terms, words, vecs, rows); sc > 0 {
			list = append(list, scored{id, sc})
		}
	}
	slices.SortFunc(list, func(a, b scored) int {
		if d := cmp.Compare(b.score, a.score); d != 0 {
			return d
		}
		return cmp.Compare(a.id, b.id)
	})
	for i, sc := range list {
		cands[sc.id].SoftRank = i + 1
	}
	return len(list) > 0, nil
}

func near(rank int) bool { return rank > 0 && rank <= SoftDepth }

// softScore is Σ_q IDF(q)·max_w match(q, w).
func softScore(terms []queryTerm, words []string, vecs map[string][]float32, rows float64) float64 {
	wv := make([][]float32, len(words))
	for i, w := range words {
		wv[i] = vecs[w]
	}
	var score float64
	for _, t := range terms {
		q, best := vecs[t.text], 0.0
		for i, w := range words {
			if w == t.text {
				best = 1
				break
			}
			if c := dot(q, wv[i]); c > SoftFloor {
				best = math.Max(best, (c-SoftFloor)/(1-SoftFloor))
			}
		}
		score += idf(rows, float64(t.df)) * best
	}
	return score
}

// contents reads the content of memories ids.
func (s *MemoryService) contents(ctx context.Context, tx *sql.Tx, ids []string) (map[string]string, error) {
	list, _ := json.Marshal(ids)
	st, err := s.stmt(ctx, tx, `SELECT id, content FROM memories WHERE id IN (SELECT value FROM json_each(?))`)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, string(list))
	if err != nil {
		return nil, fmt.Errorf("read candidates: %w", err)
	}
	defer rows.Close()
	out := make(map[string]string, len(ids))
	for rows.Next() {
		var id, content string
		if err := rows.Scan(&id, &content); err != nil {
			return nil, err
		}
		out[id] = content
	}
	return out, rows.Err()
}
