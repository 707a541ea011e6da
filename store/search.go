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
	"sync"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/score"
	"github.com/memory-mcp/memory-mcp/internal/text"
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
	owner, err := s.searcher(ctx, who, q.AgentID)
	if err != nil {
		return nil, err
	}
	now := s.db.Now.Now()
	f := newFilter(owner, q, nanos(now))
	qvec, err := s.queryVector(ctx, q.Text, cfg)
	if err != nil {
		return nil, err
	}
	pool := max(cfg.Pool, q.Limit*cfg.PoolMultiplier)
	var hits []memory.Hit
	err = s.db.View(ctx, func(tx *Tx) error {
		cands, ran, weight, err := s.candidates(ctx, tx, q.Text, qvec, f, pool, cfg)
		if err != nil {
			return err
		}
		if err := s.confidences(ctx, tx, cands, cfg); err != nil {
			return err
		}
		ranked := rank(cands, cfg, now, q.Limit, ran)
		entries, err := s.loadEntries(ctx, tx, ranked)
		if err != nil {
			return err
		}
		hits = finish(ranked, entries, cfg, q.Limit)
		for i := range hits {
			hits[i].Relevance = relevance(cands[hits[i].ID].BM25, weight)
		}
		ptrs := make([]*memory.Entry, len(hits))
		for i := range hits {
			ptrs[i] = &hits[i].Entry
		}
		return tx.addSources(ctx, ptrs)
	})
	return hits, err
}

// searcher is whose personal memories a search reads: the caller's, or
// for a human naming another agent, that agent's (which must have some).
func (s *MemoryService) searcher(ctx context.Context, who memory.Identity, agent string) (string, error) {
	if agent == "" || agent == who.AgentID {
		return who.AgentID, nil
	}
	var owner memory.Identity
	err := s.db.View(ctx, func(tx *Tx) error {
		var err error
		owner, err = ownerOf(ctx, tx, who, agent, "search the memories of")
		return err
	})
	return owner.AgentID, err
}

// queryVector embeds the query after bringing the index up to date, or
// returns nil when vectors are off or the query has no direction.
func (s *MemoryService) queryVector(ctx context.Context, text string, cfg RetrievalConfig) ([]float32, error) {
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
	return score.Unit(vecs[0]), nil
}

// candidates gathers the lists to fuse: BM25 and vector, and with RRF, when
// the query names a period, BM25 over the memories that occurred in it, and
// soft term matching over all the candidates found. It reports which lists
// produced candidates. Every statistic the rankings use (document
// frequencies, N, mean length) is counted inside the spaces the caller may
// read, so that what other agents keep privately never moves its scores.
// It also returns the query's weight: what a memory holding each query word
// once would score by BM25 (see relevance).
func (s *MemoryService) candidates(ctx context.Context, tx *Tx, text string, qvec []float32, f filter, pool int,
	cfg RetrievalConfig) (map[string]*scored, ranLists, float64, error) {
	var ran ranLists
	cands := map[string]*scored{}
	st, err := s.spaceStats(ctx, tx, f)
	if err != nil {
		return nil, ran, 0, err
	}
	all, err := s.bm25Terms(ctx, tx, longest(queryTerms(text), maxCountedTerms), f, st)
	if err != nil {
		return nil, ran, 0, err
	}
	weight := queryWeight(all, float64(st.rows))
	terms := searchable(all)
	// Soft matching weighs by IDF too; its rarest terms include those no
	// memory holds, which it can still match to similar words.
	all = rarest(all, maxQueryTerms, math.MaxInt)
	if cfg.BM25Weight > 0 {
		list, err := s.bm25List(ctx, tx, terms, f, st, pool)
		if err != nil {
			return nil, ran, 0, err
		}
		if f.withArchive {
			// Words only archived memories hold count too: their document
			// frequency in the active spaces is 0.
			archived := f
			archived.archive = true
			more, err := s.bm25List(ctx, tx, rarest(all, maxQueryTerms, matchBudget), archived, st, pool)
			if err != nil {
				return nil, ran, 0, err
			}
			list = byBM25(append(list, more...), pool)
		}
		// The caller's own words that dedup folded into a memory find
		// it too; all, not terms: a word only a repeat holds is in no
		// memory.
		repeats, err := s.repeatList(ctx, tx, all, f, st)
		if err != nil {
			return nil, ran, 0, err
		}
		list = withRepeats(list, repeats, pool)
		for i, c := range list {
			got := candidate(cands, c)
			got.BM25Rank, got.BM25 = i+1, c.BM25
		}
		ran.BM25 = len(list) > 0
	}
	if qvec != nil {
		ran.Vector = s.vectorCandidates(qvec, f, pool, cfg, cands)
	}
	if cfg.Fusion != FusionRRF {
		return cands, ran, weight, nil
	}
	if ran.Time, err = s.timeList(ctx, tx, text, terms, f, st, pool, cfg, cands); err != nil {
		return nil, ran, 0, err
	}
	if s.Words == nil || cfg.SoftWeight == 0 || len(cands) == 0 {
		return cands, ran, weight, nil
	}
	ran.Soft, err = s.softRank(ctx, tx, all, st, cands)
	return cands, ran, weight, err
}

