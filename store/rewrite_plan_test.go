package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A migration step's page is written by looking each row up by its key:
// planned as SQLite plans a VALUES list joined to a table, the write
// scanned the whole table for each page, a rewrite of a large store
// quadratic in its rows. So is a page read.
func TestRowRewriteLooksRowsUpByKey(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	plan := func(q string) string {
		rows, err := db.sql.QueryContext(ctx, `EXPLAIN QUERY PLAN `+q, make([]any, strings.Count(q, "?"))...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		var steps []string
		for rows.Next() {
			var id, parent, unused int
			var step string
			if err := rows.Scan(&id, &parent, &unused, &step); err != nil {
				t.Fatal(err)
			}
			steps = append(steps, step)
		}
		return strings.Join(steps, "; ")
	}
	for _, rw := range []struct {
		table, read, write string
	}{
		{memoryKeys.table, memoryKeys.read, memoryKeys.write(rewriteBatch)},
		{factKeys.table, factKeys.read, factKeys.write(rewriteBatch)},
	} {
		for _, q := range []string{rw.read, rw.write} {
			if p := plan(q); strings.Contains(p, "SCAN "+rw.table) || !strings.Contains(p, "SEARCH "+rw.table+" USING") {
				t.Errorf("%.60s...: planned as %q, want %s searched by its key", q, p, rw.table)
			}
		}
	}
}
