package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// TestPostgresSortsBytewise: on a database whose own collation is a
// language's (ICU's en-US: 'a' before 'B', '_' before '1'), the store's
// text still sorts bytewise, as SQLite's does: ties broken by id come in
// the same order on both engines, and every text column of the schema is
// COLLATE "C" (a later migration's too).
func TestPostgresSortsBytewise(t *testing.T) {
	ctx := context.Background()
	url := storetest.PostgresURLWith(t, `TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`)
	pg, err := store.OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	var languageOrder bool
	if err := pg.SQL().QueryRow(`SELECT 'a' < 'B' AND 'a_1' < 'a1'`).Scan(&languageOrder); err != nil || !languageOrder {
		t.Fatalf("the database does not sort as en-US does (%v, %v): the test shows nothing", languageOrder, err)
	}
	lite, _ := openDB(t)

	ids := []string{"b", "B-2", "a1", "a_1", "a-1", "A1", "a.1", "Z", "a:1"}
	order := func(db *store.DB) []string {
		t.Helper()
		// One instant for every fact: the page orders them by id alone.
		db.Now = storetest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 0).Now
		facts := store.NewFactService(db)
		for i, id := range ids {
			if _, err := facts.Publish(as(senior), memory.FactWrite{FactID: id, Content: "Rule number " + string(rune('a'+i)) + " holds.",
				Category: memory.FactConvention}); err != nil {
				t.Fatal(err)
			}
		}
		page, err := facts.List(as(senior), memory.FactConvention, 0, 50)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range page.Facts {
			got = append(got, f.ID)
		}
		return got
	}
	want := slices.Sorted(slices.Values(ids)) // Go compares strings bytewise
	if got := order(lite); !slices.Equal(got, want) {
		t.Fatalf("SQLite lists %v, want %v", got, want)
	}
	if got := order(pg); !slices.Equal(got, want) {
		t.Fatalf("PostgreSQL lists %v, SQLite %v", got, want)
	}

	rows, err := pg.SQL().Query(`SELECT r.relname || '.' || a.attname FROM pg_attribute a JOIN pg_class r ON r.oid = a.attrelid
		WHERE r.relnamespace = current_schema()::regnamespace AND r.relkind IN ('r', 'p') AND r.relname <> 'schema_migrations'
		AND a.attnum > 0 AND NOT a.attisdropped AND a.atttypid IN ('text'::regtype, 'varchar'::regtype, 'bpchar'::regtype)
		AND a.attcollation <> '"C"'::regcollation ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var col string
		if err := rows.Scan(&col); err != nil {
			t.Fatal(err)
		}
		t.Errorf("text column %s sorts by the database's collation, not bytewise: declare it COLLATE \"C\"", col)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}
