package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// An engine opens a fresh store for a test, with the clock openDB gives.
type engine struct {
	name string
	open func(testing.TB) (*store.DB, *storetest.Clock)
}

// engines are the store's two engines: SQLite, the default, and PostgreSQL
// on the test server (storetest.PostgresURL).
var engines = []engine{
	{"sqlite", openDB},
	{"postgres", openPostgresDB},
}

// onEngines runs test once per engine, as subtests named after them: the
// same test function holds each engine to the same behaviour.
//
// A test must open its stores through the opener it is given (its
// parameter is named openDB, shadowing the SQLite-only function): one that
// reaches a store another way would run on SQLite twice, so a subtest that
// never called its opener fails.
func onEngines(t *testing.T, test func(t *testing.T, open opener)) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			opened := false
			test(t, func(tb testing.TB) (*store.DB, *storetest.Clock) {
				opened = true
				return e.open(tb)
			})
			if !opened && !t.Skipped() {
				t.Errorf("the test never opened a store through its %s opener", e.name)
			}
		})
	}
}

// openPostgresDB opens a fresh PostgreSQL database with openDB's clock.
func openPostgresDB(t testing.TB) (*store.DB, *storetest.Clock) {
	t.Helper()
	url := storetest.PostgresURL(t)
	db, err := store.OpenPostgres(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	postgresURLs.Store(db, url)
	t.Cleanup(func() { db.Close() })
	clk := storetest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Second)
	db.Now = clk.Now
	return db, clk
}

// opener opens a fresh store on one engine (openDB, openPostgresDB).
type opener = func(testing.TB) (*store.DB, *storetest.Clock)

// postgresURLs keeps the URL each openPostgresDB store was opened with.
var postgresURLs sync.Map // *store.DB -> string

// reopen opens another handle on db's database, as another process would,
// closed when t ends.
func reopen(t testing.TB, db *store.DB) *store.DB {
	t.Helper()
	var other *store.DB
	var err error
	if url, ok := postgresURLs.Load(db); ok {
		other, err = store.OpenPostgres(context.Background(), url.(string))
	} else {
		other, err = store.Open(context.Background(), db.Path())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	return other
}
