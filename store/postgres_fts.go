package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/score"
	"github.com/memory-mcp/memory-mcp/internal/text"
)

// Full-text search on PostgreSQL. A row keeps its terms as a tsvector
// (terms) made in Go from text.Terms, the terms SQLite's FTS5 indexes
// through the "memory" tokenizer, so both engines hold the same terms; a
// search finds its candidates through the partial GIN indexes (terms @@ a
// tsquery of the same words and filter tokens FTS5 matches) and scores them
// with memory_rank's own arithmetic (postgresBM25), so that both engines
// rank alike to the last bit.
//
// The tsvector is not a word list with positions: each term of the
// content and tags has one position per occurrence (weight D, the
// default), up to maxTermFrequency, which is all BM25 reads of it; each
// filter token (space, namespace, category, tag) has weight A, so a
// filter matches only the filters, as FTS5's column filter does.

// maxTermFrequency is the most occurrences of one term a row's score
// counts: PostgreSQL keeps at most 256 positions of a lexeme, and SQLite's
// ranking counts no more, so the engines agree. BM25 has long saturated by
// then (k1 0.9: the 256th occurrence adds 0.001% to a term's score).
const maxTermFrequency = 256

// postgresTerms is the tsvector, as PostgreSQL reads its text form, of a
// row whose indexed texts (content, tags as stored) are texts and whose
// filters column is filters.
func postgresTerms(filters string, texts ...string) string {
	count := map[string]int{}
	for _, s := range texts {
		for _, sp := range text.Terms(s) {
			count[sp.Term]++
		}
	}
	filter := map[string]bool{}
	for _, sp := range text.Terms(filters) {
		filter[sp.Term] = true
		if _, ok := count[sp.Term]; !ok {
			count[sp.Term] = 0
		}
	}
	lexemes := make([]string, 0, len(count))
	for t := range count {
		lexemes = append(lexemes, t)
	}
	slices.Sort(lexemes)
	var b strings.Builder
	for i, t := range lexemes {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteLexeme(t))
		n := min(count[t], maxTermFrequency)
		for p := 1; p <= n; p++ {
			b.WriteByte(":,"[min(p-1, 1)])
			b.WriteString(strconv.Itoa(p))
		}
		if filter[t] {
			b.WriteByte(":,"[min(n, 1)])
			b.WriteString(strconv.Itoa(n+1) + "A")
		}
	}
	return b.String()
}

