package store

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/score"
)

// WordVectors embeds single words for soft term matching: the search's
// fourth list ranks the candidates the other lists found by how closely
// their words match the query's words ("art" meets "painting", "pets" meets
// "cat"), which exact keyword matching cannot see.
//
// A search compares a few thousand words (its candidates' and its own), and
// embedding a word is a table lookup plus a little arithmetic, so vectors
// are kept for the words seen lately, compactly (one flat slab of floats and
// an index, not a slice per word) and within maxWordBytes: a steady stream
// of new words (ids, names, typos) must not grow the process. The cache is
// two generations: when the newer fills, the older is dropped and the newer
// takes its place, and a word found in the older moves up, so the words in
// use stay while the rest age out.
type WordVectors struct {
	emb      memory.Embedder
	mu       sync.Mutex
	cur, old wordSlab
	perSlab  int // words a generation holds
}

// wordSlab is one generation of the cache: word -> its vector's number in
// chunks of wordChunk vectors each. A chunk's capacity is fixed, so vectors
// handed out never move, and a generation takes memory as it fills.
type wordSlab struct {
	at     map[string]int32
	chunks [][]float32
}

const wordChunk = 1024

// maxWordBytes bounds the word vector cache: with the offline embedder's
// 101 floats a word, about 36,000 words (LoCoMo's 10 conversations use
// about 12,000 distinct ones).
var maxWordBytes = 16 << 20

// maxCachedWord is the longest word the cache keeps (in bytes); a longer
// one (a hash, a blob, minified code) is embedded again whenever it comes
// up, so the keys stay within the bound too.
const maxCachedWord = 32

// NewWordVectors returns word vectors made by emb (the offline word-vector
// embedder: one word is one table lookup).
func NewWordVectors(emb memory.Embedder) *WordVectors {
	// A map entry costs about 50 bytes beside the key, which is cloned.
	per := maxWordBytes / 2 / (4*emb.Dim + 50 + 8 + maxCachedWord)
	return &WordVectors{emb: emb, perSlab: max(per, 1)}
}

// vectors returns the unit vector of every word, embedding the ones not
// cached in one call.
func (w *WordVectors) vectors(ctx context.Context, words []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(words))
	var missing []string
	w.mu.Lock()
	for _, word := range words {
		if _, ok := out[word]; ok {
			continue
		}
		v, ok := w.lookup(word)
		if !ok {
			missing = append(missing, word)
		}
		out[word] = v // nil until embedded below: marks the word seen
	}
	w.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	vecs, err := w.emb.Embed(ctx, missing)
	if err != nil {
		return nil, fmt.Errorf("embed words: %w", err)
	}
	if len(vecs) != len(missing) {
		return nil, fmt.Errorf("embedder %s returned %d vectors for %d words", w.emb.ID, len(vecs), len(missing))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, word := range missing {
		out[word] = w.add(word, score.Unit(vecs[i]))
	}
	return out, nil
}

// lookup finds word's vector in either generation, moving it up from the
// older; mu must be held.
func (w *WordVectors) lookup(word string) ([]float32, bool) {
	if i, ok := w.cur.at[word]; ok {
		return w.cur.vec(i, w.emb.Dim), true
	}
	if i, ok := w.old.at[word]; ok {
		return w.add(word, w.old.vec(i, w.emb.Dim)), true
	}
	return nil, false
}

// add copies v into the newer generation, starting a new one when it is
// full, and returns the copy; mu must be held.
func (w *WordVectors) add(word string, v []float32) []float32 {
	if len(v) != w.emb.Dim || len(word) > maxCachedWord {
		return v // an embedder fault, or too long to keep: matched as it is
	}
	if w.cur.at == nil || len(w.cur.at) >= w.perSlab {
		w.old = w.cur
		w.cur = wordSlab{at: map[string]int32{}}
	}
	i := len(w.cur.at)
	if i%wordChunk == 0 {
		w.cur.chunks = append(w.cur.chunks, make([]float32, 0, wordChunk*w.emb.Dim))
	}
	last := len(w.cur.chunks) - 1
	w.cur.chunks[last] = append(w.cur.chunks[last], v...)
	w.cur.at[strings.Clone(word)] = int32(i)
	return w.cur.vec(int32(i), w.emb.Dim)
}

// vec is vector number i; the full slice expression keeps callers from
// appending into the next one.
func (s *wordSlab) vec(i int32, dim int) []float32 {
	at := int(i%wordChunk) * dim
	return s.chunks[i/wordChunk][at : at+dim : at+dim]
}

// softFloor is the cosine below which two different words do not match at
// all; above it a match counts (cos − floor)/(1 − floor), and the same word
// counts 1. With the offline embedder's lifted vectors 0.8 is a cosine of
// about 0.2 between the words' GloVe vectors; on LoCoMo 0.7 to 0.8 rank
// alike and 0.9 worse.
var softFloor = 0.8

// softDepth is how deep into each other list soft matching looks: it
// re-ranks what they found near their tops.
var softDepth = 50

// softRank ranks the candidates within SoftDepth of the top of some list by
// soft term matching against the query's words: Σ over query words of IDF ×
// the best match among the memory's words. Those with any match get their
// SoftRank; it reports whether any did.
func (s *MemoryService) softRank(ctx context.Context, tx *Tx, terms []queryTerm, st spaceStats, cands map[string]*scored) (bool, error) {
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
		docWords[id] = queryTerms(c)
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

func near(rank int) bool { return rank > 0 && rank <= softDepth }

// softScore is Σ_q IDF(q)·max_w match(q, w).
func softScore(terms []queryTerm, words []string, vecs map[string][]float32, rows float64) float64 {
	wv := make([][]float32, len(words))
	for i, w := range words {
		wv[i] = vecs[w]
	}
	var sum float64
	for _, t := range terms {
		q, best := vecs[t.text], 0.0
		for i, w := range words {
			if w == t.text {
				best = 1
				break
			}
			if c := float64(score.Dot(q, wv[i])); c > softFloor {
				best = math.Max(best, (c-softFloor)/(1-softFloor))
			}
		}
		sum += score.IDF(rows, float64(t.df)) * best
	}
	return sum
}

// contents reads the content of memories ids.
func (s *MemoryService) contents(ctx context.Context, tx *Tx, ids []string) (map[string]string, error) {
	rows, err := s.byIDs(ctx, tx, `SELECT id, content FROM memories WHERE id IN `+idList, ids)
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
