package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// TestPostgresOutageThroughTheServer: a server on PostgreSQL answers a
// tool call made while the database is down with EBUSY naming the
// database (never its password) and saying to retry, at once; once the
// database is back the next call succeeds, the server having done nothing
// but wait. A server started while the database is down exits saying so.
func TestPostgresOutageThroughTheServer(t *testing.T) {
	c := storetest.OwnPostgres(t)
	url := strings.Replace(c.URL, "postgres@", "postgres:s3cret@", 1) // trusted: never asked for
	_, hostPort, _ := strings.Cut(c.URL, "@")
	hostPort, _, _ = strings.Cut(hostPort, "/")
	name := "postgres://" + hostPort + "/postgres"

	s := start(t, options{args: []string{"--database", url}})
	s.ok("remember", map[string]any{"content": "The standup moved to ten."}, nil)
	c.Down()
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"remember", map[string]any{"content": "Written while the database is down."}},
		{"list_memories", map[string]any{}},
	} {
		res := s.call(call.tool, call.args)
		msg := text(res)
		t.Logf("%s while down: %s", call.tool, msg)
		if !res.IsError || !strings.HasPrefix(msg, "EBUSY: ") || !strings.Contains(msg, name) || !strings.Contains(msg, "retry") ||
			strings.Contains(msg, "s3cret") {
			t.Errorf("%s while the database is down = %q (isError %v), want EBUSY naming %s alone and saying to retry", call.tool, msg, res.IsError, name)
		}
	}
	if strings.Contains(s.stderrText(), "s3cret") {
		t.Errorf("the server logged the password:\n%s", s.stderrText())
	}

	cmd := exec.Command(binary(t), "stdio", "--database", url)
	dir := t.TempDir()
	cmd.Env = cleanEnv(t, dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), name) ||
		!strings.Contains(stderr.String(), "retry") || strings.Contains(stderr.String(), "s3cret") {
		t.Errorf("a server started while the database is down: %v\nstderr: %s", err, stderr.String())
	}

	c.Up()
	s.ok("remember", map[string]any{"content": "Written once the database is back."}, nil)
	var page struct {
		Total int `json:"total"`
	}
	s.ok("list_memories", map[string]any{}, &page)
	if page.Total != 2 {
		t.Errorf("after the restart the server lists %d memories, want the 2 written while it was up", page.Total)
	}
}

// TestPostgresNewerSchemaRefusedByTheServer: a server does not start on a
// PostgreSQL database a newer build migrated; it exits naming the database
// and the migration it does not know.
func TestPostgresNewerSchemaRefusedByTheServer(t *testing.T) {
	url := storetest.PostgresDatabaseURL(t)
	db, err := store.OpenPostgres(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	name := db.Path()
	db.Close()
	raw, err := storetest.OpenPostgresSQL(url)
	if err != nil {
		t.Fatal(err)
	}
	_, err = raw.Exec(`INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_future.sql', 1)`)
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), "stdio", "--database", url)
	cmd.Env = cleanEnv(t, t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	want := "memory-mcp: " + name + " was written by a newer memory-mcp (it has migration 9999_future.sql, which this build does not know); upgrade memory-mcp\n"
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), want) {
		t.Errorf("started on a newer database: %v\nstderr: %s\nwant: %s", err, stderr.String(), want)
	}
}

// TestPostgresServerStartPaysAnOwedScrub: an erase whose scrub a session
// holding a table kept from running commits and leaves the scrub owed in
// the database; the next server to start on it rewrites the tables before
// serving, as on SQLite.
func TestPostgresServerStartPaysAnOwedScrub(t *testing.T) {
	url := storetest.PostgresDatabaseURL(t)
	dir := t.TempDir()
	human := []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}
	s := start(t, options{dataDir: dir, args: []string{"--database", url, "--agent-id", "ann"}})
	s.ok("remember", map[string]any{"content": "The locker code of Quxzorblat is 7781."}, nil)
	s.ok("remember", map[string]any{"content": "The lockers are on floor two."}, nil)
	s.stop()

	raw, err := storetest.OpenPostgresSQL(url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	holder, err := raw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	if _, err := holder.Exec(`LOCK TABLE notes IN ACCESS SHARE MODE`); err != nil {
		t.Fatal(err)
	}
	out, err := runCmd(t, dir, human, "erase", "--human", "--contains", "Quxzorblat", "--reason", "request 8", "--database", url)
	if err != nil || !strings.Contains(out, "memories 1") || !strings.Contains(out, "not rewritten yet") {
		t.Fatalf("an erase while a session holds a table: %q, %v; want one memory erased and the rewrite owed", out, err)
	}
	owed := func() bool {
		t.Helper()
		var n int
		if err := raw.QueryRow(`SELECT count(*) FROM scrub_owed`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	if !owed() {
		t.Fatal("no scrub is owed after an erase whose scrub could not run")
	}
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	s = start(t, options{dataDir: dir, args: []string{"--database", url, "--agent-id", "ann"}})
	if owed() {
		t.Errorf("the server started without paying the scrub owed\nstderr:\n%s", s.stderrText())
	}
	if !strings.Contains(s.stderrText(), "rewrote the database") {
		t.Errorf("the server did not say it paid the scrub:\n%s", s.stderrText())
	}
}