// quoteLexeme quotes a term for a tsvector's or a tsquery's text form.
func quoteLexeme(t string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(t, `\`, `\\`), "'", "''") + "'"
}

// indexMemory writes, on PostgreSQL, the terms of the memory just inserted
// at pk; on SQLite the FTS5 triggers index it. The terms are written once,
// as a stamp is (the schema refuses to change them), by the statement
// right after the insert, so that the insert is one statement on both
// engines.
func (tx *Tx) indexMemory(ctx context.Context, pk int64, content, tags, filters string) error {
	if !tx.db.postgres {
		return nil
	}
	if _, err := tx.exec(ctx, `UPDATE memories SET terms = ?::tsvector WHERE pk = ?`, postgresTerms(filters, content, tags), pk); err != nil {
		return fmt.Errorf("index memory: %w", err)
	}
	return nil
}

// indexFact writes, on PostgreSQL, the terms of the PUBLISH row just
// appended to the operation log at id (SQLite's trigger fills fact_fts).
func (tx *Tx) indexFact(ctx context.Context, id int64, content, tags string) error {
	if !tx.db.postgres {
		return nil
	}
	if _, err := tx.exec(ctx, `UPDATE operation_log SET terms = ?::tsvector WHERE id = ?`, postgresTerms("", content, tags), id); err != nil {
		return fmt.Errorf("index fact: %w", err)
	}
	return nil
}

// indexRepeat writes, on PostgreSQL, the terms of the repeat just kept as
// id (SQLite's trigger fills repeat_fts).
func (tx *Tx) indexRepeat(ctx context.Context, id, content, tags string) error {
	if !tx.db.postgres {
		return nil
	}
	if _, err := tx.exec(ctx, `UPDATE memory_repeats SET terms = ?::tsvector WHERE id = ?`, postgresTerms("", content, tags), id); err != nil {
		return fmt.Errorf("index repeat: %w", err)
	}
	return nil
}

// lexemeOf is the term a query word is looked for by: the one its text
// makes, which FTS5 makes of the quoted word too (a word of Words always
// makes one).
func lexemeOf(word string) string {
	if ts := text.Terms(word); len(ts) > 0 {
		return ts[0].Term
	}
	return word
}

// tsquery renders f.match for PostgreSQL: any of words in the content or
// tags (weight D), restricted by f's filter tokens (weight A).
func (f filter) tsquery(words []string) string {
	if len(words) == 0 {
		return ""
	}
	found := make([]string, len(words))
	for i, w := range words {
		found[i] = quoteLexeme(lexemeOf(w)) + ":D"
	}
	parts := []string{"(" + strings.Join(found, " | ") + ")", f.scopeQuery(), anyLexeme("c", f.cats), anyLexeme("n", f.ns)}
	for _, t := range f.tags {
		parts = append(parts, anyLexeme("t", []string{t}))
	}
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), " & ")
}

// scopeQuery is scopeMatch for PostgreSQL.
func (f filter) scopeQuery() string {
	me := filterLexeme("p", f.agent)
	switch f.scope {
	case memory.ScopePersonal:
		return me
	case memory.ScopeShared:
		return quoteLexeme(sharedToken) + ":A"
	}
	return "(" + me + " | " + quoteLexeme(sharedToken) + ":A) & !" + filterLexeme("s", f.agent)
}

// filterLexeme matches a filter token in the filters (weight A) only.
func filterLexeme(kind, value string) string { return quoteLexeme(filterToken(kind, value)) + ":A" }

// anyLexeme is anyToken for PostgreSQL.
func anyLexeme[T ~string](kind string, values []T) string {
	if len(values) == 0 {
		return ""
	}
	toks := make([]string, len(values))
	for i, v := range values {
		toks[i] = filterLexeme(kind, string(v))
	}
	return "(" + strings.Join(toks, " | ") + ")"
}

// postgresFrequency counts, on PostgreSQL, the active memories in f's
// spaces whose content or tags hold word (bm25Terms' count).
func (s *MemoryService) postgresFrequency(ctx context.Context, tx *Tx, word string, f filter) (int, error) {
	var n int
	q := quoteLexeme(lexemeOf(word)) + ":D & " + f.scopeQuery()
	err := tx.queryRow(ctx, `SELECT count(*) FROM memories WHERE terms @@ ?::tsquery
		AND forgotten_at IS NULL AND archived_at IS NULL`, q).Scan(&n)
	return n, err
}

// postgresBM25 is bm25List on PostgreSQL: the pool best matches of terms
// that pass f, scored by memory_rank's BM25. Every filter is applied before
// ranking (PostgreSQL's planner orders the work), which returns what
// SQLite's rank-then-filter returns: both order by score, then by row.
//
// PostgreSQL finds the matches and cuts each one's terms down to the
// query's lexemes (ts_filter drops the filter tokens' positions, of weight
// A; setweight marks the query's lexemes A and a second ts_filter keeps
// them), all in C on the packed tsvector; the scores are memory_rank's own
// arithmetic (bm25), here. Scoring in SQL had to unnest the terms into rows
// and group them back per memory, which cost twice what finding and reading
// the matches does; unnesting every term of every match (about 30 each)
// took 90% of a search at 25k memories.
func (s *MemoryService) postgresBM25(ctx context.Context, tx *Tx, terms []queryTerm, f filter, st spaceStats, pool int) ([]*scored, error) {
	words := make([]string, len(terms))
	lexemes := make([]string, len(terms))
	rank := &rankState{idf: make([]float64, len(terms)), avgdl: st.avgdl(), freq: make([]float64, len(terms))}
	for i, t := range terms {
		words[i], lexemes[i], rank.idf[i] = t.text, lexemeOf(t.text), score.IDF(float64(st.rows), float64(t.df))
	}
	match := f.tsquery(words)
	if match == "" {
		return nil, nil
	}
	cond, args := f.sql()
	rows, err := tx.query(ctx, `SELECT m.pk, m.id, m.shared, m.occurred_at, m.confidence, m.length,
		ts_filter(setweight(ts_filter(m.terms, '{b,c,d}'), 'a', ?::text[]), '{a}')::text
		FROM memories m WHERE m.terms @@ ?::tsquery AND `+cond, slices.Concat([]any{lexemes, match}, args)...)
	if err != nil {
		return nil, fmt.Errorf("bm25 search: %w", err)
	}
	defer rows.Close()
	type hit struct {
		pk int64
		c  *scored
	}
	var found []hit
	for rows.Next() {
		c := &scored{known: true}
		var pk, occurred, length int64
		var shared bool
		var held string
		if err := rows.Scan(&pk, &c.ID, &shared, &occurred, &c.Confidence, &length, &held); err != nil {
			return nil, err
		}
		if !termFrequencies(held, lexemes, rank.freq) {
			continue // none of the query's words in its text: only in its filters
		}
		c.Personal, c.OccurredAt, c.BM25 = !shared, fromNanos(occurred), bm25(rank, float64(length))
		found = append(found, hit{pk, c})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(found, func(a, b hit) int {
		if d := cmp.Compare(b.c.BM25, a.c.BM25); d != 0 {
			return d
		}
		return cmp.Compare(a.pk, b.pk)
	})
	out := make([]*scored, min(len(found), pool))
	for i := range out {
		out[i] = found[i].c
	}
	return out, nil
}

// termFrequencies sets freq[i] to how many times lexemes[i] occurs in held,
// a tsvector's text form ('lexeme':1A,2A ...), up to maxTermFrequency, and
// reports whether any occurs.
func termFrequencies(held string, lexemes []string, freq []float64) bool {
	clear(freq)
	found := false
	var lex []byte
	for i := 0; i < len(held); {
		if held[i] == ' ' {
			i++
			continue
		}
		// A quoted lexeme: ' and \ are doubled inside.
		lex = lex[:0]
		for i++; i < len(held); i++ {
			c := held[i]
			if c == '\'' && i+1 < len(held) && held[i+1] == '\'' || c == '\\' && i+1 < len(held) {
				i++
			} else if c == '\'' {
				i++
				break
			}
			lex = append(lex, held[i])
		}
		n := 0
		if i < len(held) && held[i] == ':' {
			n = 1
			for i++; i < len(held) && held[i] != ' '; i++ {
				if held[i] == ',' {
					n++
				}
			}
		}
		n = min(n, maxTermFrequency)
		for j, l := range lexemes {
			if l == string(lex) && n > 0 {
				freq[j], found = float64(n), true
			}
		}
	}
	return found
}

// factBM25 is FTS5's bm25() as fact search ranks with it: k1 1.2, b 0.75.
var factBM25 = score.BM25{K1: 1.2, B: 0.75}

// postgresMatch is matchText on PostgreSQL: the facts whose content at the
// time read holds any of words, scored as FTS5's bm25() scores fact_fts (its
// statistics over every published version, each word a phrase, the row's
// length all its terms), in the same order of operations.
func (s *FactService) postgresMatch(ctx context.Context, b *factQuery, words []string) error {
	lexemes := make([]string, len(words))
	query := make([]string, len(words))
	for i, w := range words {
		lexemes[i] = lexemeOf(w)
		query[i] = quoteLexeme(lexemes[i])
	}
	idf := make([]float64, len(words))
	var rows, tokens float64
	err := s.db.View(ctx, func(tx *Tx) error {
		err := tx.queryRow(ctx, `SELECT count(*), coalesce(sum(n), 0) FROM operation_log l,
			LATERAL (SELECT sum(cardinality(positions)) AS n FROM unnest(l.terms)) x
			WHERE l.operation_type = 'PUBLISH'`).Scan(&rows, &tokens)
		if err != nil {
			return fmt.Errorf("fact statistics: %w", err)
		}
		for i, q := range query {
			var df float64
			if err := tx.queryRow(ctx, `SELECT count(*) FROM operation_log
				WHERE operation_type = 'PUBLISH' AND terms @@ ?::tsquery`, q).Scan(&df); err != nil {
				return fmt.Errorf("fact term frequency: %w", err)
			}
			idf[i] = score.IDF(rows, df)
		}
		return nil
	})
	if err != nil {
		return err
	}
	p := factBM25
	b.from = `operation_log hit JOIN ` + b.from + ` ON v.fact_id = hit.fact_id AND v.content_op = hit.id`
	b.where("hit.operation_type = 'PUBLISH' AND hit.terms @@ ?::tsquery", strings.Join(query, " | "))
	b.score = `(SELECT sum(q.idf * ((u.tf * ?::float8) / (u.tf + ?::float8 * (1 - ?::float8 + ?::float8 * d.n / ?::float8))) ORDER BY q.ord)
		FROM (SELECT sum(cardinality(positions)) AS n FROM unnest(hit.terms)) d,
		     (SELECT lexeme, cardinality(positions) AS tf FROM unnest(hit.terms)) u,
		     unnest(?::text[], ?::float8[]) WITH ORDINALITY AS q(term, idf, ord)
		WHERE q.term = u.lexeme) AS score`
	b.scoreArgs = []any{p.K1 + 1, p.K1, p.B, p.B, tokens / max(rows, 1), lexemes, idf}
	b.order = "score DESC, v.fact_id "
	return nil
}

// postgresMigrationSteps are what a PostgreSQL migration needs done in Go
// after its SQL, in its transaction (as migrationSteps are SQLite's).
var postgresMigrationSteps = map[string]func(context.Context, *sql.Tx) error{
	"0033_fts_terms.sql": fillTerms,
	"0048_dedup_rekey_paths_units.sql": func(ctx context.Context, t *sql.Tx) error {
		return rekeyDedup(ctx, t, postgresRekey)
	},
	"0044_terms_signs_cjk.sql": refillTerms,
	"0050_dedup_rekey_camel_case.sql": func(ctx context.Context, t *sql.Tx) error {
		return rekeyDedup(ctx, t, postgresRekey)
	},
	"0053_claims_rekey_modifiers.sql": refillClaimsPostgres,
}

// refillClaimsPostgres is refillClaims on PostgreSQL: the claims of every
// memory (a shared one's under sharedClaims) and of every active fact
// deleted and hashed again by the rules as they now are, a page of
// memories at a time, each page's claims in one statement.
func refillClaimsPostgres(ctx context.Context, t *sql.Tx) error {
	if _, err := t.ExecContext(ctx, `DELETE FROM memory_claims`); err != nil {
		return err
	}
	const page = 1000
	for after := int64(-1); ; {
		rows, err := t.QueryContext(ctx, `SELECT pk, agent_id, shared, content FROM memories WHERE pk > $1 ORDER BY pk LIMIT $2`, after, page)
		if err != nil {
			return err
		}
		var agents []string
		var pks, keys, values []int64
		n := 0
		for rows.Next() {
			var pk int64
			var agent, content string
			var shared bool
			if err := rows.Scan(&pk, &agent, &shared, &content); err != nil {
				rows.Close()
				return err
			}
			n, after = n+1, pk
			if shared {
				agent = sharedClaims
			}
			for _, c := range text.ClaimKeys(content) {
				agents, pks, keys, values = append(agents, agent), append(pks, pk), append(keys, c.Key), append(values, c.Value)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(pks) > 0 {
			if _, err := t.ExecContext(ctx, `INSERT INTO memory_claims (agent_id, claim, value, memory_pk)
				SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[]) ON CONFLICT DO NOTHING`,
				agents, keys, values, pks); err != nil {
				return err
			}
		}
		if n < page {
			break
		}
	}
	if _, err := t.ExecContext(ctx, `DELETE FROM fact_claims`); err != nil {
		return err
	}
	rows, err := t.QueryContext(ctx, `SELECT fact_id, content FROM snapshot WHERE retracted_at IS NULL`)
	if err != nil {
		return err
	}
	var ids []string
	var keys, values []int64
	for rows.Next() {
		var id, content string
		if err := rows.Scan(&id, &content); err != nil {
			rows.Close()
			return err
		}
		for _, c := range text.ClaimKeys(content) {
			ids, keys, values = append(ids, id), append(keys, c.Key), append(values, c.Value)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return err
	}
	_, err = t.ExecContext(ctx, `INSERT INTO fact_claims (claim, value, fact_id)
		SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[]) ON CONFLICT DO NOTHING`, keys, values, ids)
	return err
}

// refillTerms writes again the terms of every memory and PUBLISH row and
// the length of every memory, as the terms are made now, counts each
// space's tokens again, and sets back the guards 0044's SQL lifted. The
// rows are written a page at a time (rowRewrite).
func refillTerms(ctx context.Context, t *sql.Tx) error {
	memories := rowRewrite[int64]{
		read:    `SELECT pk, content, tags, filters FROM memories WHERE pk > ? ORDER BY pk LIMIT ?`,
		table:   "memories",
		key:     "pk",
		columns: []string{"terms tsvector", "length bigint"},
		rewrite: func(rows *sql.Rows) (int64, []any, error) {
			var pk int64
			var content, tags, filters string
			if err := rows.Scan(&pk, &content, &tags, &filters); err != nil {
				return 0, nil, err
			}
			var list []string
			if err := json.Unmarshal([]byte(tags), &list); err != nil {
				return 0, nil, fmt.Errorf("tags of memory %d: %w", pk, err)
			}
			return pk, []any{postgresTerms(filters, content, tags), indexedLength(content, list)}, nil
		},
	}
	if err := memories.run(ctx, t, rebindParams, math.MinInt64); err != nil {
		return fmt.Errorf("refill terms: %w", err)
	}
	if err := fillRepeatTerms(ctx, t); err != nil {
		return err
	}
	facts := termsRewrite("operation_log", "id", `SELECT id, content, tags, '' FROM operation_log
		WHERE operation_type = 'PUBLISH' AND id > ? ORDER BY id LIMIT ?`)
	if err := facts.run(ctx, t, rebindParams, math.MinInt64); err != nil {
		return fmt.Errorf("refill terms: %w", err)
	}
	return guardTerms(ctx, t)
}

// guardTerms ends 0044's refill: it counts each space's tokens again, from
// its memories' lengths as refilled, and sets back the guards 0044's SQL
// lifted.
func guardTerms(ctx context.Context, t *sql.Tx) error {
	for _, q := range []string{
		`UPDATE memory_spaces s SET tokens = coalesce((SELECT sum(m.length) FROM memories m
			WHERE m.agent_id = s.agent_id AND m.shared = s.shared AND m.forgotten_at IS NULL AND m.archived_at IS NULL), 0),
			gen = s.gen + 1`,
		`ALTER TABLE memories ENABLE TRIGGER memories_immutable`,
		`ALTER TABLE memories ENABLE TRIGGER memories_terms_once`,
		`ALTER TABLE operation_log ENABLE TRIGGER operation_log_terms_once`,
	} {
		if _, err := t.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("refill terms: %w", err)
		}
	}
	return nil
}

// termsRewrite writes the terms of the rows of table that read selects
// (key, content, tags, filters; rowRewrite's read), as the store's write
// path makes them.
func termsRewrite(table, key, read string) rowRewrite[int64] {
	return rowRewrite[int64]{
		read:    read,
		table:   table,
		key:     key,
		columns: []string{"terms tsvector"},
		rewrite: func(rows *sql.Rows) (int64, []any, error) {
			var k int64
			var content, tags, filters string
			if err := rows.Scan(&k, &content, &tags, &filters); err != nil {
				return 0, nil, err
			}
			return k, []any{postgresTerms(filters, content, tags)}, nil
		},
	}
}

// fillTerms writes the terms of the rows stored before the store wrote
// them: every memory, and every PUBLISH row of the fact log, still without.
func fillTerms(ctx context.Context, t *sql.Tx) error {
	for _, rw := range []rowRewrite[int64]{
		termsRewrite("memories", "pk", `SELECT pk, content, tags, filters FROM memories
			WHERE terms IS NULL AND pk > ? ORDER BY pk LIMIT ?`),
		termsRewrite("operation_log", "id", `SELECT id, content, tags, '' FROM operation_log
			WHERE terms IS NULL AND operation_type = 'PUBLISH' AND id > ? ORDER BY id LIMIT ?`),
	} {
		if err := rw.run(ctx, t, rebindParams, math.MinInt64); err != nil {
			return fmt.Errorf("fill terms: %w", err)
		}
	}
	return nil
}

// fillRepeatTerms writes the terms of the repeats kept (or copied in)
// without them.
func fillRepeatTerms(ctx context.Context, t *sql.Tx) error {
	repeats := termsRewrite("memory_repeats", "pk", `SELECT pk, content, tags, '' FROM memory_repeats
		WHERE terms IS NULL AND pk > ? ORDER BY pk LIMIT ?`)
	if err := repeats.run(ctx, t, rebindParams, math.MinInt64); err != nil {
		return fmt.Errorf("fill repeat terms: %w", err)
	}
	return nil
}