// byBM25 is the best pool of list by BM25 score. Active and archived
// memories are ranked by one function with the same statistics (those of
// the active spaces the caller reads), so their scores compare.
func byBM25(list []*scored, pool int) []*scored {
	slices.SortStableFunc(list, func(a, b *scored) int {
		if d := cmp.Compare(b.BM25, a.BM25); d != 0 {
			return d
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return list[:min(len(list), pool)]
}

// timeList adds, when the query names a period, the BM25 ranking of the
// memories that occurred in it, and reports whether it did.
func (s *MemoryService) timeList(ctx context.Context, tx *Tx, text string, terms []queryTerm, f filter, st spaceStats, pool int,
	cfg RetrievalConfig, cands map[string]*scored) (bool, error) {
	hint, ok := parseTimeHint(text)
	if !ok || cfg.TimeWeight == 0 {
		return false, nil
	}
	within, ok := f.during(hint.Window(newest(cands, f.now)))
	if !ok {
		return false, nil
	}
	list, err := s.bm25List(ctx, tx, terms, within, st, pool)
	if err != nil {
		return false, err
	}
	for i, c := range list {
		candidate(cands, c).TimeRank = i + 1
	}
	return len(list) > 0, nil
}

// candidate returns the entry for c's memory in cands, adding c if new.
func candidate(cands map[string]*scored, c *scored) *scored {
	if got, ok := cands[c.ID]; ok {
		return got
	}
	cands[c.ID] = c
	return c
}

// newest is the latest occurred_at among the candidates (the reference that
// resolves a period without a year), or now when there are none.
func newest(cands map[string]*scored, now int64) time.Time {
	var t time.Time
	for _, c := range cands {
		if c.OccurredAt.After(t) {
			t = c.OccurredAt
		}
	}
	if t.IsZero() {
		return fromNanos(now)
	}
	return t
}

// bm25List ranks the pool best BM25 matches for terms that pass f. FTS5
// ranks inside the filtered space first (so the ranking runs only on rows
// that can be returned); the range filters are checked on the ranked rows,
// and when they reject so many that fewer than pool remain the ranking is
// redone four times deeper, until the matches run out.
func (s *MemoryService) bm25List(ctx context.Context, tx *Tx, terms []queryTerm, f filter, st spaceStats, pool int) ([]*scored, error) {
	if s.db.postgres {
		return s.postgresBM25(ctx, tx, terms, f, st, pool)
	}
	words := make([]string, len(terms))
	for i, t := range terms {
		words[i] = t.text
	}
	match := f.match(words)
	if match == "" {
		return nil, nil
	}
	cond, args := f.sql()
	args = slices.Concat(args, []any{rankArgs(terms), st.rows, st.avgdl(), match})
	// A period (the time list, since, until) that holds few memories is
	// applied before ranking: FTS5 ranks only the matches that occurred in
	// it, found through the occurred_at index, instead of ranking ever
	// deeper. The unary + keeps the IN list a filter on FTS5's matches:
	// offered to FTS5 as a rowid constraint, it would rerun the whole match
	// once per memory in the period. A period holding many memories is
	// checked on the ranked rows instead, as every other filter is, since
	// building its list would cost more than ranking a little deeper.
	window := ""
	if (f.since != 0 || f.until != 0) && !f.archive { // the archive is filtered on the ranked rows
		lo, hi := cmp.Or(f.since, math.MinInt64), cmp.Or(f.until, math.MaxInt64)
		n, err := s.inPeriod(ctx, tx, lo, hi)
		if err != nil {
			return nil, err
		}
		if n < periodListLimit {
			window = " AND +rowid IN (SELECT pk FROM memories WHERE occurred_at >= ? AND occurred_at < ? AND " + activeSQL + ")"
			args = append(args, lo, hi)
		}
	}
	for depth := pool; ; depth *= 4 {
		ranked, passed, err := s.bm25Ranking(ctx, tx, f.index(), cond, window, args, depth, pool)
		if err != nil || len(passed) >= pool || ranked < depth {
			return passed, err
		}
	}
}

// periodListLimit is the most memories a period may hold for bm25List to
// rank inside it rather than filter the ranking.
var periodListLimit = 4000

// inPeriod counts the active memories of every space that occurred in
// [lo, hi), up to periodListLimit.
func (s *MemoryService) inPeriod(ctx context.Context, tx *Tx, lo, hi int64) (int, error) {
	var n int
	err := tx.queryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM memories
		WHERE occurred_at >= ? AND occurred_at < ? AND `+activeSQL+` LIMIT ?) p`, lo, hi, periodListLimit).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count memories in period: %w", err)
	}
	return n, nil
}

// bm25Ranking returns how many rows FTS5 ranked (at most depth) and the
// first pool of them that pass cond, best first. args are cond's, then
// memory_rank's, the MATCH expression's and window's; fts is the full-text
// index to rank in.
func (s *MemoryService) bm25Ranking(ctx context.Context, tx *Tx, fts, cond, window string, args []any, depth, pool int) (int, []*scored, error) {
	st, err := tx.stmt(ctx, `SELECT m.id, m.shared, m.occurred_at, m.confidence, f.score, `+cond+`
		FROM (SELECT rowid, memory_rank(`+fts+`, ?, ?, ?) AS score FROM `+fts+`
		      WHERE `+fts+` MATCH ?`+window+` ORDER BY score DESC, rowid LIMIT ?) f
		JOIN memories m ON m.pk = f.rowid ORDER BY f.score DESC, f.rowid`)
	if err != nil {
		return 0, nil, err
	}
	rows, err := st.QueryContext(ctx, append(slices.Clone(args), depth)...)
	if err != nil {
		return 0, nil, fmt.Errorf("bm25 search: %w", err)
	}
	defer rows.Close()
	ranked := 0
	var out []*scored
	for rows.Next() {
		c := &scored{}
		var shared, pass bool
		var occurred int64
		if err := rows.Scan(&c.ID, &shared, &occurred, &c.Confidence, &c.BM25, &pass); err != nil {
			return 0, nil, err
		}
		ranked++
		if pass && len(out) < pool {
			c.Personal, c.OccurredAt, c.known = !shared, fromNanos(occurred), true
			out = append(out, c)
		}
	}
	return ranked, out, rows.Err()
}

// matchBudget bounds how many index rows one BM25 query may match. Ranking
// costs a few microseconds a row, so a query whose words are common in a
// large store would spend most of a search ranking rows that cannot win.
var matchBudget = 5000

// queryTerm is one word a BM25 query looks for, with its document frequency.
type queryTerm struct {
	text string
	df   int
}

// spaceStats are BM25's collection statistics over the spaces a search reads.
type spaceStats struct {
	scope  string // the spaces, as a cache key
	rows   int64  // memories the full-text index holds in them
	tokens int64  // their tokens
	gen    int64  // moves on every memory written or forgotten in them
}

// avgdl is the mean length of a memory in tokens.
func (st spaceStats) avgdl() float64 { return max(1, float64(st.tokens)/float64(max(st.rows, 1))) }

// spaceStats reads the statistics of the spaces f's scope reads.
func (s *MemoryService) spaceStats(ctx context.Context, tx *Tx, f filter) (spaceStats, error) {
	cond, args := f.spaceSQL()
	st := spaceStats{scope: string(f.scope) + "/" + f.agent}
	err := tx.queryRow(ctx, `SELECT coalesce(sum(rows), 0), coalesce(sum(tokens), 0), coalesce(sum(gen), 0)
		FROM memory_spaces WHERE `+cond, args...).Scan(&st.rows, &st.tokens, &st.gen)
	if err != nil {
		return st, fmt.Errorf("space statistics: %w", err)
	}
	return st, nil
}

// bm25Terms pairs the query's words with their document frequencies in the
// spaces f reads (the rankings' IDF needs them). Frequencies are counted
// with one FTS5 query per word, and remembered while those spaces change
// by less than 1%: IDF hardly moves in that time, and a search's words
// recur across searches.
func (s *MemoryService) bm25Terms(ctx context.Context, tx *Tx, words []string, f filter, st spaceStats) ([]queryTerm, error) {
	terms := make([]queryTerm, len(words))
	for i, w := range words {
		terms[i].text = w
		if df, ok := s.dfs.get(st, w); ok {
			terms[i].df = df
			continue
		}
		df, err := s.frequency(ctx, tx, w, f)
		if err != nil {
			return nil, fmt.Errorf("term frequency: %w", err)
		}
		terms[i].df = df
		s.dfs.put(st, w, df)
	}
	return terms, nil
}

// frequency counts the active memories in f's spaces whose content or tags
// hold word.
func (s *MemoryService) frequency(ctx context.Context, tx *Tx, word string, f filter) (int, error) {
	if s.db.postgres {
		return s.postgresFrequency(ctx, tx, word, f)
	}
	var n int
	err := tx.queryRow(ctx, `SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?`,
		"{content tags} : "+MatchAny(word)+" AND "+f.scopeMatch()).Scan(&n)
	return n, err
}

// dfCache remembers document frequencies per scope and word, with the
// generation and size of the spaces they were counted in.
type dfCache struct {
	mu sync.Mutex
	m  map[string]dfEntry
}

type dfEntry struct {
	df        int
	gen, rows int64
}

// maxCachedFrequencies bounds the cache (about 100 bytes an entry).
const maxCachedFrequencies = 100_000

func (c *dfCache) get(st spaceStats, word string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[st.scope+"\x00"+word]
	if !ok || st.gen < e.gen || st.gen-e.gen > e.rows/100 {
		return 0, false
	}
	return e.df, true
}

// put remembers df unless it is 0: a word no memory holds yet must be
// counted again, or a memory written since would not be found by it.
func (c *dfCache) put(st spaceStats, word string, df int) {
	if df == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedFrequencies {
		c.m = map[string]dfEntry{}
	}
	c.m[st.scope+"\x00"+word] = dfEntry{df: df, gen: st.gen, rows: st.rows}
}

// maxCountedTerms bounds the distinct words whose frequency one search
// counts (one FTS5 query each, about 0.1-1 ms cold): of a longer query, the
// longest words, which are mostly the rarest, go on to the rarest-first cut
// below.
const maxCountedTerms = 64

// longest returns the n longest of words (all of them when there are no
// more), in their order; among words of one length the earlier win.
func longest(words []string, n int) []string {
	if len(words) <= n {
		return words
	}
	idx := make([]int, len(words))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(len(words[b]), len(words[a])) })
	idx = idx[:n]
	slices.Sort(idx)
	out := make([]string, n)
	for i, j := range idx {
		out[i] = words[j]
	}
	return out
}

// maxQueryTerms bounds the distinct words one search ranks by. A long query
// (memory_context invites "what the conversation is about") has hundreds;
// ranking by all of them costs time in proportion (each is looked up in
// every matching row, and softly matched against every candidate's words)
// while the commonest add almost nothing: BM25 weighs a word by its IDF, so
// the rarest words decide the ranking. LoCoMo's questions have far fewer.
var maxQueryTerms = 32

// searchable are the terms BM25 searches for: the maxQueryTerms rarest of
// those some memory contains. Over matchBudget rows in total the commonest
// go first too, while the rarest always stays: common words carry the least
// weight in BM25 (lowest IDF), so the top of the ranking changes little.
func searchable(terms []queryTerm) []queryTerm {
	terms = slices.DeleteFunc(slices.Clone(terms), func(t queryTerm) bool { return t.df == 0 })
	return rarest(terms, maxQueryTerms, matchBudget)
}

// rarest keeps, in the query's order, the n terms of lowest document
// frequency, fewer if their frequencies add up to more than budget (but
// always the rarest one).
func rarest(terms []queryTerm, n, budget int) []queryTerm {
	order := slices.Clone(terms)
	slices.SortStableFunc(order, func(a, b queryTerm) int { return a.df - b.df })
	keep, sum := map[string]bool{}, 0
	for i, t := range order {
		if i == n || i > 0 && sum+t.df > budget {
			break
		}
		keep[t.text], sum = true, sum+t.df
	}
	return slices.DeleteFunc(slices.Clone(terms), func(t queryTerm) bool { return !keep[t.text] })
}

// rankArgs renders the terms' document frequencies for memory_rank,
// comma-separated, in the order the MATCH expression names them.
func rankArgs(terms []queryTerm) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = strconv.Itoa(t.df)
	}
	return strings.Join(parts, ",")
}

// vectorCandidates ranks the pool nearest memories that pass f, adding to
// cands those at or above the vector floor; it reports whether the list
// produced any candidate.
func (s *MemoryService) vectorCandidates(vec []float32, f filter, pool int, cfg RetrievalConfig, cands map[string]*scored) bool {
	hits := s.Index.query(vectorQuery{vec: vec, spaces: s.Index.spaceNames(f.agent, f.scope), keep: f.keep, n: pool})
	if len(hits) == 0 {
		return false
	}
	floor := cfg.VectorFloor
	rank := 0 // among the memories the list keeps, so first place is 1 whatever the floor left out
	for _, h := range hits {
		c, ok := cands[h.id]
		if !ok {
			if !(h.cosine >= floor) { // NaN included
				continue
			}
			c = &scored{ID: h.id, Personal: h.personal, OccurredAt: fromNanos(h.occurred)}
			cands[h.id] = c
		}
		rank++
		c.VectorRank, c.Cosine = rank, h.cosine
	}
	return rank > 0
}

// confidences reads, when ranking weighs confidence, the confidence of the
// candidates the BM25 list did not read it for (those only vectors found).
func (s *MemoryService) confidences(ctx context.Context, tx *Tx, cands map[string]*scored, cfg RetrievalConfig) error {
	if cfg.ConfidenceWeight == 0 {
		return nil
	}
	var ids []string
	for id, c := range cands {
		if !c.known {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := s.byIDs(ctx, tx, `SELECT id, confidence FROM memories WHERE id IN `+idList, ids)
	if err != nil {
		return fmt.Errorf("read confidences: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var conf float64
		if err := rows.Scan(&id, &conf); err != nil {
			return fmt.Errorf("read confidences: %w", err)
		}
		cands[id].Confidence, cands[id].known = conf, true
	}
	return rows.Err()
}

// queryWeight is what a memory holding each of the query's counted words
// once scores by BM25 (with b 0, a word found once adds its IDF). A word no
// memory holds weighs as a word one memory holds: the query asks for it, but
// its IDF over no memory would be all the weight there is. A function word
// weighs nothing: a query of only such words ("the") is searched by them,
// but asks for nothing a memory can hold, so every hit's relevance is 0.
func queryWeight(terms []queryTerm, rows float64) float64 {
	var w float64
	for _, t := range terms {
		if text.StopWords[t.text] {
			continue
		}
		w += score.IDF(rows, float64(max(t.df, 1)))
	}
	return w
}

// relevance is a hit's BM25 score over the query's weight, at most 1: the
// share of what the query asks for, its rare words weighing most, that the
// memory's words hold. Unlike the fused score, which puts the best of any
// search near 1, it means the same for every query; the ranking stays the
// fused score's.
func relevance(bm25, weight float64) float64 {
	if weight <= 0 || bm25 <= 0 {
		return 0
	}
	return math.Round(min(1, bm25/weight)*1000) / 1000
}

// rank fuses the candidates and keeps those at or above min_relevance: the
// limit, or the over-fetched pool MMR chooses from.
func rank(cands map[string]*scored, cfg RetrievalConfig, now time.Time, limit int, ran ranLists) []scored {
	list := make([]scored, 0, len(cands))
	for _, c := range cands {
		list = append(list, *c)
	}
	fuse(list, cfg, now, ran)
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
func finish(ranked []scored, entries map[string]memory.Entry, cfg RetrievalConfig, limit int) []memory.Hit {
	live := ranked[:0]
	for _, c := range ranked {
		if e, ok := entries[c.ID]; ok {
			c.Text = e.Content
			live = append(live, c)
		}
	}
	if cfg.Diversity {
		live = mmr(live, cfg.DiversityLambda, limit)
	}
	hits := make([]memory.Hit, 0, min(limit, len(live)))
	for _, c := range live[:min(limit, len(live))] {
		hits = append(hits, memory.Hit{Entry: entries[c.ID], Score: c.Score})
	}
	return hits
}

// idList stands in a query for the ids byIDs binds, as a set of memory ids.
const idList = `(SELECT value FROM json_each(?))`

// byIDs runs query (a cached statement) with ids bound, as one JSON array,
// to its one idList.
func (s *MemoryService) byIDs(ctx context.Context, tx *Tx, query string, ids []string) (*sql.Rows, error) {
	list, _ := json.Marshal(ids)
	return tx.query(ctx, query, string(list))
}

// loadEntries reads the still-active entries of the ranked candidates.
func (s *MemoryService) loadEntries(ctx context.Context, tx *Tx, ranked []scored) (map[string]memory.Entry, error) {
	out := make(map[string]memory.Entry, len(ranked))
	if len(ranked) == 0 {
		return out, nil
	}
	ids := make([]string, len(ranked))
	for i, c := range ranked {
		ids[i] = c.ID
	}
	rows, err := s.byIDs(ctx, tx, entryColumns+` FROM memories m WHERE m.forgotten_at IS NULL AND m.id IN `+idList, ids)
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

// spaceNames lists the spaces a scope reads: the agent's personal space,
// and every other agent's shared space; scope shared reads the agent's own
// shared space too.
func (x *Index) spaceNames(agent string, scope memory.Scope) []string {
	var out []string
	if scope != memory.ScopeShared {
		out = append(out, personalSpace(agent))
	}
	if scope == memory.ScopePersonal {
		return out
	}
	var shared []string
	x.mu.RLock()
	for name := range x.spaces {
		if strings.HasPrefix(name, "s/") && (name != sharedSpace(agent) || scope == memory.ScopeShared) {
			shared = append(shared, name)
		}
	}
	x.mu.RUnlock()
	slices.Sort(shared)
	return append(out, shared...)
}
