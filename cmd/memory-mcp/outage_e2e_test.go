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
	url := postgresDatabase(t)
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
