package store

import (
	"context"
	"database/sql"
	"strings"

	chromem "github.com/philippgille/chromem-go"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/score"
)

// SetPeriodListLimit changes periodListLimit for a test and returns the undo.
func SetPeriodListLimit(n int) func() {
	old := periodListLimit
	periodListLimit = n
	return func() { periodListLimit = old }
}

// SetMatchBudget changes matchBudget for a test and returns the undo.
func SetMatchBudget(n int) func() {
	old := matchBudget
	matchBudget = n
	return func() { matchBudget = old }
}

// IndexQuery runs the index's vector query over an agent's personal space
// with no filter, for benchmarks that time it apart from BM25.
func (x *Index) IndexQuery(vec []float32, agent string, n int) int {
	return len(x.query(vectorQuery{vec: score.Unit(vec), spaces: []string{personalSpace(agent)}, keep: func(docMeta) bool { return true }, n: n}))
}

// Chromem is the baseline the index is measured against: the same vectors
// in a chromem-go v0.7.0 collection, as the design (docs/DESIGN.md) first planned.
type Chromem struct{ col *chromem.Collection }

// NewChromem loads the vectors of agent's personal memories into chromem.
func NewChromem(ctx context.Context, db *DB, agent string) (*Chromem, error) {
	noEmbed := func(context.Context, string) ([]float32, error) { return nil, context.Canceled }
	col, err := chromem.NewDB().CreateCollection("bench", nil, noEmbed)
	if err != nil {
		return nil, err
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT id, embedding FROM memories WHERE agent_id = ? AND shared = 0 AND forgotten_at IS NULL AND embedding IS NOT NULL`, agent)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var docs []chromem.Document
	for rows.Next() {
		var id string
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return nil, err
		}
		v, err := decodeVectorInto(nil, b)
		if err != nil {
			return nil, err
		}
		if !isZero(v) {
			docs = append(docs, chromem.Document{ID: id, Embedding: score.Unit(v)})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return &Chromem{col: col}, col.AddDocuments(ctx, docs, 2)
}

// Query returns how many of the n nearest chromem found (n clamped to Count).
func (c *Chromem) Query(ctx context.Context, vec []float32, n int) (int, error) {
	res, err := c.col.QueryEmbedding(ctx, score.Unit(vec), min(n, c.col.Count()), nil, nil)
	return len(res), err
}

// SetBM25 changes k1 and b and returns the undo.
func SetBM25(k1, b float64) func() {
	old := bm25Params
	bm25Params = score.BM25{K1: k1, B: b}
	return func() { bm25Params = old }
}

// Words, RowID and Migrations expose internals to the store's own tests.
var (
	Words = textWords
	RowID = rowID
)

// Migrations returns the names of the applied migrations, in order.
func (db *DB) Migrations(ctx context.Context) ([]string, error) { return db.appliedMigrations(ctx) }

// SetConfidenceList makes ranking weigh confidence as one more RRF list
// instead of scaling the fused score, and returns the undo.
func SetConfidenceList(on bool) func() {
	old := confidenceList
	confidenceList = on
	return func() { confidenceList = old }
}

// SharedDuplicateQuery is the statement publish finds its dedup candidates
// in the shared space by, for a test of its plan.
var SharedDuplicateQuery = duplicateQuery[true]

// DeferredIndexes is how many of the full-text triggers an exact import
// lifts while it inserts are, on db, as deferredIndexes knows them.
func DeferredIndexes(db *DB) int {
	n := 0
	for _, d := range deferredIndexes {
		var sql string
		db.sql.QueryRow(`SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?`, d.name).Scan(&sql)
		if strings.Join(strings.Fields(sql), " ") == d.trigger {
			n++
		}
	}
	return n
}

// PostgresMigrations are the PostgreSQL schema's migrations.
var PostgresMigrations = postgresMigrations

// OpenPostgresWith opens a PostgreSQL database with the given migrations.
var OpenPostgresWith = openPostgresWith

// RebindParams renders a statement's parameters in PostgreSQL's form.
var RebindParams = rebindParams

// FilterTokens is the filters column of a memory.
var FilterTokens = filterTokens

// BeforeRerun makes db call f (once) before it next runs a write
// transaction again, as if another writer committed in between.
func (db *DB) BeforeRerun(f func()) {
	db.beforeRerun = func() {
		db.beforeRerun = nil
		f()
	}
}

// ActiveTrendByScan is the trend of active memories as the statistics
// page first drew it, one grouped scan of every memory: what activeTrend,
// counted back from the kept counts, must equal.
func (db *DB) ActiveTrendByScan(ctx context.Context, q memory.TrendQuery) ([]memory.AgentCounts, error) {
	since, step := nanos(q.Since()), int64(q.Step)
	per := map[string][]int{}
	err := db.View(ctx, func(tx *Tx) error {
		rows, err := tx.query(ctx, `SELECT agent_id, CASE WHEN created_at < ?1 THEN -1 ELSE (created_at - ?1) / ?2 END AS born,
		(gone - ?1) / ?2 AS left_at, count(*)
		FROM (SELECT agent_id, created_at, CASE WHEN forgotten_at IS NULL THEN archived_at WHEN archived_at IS NULL THEN forgotten_at
			WHEN forgotten_at < archived_at THEN forgotten_at ELSE archived_at END AS gone FROM memories WHERE shared = 0) m
		WHERE gone IS NULL OR gone >= ?1 GROUP BY 1, 2, 3`, since, step)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var agent string
			var born int64
			var gone sql.NullInt64
			var n int
			if err := rows.Scan(&agent, &born, &gone, &n); err != nil {
				return err
			}
			if per[agent] == nil {
				per[agent] = make([]int, q.Steps)
			}
			for i := max(born, 0); i < int64(q.Steps); i++ {
				if gone.Valid && gone.Int64 <= i {
					break
				}
				per[agent][i] += n
			}
		}
		return rows.Err()
	})
	return topAgents(per, q.Steps), err
}
