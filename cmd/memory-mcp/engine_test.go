package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// The end-to-end tests run on either engine. By default every server keeps
// its memory in the data directory's SQLite file; with
// MEMORY_MCP_TEST_ENGINE=postgres (`make test` runs this package a second
// time so) every data directory a test uses gets a fresh PostgreSQL
// database on the test server (storetest.PostgresEnv) instead, and every
// server and command a test runs on that directory is given it through
// MEMORY_MCP_DATABASE, exactly as a team's server is.
const testEngineEnv = "MEMORY_MCP_TEST_ENGINE"

// onPostgres reports whether this run keeps the memory on PostgreSQL.
func onPostgres() bool { return os.Getenv(testEngineEnv) == "postgres" }

// databases maps a data directory to the PostgreSQL database of this run
// that holds its memory.
var databases = struct {
	sync.Mutex
	url map[string]string
}{url: map[string]string{}}

// databaseFor returns the PostgreSQL URL holding dir's memory on the
// PostgreSQL pass, made on first use and dropped when t ends; "" on SQLite.
// Servers and commands that a test runs on the same directory share it, so
// that a restart finds what was written before.
func databaseFor(t testing.TB, dir string) string {
	if !onPostgres() {
		return ""
	}
	t.Helper()
	dir = filepath.Clean(dir)
	databases.Lock()
	defer databases.Unlock()
	if u, ok := databases.url[dir]; ok {
		return u
	}
	u := storetest.PostgresDatabaseURL(t)
	databases.url[dir] = u
	// Runs before the drop PostgresDatabaseURL registered.
	t.Cleanup(func() {
		databases.Lock()
		delete(databases.url, dir)
		databases.Unlock()
	})
	return u
}

// openTestStore opens dir's memory from the test, as another process
// would: its SQLite file, or its PostgreSQL database on that pass.
func openTestStore(ctx context.Context, t testing.TB, dir string) (*store.DB, error) {
	t.Helper()
	if u := databaseFor(t, dir); u != "" {
		return store.OpenPostgres(ctx, u)
	}
	return store.Open(ctx, filepath.Join(dir, store.FileName))
}

// sqliteOnly skips t on the PostgreSQL pass: for a test of what only the
// SQLite engine has (its file, backup and restore of it), saying why.
func sqliteOnly(t testing.TB, why string) {
	t.Helper()
	if onPostgres() {
		t.Skip("SQLite only: " + why)
	}
}

// storeAt names dir's memory for storetest's helpers: its SQLite file, or
// its PostgreSQL database's URL on that pass.
func storeAt(t testing.TB, dir string) string {
	t.Helper()
	if u := databaseFor(t, dir); u != "" {
		return u
	}
	return filepath.Join(dir, store.FileName)
}

// commandOn is memory-mcp with args as a process, in the environment a test
// server on dir gets (cleanEnv).
func commandOn(t testing.TB, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = cleanEnv(t, dir)
	return cmd
}
