package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// TestPostgresOutageIsRetryableAndRecovers: while PostgreSQL is down every
// kind of call (a write, a read, an erase) fails at once with EBUSY naming
// the database, never its password, and saying to retry; no call hangs or
// fails as an internal error. Once the server is back the same handle
// serves the next call, with nothing done by hand.
func TestPostgresOutageIsRetryableAndRecovers(t *testing.T) {
	c := storetest.OwnPostgres(t)
	// The server trusts local connections, so the password is never asked
	// for: it is there to be kept out of every message.
	url := strings.Replace(c.URL, "postgres@", "postgres:s3cret@", 1)
	ctx := context.Background()
	db, err := store.OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	name := db.Path()
	if !strings.HasPrefix(name, "postgres://127.0.0.1:") || !strings.HasSuffix(name, "/postgres") {
		t.Fatalf("the database is named %q", name)
	}
	mem := store.NewMemoryService(db, nil)
	remember(t, mem, senior, memory.EntryWrite{Content: "The standup moved to ten."})

	c.Down()
	calls := []struct {
		what string
		call func(context.Context) error
	}{
		{"remember", func(ctx context.Context) error {
			_, err := mem.Remember(ctx, memory.EntryWrite{Content: "Written while the database is down."})
			return err
		}},
		{"list", func(ctx context.Context) error { _, err := mem.List(ctx, memory.ListQuery{}); return err }},
		{"erase", func(ctx context.Context) error {
			_, err := mem.Erase(as(human), memory.ErasureRequest{Contains: "standup", Reason: "test"})
			return err
		}},
		{"scrub", func(ctx context.Context) error { _, _, err := db.ScrubOwed(ctx); return err }},
	}
	for _, call := range calls {
		// Far beyond the connect timeout: a call still waiting then hangs.
		ctx, cancel := context.WithTimeout(as(senior), time.Minute)
		err := call.call(ctx)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s hung while the database was down", call.what)
		}
		if memory.ErrorCode(err) != memory.EBUSY {
			t.Errorf("%s while the database is down = %v, want EBUSY", call.what, err)
			continue
		}
		t.Logf("%s: %v", call.what, err)
		if msg := err.Error(); !strings.Contains(msg, name) || strings.Contains(msg, "s3cret") || !strings.Contains(msg, "retry") {
			t.Errorf("%s: the error does not name the database alone, or hide the password, or say to retry: %s", call.what, msg)
		}
	}

	c.Up()

	// A server that crashes under a call in flight ends its connection
	// without a word: the call fails as retryable all the same.
	inFlight := make(chan error, 1)
	go func() {
		inFlight <- db.Update(ctx, func(tx *store.Tx) error {
			_, err := tx.SQL().ExecContext(ctx, `SELECT pg_sleep(30)`)
			return err
		})
	}()
	for running := false; !running; {
		time.Sleep(50 * time.Millisecond)
		var n int
		if err := db.SQL().QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		running = n > 0
	}
	c.Crash()
	if err := <-inFlight; memory.ErrorCode(err) != memory.EBUSY || !strings.Contains(err.Error(), name) {
		t.Errorf("a call in flight when the database crashed = %v, want EBUSY naming %s", err, name)
	}
	c.Up()
	// (Written after the crash: the test cluster commits without waiting
	// for its log, so a crash may lose what committed just before it.)
	e := remember(t, mem, senior, memory.EntryWrite{Content: "Written once the database is back."})
	page, err := mem.List(as(senior), memory.ListQuery{})
	if err != nil || len(page.Memories) != 2 {
		t.Fatalf("list after the restart: %+v, %v; want the memory from before and %s", page, err, e.ID)
	}
}
