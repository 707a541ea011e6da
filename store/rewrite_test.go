package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/text"
	"github.com/memory-mcp/memory-mcp/store"
)

// stepMemories is how many memories the migration steps' tests rewrite:
// more than one page of store's rewriteBatch, and not a multiple of it.
const stepMemories = 2345

// fillMemories inserts n memories of ann's, in one statement, as a store
// before the migration step holds them: no dedup keys, no terms (on
// PostgreSQL), length 0. Their contents are ones each key rule reads
// (case, numbers and units, paths, signs, CJK, a text of two
// sentences, which has no meaning key).
func fillMemories(tb testing.TB, db *store.DB, n int) {
	tb.Helper()
	filters := strings.ReplaceAll(store.FilterTokens("ann", false, "default", memory.CategorySemantic, nil), "'", "''")
	q := fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
		INSERT INTO memories (id, agent_id, namespace, category, content, tags, confidence, shared,
			created_at, updated_at, occurred_at, filters, length)
		SELECT 'mem-' || i, 'ann', 'default', 'semantic',
			CASE i %% 6
				WHEN 0 THEN 'Build ' || i || ' of the nightly pipeline failed at step ' || (i %% 17) || '.'
				WHEN 1 THEN 'The upload limit is ' || i || ' MB.'
				WHEN 2 THEN 'Deploy scripts for host ' || i || ' live in scripts/deploy/.'
				WHEN 3 THEN 'IT handles ticket ' || i || ' for the C# service, $' || i || '.00 a month.'
				WHEN 4 THEN '昨日は東京タワーに行った ' || i
				ELSE 'Run ' || i || ' passed. Run ' || (i + 1) || ' failed.'
			END,
			CASE WHEN i %% 4 = 0 THEN '["ops","run ' || i || '"]' ELSE '[]' END,
			1, 0, 1, 1, 1, '%s', 0
		FROM n`, n, filters)
	if _, err := db.SQL().Exec(q); err != nil {
		tb.Fatalf("fill %d memories: %v", n, err)
	}
}

// publishFacts publishes n facts, their words keys the rules' as they are.
func publishFacts(t *testing.T, db *store.DB, n int) {
	t.Helper()
	facts := store.NewFactService(db)
	for i := range n {
		if _, err := facts.Publish(as(senior), memory.FactWrite{FactID: fmt.Sprintf("limit-%02d", i),
			Content: fmt.Sprintf("Uploads to bucket %d stop at %d MB.", i, 10+i), Category: memory.FactConvention}); err != nil {
			t.Fatal(err)
		}
	}
}

// wrongKeys counts the memories and facts whose dedup keys are not the
// text rules' (meaning NULL where there is none), and the memories it read.
func wrongKeys(t *testing.T, db *store.DB) (wrong, memories int) {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT id, content, exact_key, words_key, meaning_key FROM memories`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	meanings := map[bool]bool{}
	for rows.Next() {
		var id, content string
		var e, w, m sql.NullString
		if err := rows.Scan(&id, &content, &e, &w, &m); err != nil {
			t.Fatal(err)
		}
		memories++
		exact, words := text.DedupKeys(content)
		meaning := text.MeaningKey(content)
		meanings[meaning != ""] = true
		if e != (sql.NullString{String: exact, Valid: true}) || w != (sql.NullString{String: words, Valid: true}) ||
			m != (sql.NullString{String: meaning, Valid: meaning != ""}) {
			wrong++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !meanings[true] || !meanings[false] {
		t.Fatalf("the memories with a meaning key and without: %v, want both (a NULL written for one would go unseen)", meanings)
	}
	facts, err := db.SQL().Query(`SELECT content, words_key FROM snapshot`)
	if err != nil {
		t.Fatal(err)
	}
	defer facts.Close()
	for facts.Next() {
		var content string
		var w sql.NullString
		if err := facts.Scan(&content, &w); err != nil {
			t.Fatal(err)
		}
		if _, words := text.DedupKeys(content); w != (sql.NullString{String: words, Valid: true}) {
			wrong++
		}
	}
	return wrong, memories
}

// Migration 0048's re-key, which writes a page of rows a statement, leaves
// every memory's and fact's keys the text rules' on both engines, over
// several pages and a last one part full, whatever was wrong with them:
// never written, a key of the old rules, a meaning key where there is none
// or none where there is one; and the rows already right stay right.
func TestRekeyDedupRewritesEveryRow(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		ctx := context.Background()
		db, _ := openDB(t)
		fillMemories(t, db, stepMemories)
		publishFacts(t, db, 23)
		damage := []string{
			`UPDATE memories SET exact_key = 'old', words_key = 'old', meaning_key = 'old' WHERE pk % 5 = 0`,
			`UPDATE memories SET meaning_key = CASE WHEN meaning_key IS NULL THEN '' ELSE NULL END WHERE pk % 5 = 1`,
			`UPDATE memories SET words_key = words_key || 'x' WHERE pk % 5 = 2`,
			`UPDATE memories SET exact_key = NULL WHERE pk % 5 = 3`,
			`UPDATE snapshot SET words_key = CASE WHEN fact_id LIKE '%1' THEN NULL ELSE 'old' END WHERE fact_id NOT LIKE '%2'`,
		}
		for _, batch := range []int{0, 7} { // the store's pages, then pages of 7 rows
			t.Run(fmt.Sprintf("batch %d", batch), func(t *testing.T) {
				if batch > 0 {
					defer store.SetRewriteBatch(batch)()
				}
				if wrong, n := wrongKeys(t, db); n != stepMemories || wrong < stepMemories*4/5 {
					t.Fatalf("before the step: %d of %d memories and facts keyed wrong, want %d memories, at least %d of them wrong",
						wrong, n, stepMemories, stepMemories*4/5)
				}
				if err := db.Update(ctx, func(tx *store.Tx) error { return store.RekeyDedup(ctx, tx) }); err != nil {
					t.Fatal(err)
				}
				if wrong, n := wrongKeys(t, db); wrong != 0 || n != stepMemories {
					t.Errorf("after the step: %d memories and facts keyed wrong among %d memories, want none among %d", wrong, n, stepMemories)
				}
				exec(t, db, damage...)
			})
		}
	})
}

