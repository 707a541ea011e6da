package store_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/memory-mcp/memory-mcp/store"
)

// With FTS5's k1 and b, memory_rank must score exactly as bm25() does when the query has
// only text phrases and the table only the two text columns.
func TestMemoryRankMatchesBuiltinBM25(t *testing.T) {
	defer store.SetBM25(1.2, 0.75)() // FTS5's parameters
	_, db, _ := memories(t, nil)
	sqldb := db.SQL()
	if _, err := sqldb.Exec(`CREATE VIRTUAL TABLE probe USING fts5(content, tags, tokenize = 'porter unicode61 remove_diacritics 2')`); err != nil {
		t.Fatal(err)
	}
	docs := [][2]string{
		{"the deploy pipeline runs nightly", `["ci"]`},
		{"deploy deploy deploy on fridays is risky", `[]`},
		{"postgres backups run nightly at two", `["db","backup"]`},
		{"nothing relevant here at all", `[]`},
		{"a much longer memory about the deploy of the billing service and its many flaky tests", `["deploy"]`},
	}
	for _, d := range docs {
		if _, err := sqldb.Exec(`INSERT INTO probe (content, tags) VALUES (?, ?)`, d[0], d[1]); err != nil {
			t.Fatal(err)
		}
	}
	terms := []string{"deploy", "nightly", "backup"}
	dfs := ""
	for i, term := range terms {
		var n int
		if err := sqldb.QueryRow(`SELECT count(*) FROM probe WHERE probe MATCH ?`, `"`+term+`"`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			dfs += ","
		}
		dfs += strconv.Itoa(n)
	}
	rows, err := sqldb.Query(`SELECT rowid, -bm25(probe), memory_rank(probe, ?) FROM probe WHERE probe MATCH ?`, dfs, `"deploy" OR "nightly" OR "backup"`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id int
		var builtin, ours float64
		if err := rows.Scan(&id, &builtin, &ours); err != nil {
			t.Fatal(err)
		}
		if math.Abs(builtin-ours) > 1e-9 || ours <= 0 {
			t.Errorf("row %d: bm25 %v, memory_rank %v", id, builtin, ours)
		}
		n++
	}
	if n != 4 {
		t.Fatalf("%d rows matched, want 4", n)
	}
}
