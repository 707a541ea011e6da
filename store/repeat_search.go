package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/score"
)

// A write answered "duplicate" stores no memory, and dedup can be wrong:
// the words the caller sent are kept as a repeat (repeat.go). They are
// searched too, with the repeat's author's searches: a search for a word
// only the repeat holds finds the memory it was folded into. A repeat has
// an index of its own (SQLite's repeat_fts, PostgreSQL's memory_repeats
// terms) rather than terms added to its memory's: a memory's index and
// length are its own text's, which BM25 and its space's statistics read,
// and erasing a repeat rewrites nothing of its memory.

// repeatList is the BM25 ranking of the memories that passes f whose
// repeats, said by f's agent and not stored as a memory of their own after
// all, hold any of terms: each scored as its best repeat's words score, by
// the same BM25 and the statistics of the spaces searched (st), so that a
// repeat ranks as a memory of the same words would.
func (s *MemoryService) repeatList(ctx context.Context, tx *Tx, terms []queryTerm, f filter, st spaceStats) ([]*scored, error) {
	if len(terms) == 0 || f.archive {
		return nil, nil
	}
	best, err := s.repeatScores(ctx, tx, terms, f.agent, st)
	if err != nil || len(best) == 0 {
		return nil, err
	}
	ids := make([]string, 0, len(best))
	for id := range best {
		ids = append(ids, id)
	}
	list, _ := json.Marshal(ids)
	cond, args := f.sql()
	rows, err := tx.query(ctx, `SELECT m.id, m.shared, m.occurred_at, m.confidence, m.filters FROM memories m
		WHERE m.id IN `+idList+` AND `+cond, append([]any{string(list)}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("repeat search: %w", err)
	}
	defer rows.Close()
	var out []*scored
	for rows.Next() {
		c := &scored{known: true}
		var shared bool
		var occurred int64
		var filters string
		if err := rows.Scan(&c.ID, &shared, &occurred, &c.Confidence, &filters); err != nil {
			return nil, err
		}
		if f.admits(filters) {
			c.Personal, c.OccurredAt, c.BM25 = !shared, fromNanos(occurred), best[c.ID]
			out = append(out, c)
		}
	}
	return out, rows.Err()
}

// repeatScores is the best BM25 score of agent's repeats of each memory
// that hold any of terms.
func (s *MemoryService) repeatScores(ctx context.Context, tx *Tx, terms []queryTerm, agent string, st spaceStats) (map[string]float64, error) {
	words := make([]string, len(terms))
	for i, t := range terms {
		words[i] = t.text
	}
	var rows interface {
		Next() bool
		Scan(...any) error
		Close() error
		Err() error
	}
	var err error
	if s.db.postgres {
		lexemes, idf, query := make([]string, len(terms)), make([]float64, len(terms)), make([]string, len(terms))
		for i, t := range terms {
			lexemes[i], idf[i] = lexemeOf(t.text), score.IDF(float64(st.rows), float64(t.df))
			query[i] = quoteLexeme(lexemes[i])
		}
		p := bm25Params
		// memory_rank's arithmetic, as postgresBM25 does it, over the
		// repeat's own terms; its length is its count of terms.
		rows, err = tx.query(ctx, `SELECT r.memory_id, sum(q.idf * u.tf * ?::float8 / (u.tf + ?::float8 * (1 - ?::float8 + ?::float8 * d.n / ?::float8)) ORDER BY q.ord)
			FROM memory_repeats r,
			     LATERAL (SELECT sum(least(cardinality(positions), `+strconv.Itoa(maxTermFrequency)+`))::float8 AS n FROM unnest(r.terms)) d,
			     LATERAL (SELECT lexeme, least(cardinality(positions), `+strconv.Itoa(maxTermFrequency)+`) AS tf FROM unnest(r.terms)) u,
			     unnest(?::text[], ?::float8[]) WITH ORDINALITY AS q(term, idf, ord)
			WHERE r.agent_id = ? AND r.stored_as IS NULL AND r.terms @@ ?::tsquery AND q.term = u.lexeme
			GROUP BY r.pk, r.memory_id`,
			p.K1+1, p.K1, p.B, p.B, st.avgdl(), lexemes, idf, agent, strings.Join(query, " | "))
	} else {
		rows, err = tx.query(ctx, `SELECT r.memory_id, f.score
			FROM (SELECT rowid, memory_rank(repeat_fts, ?, ?, ?) AS score FROM repeat_fts
			      WHERE repeat_fts MATCH ? AND +rowid IN (SELECT pk FROM memory_repeats WHERE agent_id = ? AND stored_as IS NULL)) f
			JOIN memory_repeats r ON r.pk = f.rowid`,
			rankArgs(terms), st.rows, st.avgdl(), "{content tags} : ("+MatchAny(strings.Join(words, " "))+")", agent)
	}
	if err != nil {
		return nil, fmt.Errorf("repeat search: %w", err)
	}
	defer rows.Close()
	best := map[string]float64{}
	for rows.Next() {
		var id string
		var sc float64
		if err := rows.Scan(&id, &sc); err != nil {
			return nil, err
		}
		if old, ok := best[id]; !ok || sc > old {
			best[id] = sc
		}
	}
	return best, rows.Err()
}

// withRepeats is the BM25 list with the memories found by their repeats'
// words: each at the better of its own score and its repeats', the list
// ordered again by score only where a repeat moved it (ties keep their
// order), and cut to pool.
func withRepeats(list, repeats []*scored, pool int) []*scored {
	at := make(map[string]int, len(list))
	for i, c := range list {
		at[c.ID] = i
	}
	moved := false
	for _, r := range repeats {
		i, ok := at[r.ID]
		switch {
		case !ok:
			list = append(list, r)
			moved = true
		case r.BM25 > list[i].BM25:
			list[i].BM25, moved = r.BM25, true
		}
	}
	if !moved {
		return list
	}
	slices.SortStableFunc(list, func(a, b *scored) int {
		switch {
		case a.BM25 > b.BM25:
			return -1
		case a.BM25 < b.BM25:
			return 1
		}
		return 0
	})
	return list[:min(len(list), pool)]
}

// admits reports whether a memory whose filters column is filters passes
// f's scope, categories, namespaces and tags, as the full-text match's
// filter tokens do.
func (f filter) admits(filters string) bool {
	has := map[string]bool{}
	for _, t := range strings.Fields(filters) {
		has[t] = true
	}
	mine, shared := has[filterToken("p", f.agent)], has[sharedToken]
	switch f.scope {
	case memory.ScopePersonal:
		if !mine {
			return false
		}
	case memory.ScopeShared:
		if !shared {
			return false
		}
	default:
		if !mine && !shared || has[filterToken("s", f.agent)] {
			return false
		}
	}
	any := func(kind string, values []string) bool {
		if len(values) == 0 {
			return true
		}
		return slices.ContainsFunc(values, func(v string) bool { return has[filterToken(kind, v)] })
	}
	cats := make([]string, len(f.cats))
	for i, c := range f.cats {
		cats[i] = string(c)
	}
	if !any("c", cats) || !any("n", f.ns) {
		return false
	}
	for _, t := range f.tags {
		if !has[filterToken("t", t)] {
			return false
		}
	}
	return true
}