// Migration 0044's PostgreSQL step, which writes a page of rows a
// statement, leaves every memory's terms and length, every PUBLISH row's
// terms and every repeat's terms what the store's write path gives them,
// over several pages and a last one part full, and sets the guards back.
func TestRefillTermsRewritesEveryRow(t *testing.T) {
	ctx := context.Background()
	db, _ := openPostgresDB(t)
	fillMemories(t, db, stepMemories)
	publishFacts(t, db, 23)
	mems := store.NewMemoryService(db, nil)
	for range 2 { // the second is kept as a repeat of the first
		remember(t, mems, ann, memory.EntryWrite{Content: "The staging cluster restarts at noon.", Tags: []string{"ops"}})
	}
	for _, batch := range []int{0, 7} {
		t.Run(fmt.Sprintf("batch %d", batch), func(t *testing.T) {
			if batch > 0 {
				defer store.SetRewriteBatch(batch)()
			}
			err := db.Update(ctx, func(tx *store.Tx) error {
				for _, q := range []string{ // 0044's SQL, then terms as the tokenizer before it made them
					`ALTER TABLE memories DISABLE TRIGGER memories_immutable`,
					`ALTER TABLE memories DISABLE TRIGGER memories_terms_once`,
					`ALTER TABLE operation_log DISABLE TRIGGER operation_log_terms_once`,
					`UPDATE memories SET terms = CASE WHEN pk % 3 = 0 THEN NULL ELSE to_tsvector('simple', content) END, length = 0`,
					`UPDATE operation_log SET terms = to_tsvector('simple', content) WHERE operation_type = 'PUBLISH'`,
					`UPDATE memory_repeats SET terms = NULL`,
				} {
					if _, err := tx.SQL().ExecContext(ctx, q); err != nil {
						return fmt.Errorf("%s: %w", q, err)
					}
				}
				return store.RefillTerms(ctx, tx)
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct{ table, filters string }{{"memories", "filters"}, {"operation_log", "''"}, {"memory_repeats", "''"}} {
				if n, want := wrongTerms(t, db, c.table, c.filters); n != 0 || want < 1 {
					t.Errorf("%s: %d of %d rows hold terms or a length the write path would not give them", c.table, n, want)
				}
			}
			if _, err := db.SQL().Exec(`UPDATE memories SET length = 1`); err == nil {
				t.Error("a memory's length changed after the step: its guard is not back")
			}
		})
	}
}

// wrongTerms counts the rows of table (a memory's, a PUBLISH row's, a
// repeat's) whose terms, or a memory's length, are not what the write
// path gives them, and the rows it checked.
func wrongTerms(t *testing.T, db *store.DB, table, filters string) (wrong, rows int) {
	t.Helper()
	key, cond, length := "pk", "", "0"
	switch table {
	case "operation_log":
		key, cond = "id", ` WHERE operation_type = 'PUBLISH'`
	case "memories":
		length = "length"
	}
	read, err := db.SQL().Query(`SELECT ` + key + `, content, tags, ` + filters + `, ` + length + ` FROM ` + table + cond)
	if err != nil {
		t.Fatal(err)
	}
	var keys []int64
	var terms []string
	for read.Next() {
		var k, n int64
		var content, tags, f string
		if err := read.Scan(&k, &content, &tags, &f, &n); err != nil {
			t.Fatal(err)
		}
		keys, terms = append(keys, k), append(terms, store.PostgresTerms(f, content, tags))
		if table == "memories" && n != int64(store.IndexedLength(content, decodeTagList(t, tags))) {
			wrong++
		}
	}
	read.Close()
	if err := read.Err(); err != nil {
		t.Fatal(err)
	}
	var differ int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM `+table+` r JOIN unnest($1::bigint[], $2::text[]) AS w(k, terms) ON w.k = r.`+key+`
		WHERE r.terms IS DISTINCT FROM CAST(w.terms AS tsvector)`, keys, terms).Scan(&differ); err != nil {
		t.Fatal(err)
	}
	return wrong + differ, len(keys)
}

// decodeTagList reads a memory's tags column.
func decodeTagList(t *testing.T, tags string) []string {
	var out []string
	if err := json.Unmarshal([]byte(tags), &out); err != nil {
		t.Fatalf("tags %q: %v", tags, err)
	}
	return out
}
