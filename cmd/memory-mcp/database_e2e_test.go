package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// TestRefusesADatabaseItCannotUse: the server does not start on a data
// directory whose memory.db is not a database, or was written by a newer
// build; it exits saying which file and why.
func TestRefusesADatabaseItCannotUse(t *testing.T) {
	sqliteOnly(t, "a damaged or newer memory.db; the store's tests refuse a newer PostgreSQL schema")
	garbage := t.TempDir()
	if err := os.WriteFile(filepath.Join(garbage, store.FileName), bytes.Repeat([]byte("garbage\x00\xff"), 500), 0o600); err != nil {
		t.Fatal(err)
	}
	newer := t.TempDir()
	db, err := store.Open(t.Context(), filepath.Join(newer, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := storetest.AddMigration(t.Context(), filepath.Join(newer, store.FileName), "9999_future.sql"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir, want string
	}{
		{garbage, filepath.Join(garbage, store.FileName) + " is not a memory-mcp database or is corrupt: sqlite3: file is not a database"},
		{newer, filepath.Join(newer, store.FileName) + " was written by a newer memory-mcp (it has migration 9999_future.sql, which this build does not know); upgrade memory-mcp"},
	}
	for _, tt := range tests {
		cmd := exec.Command(binary(t), "stdio", "--data-dir", tt.dir)
		cmd.Env = []string{"HOME=" + tt.dir, "XDG_CONFIG_HOME=" + filepath.Join(tt.dir, "config")}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "memory-mcp: "+tt.want+"\n") {
			t.Errorf("started on %s: %v\nstderr: %s\nwant: %s", tt.dir, err, stderr.String(), tt.want)
		}
	}
}

// TestPostgresOnANewDataDirectory: with the memory in PostgreSQL, nothing
// makes the data directory but the provenance key that goes in it; a
// server on a directory that does not exist yet makes it, with the key,
// and stamps what it writes.
func TestPostgresOnANewDataDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet")
	s := startIn(t, options{dataDir: dir, env: []string{"MEMORY_MCP_DATABASE=" + storetest.PostgresDatabaseURL(t)}, args: []string{"--embedder", "none"}})
	s.ok("publish_fact", map[string]any{"fact_id": "deploys", "content": "Every deploy is reviewed.", "category": "convention"}, nil)
	s.stop()
	info, err := os.Stat(filepath.Join(dir, ProvenanceKeyFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the provenance key in the new data directory: %v, %v", info, err)
	}
	if _, err := os.Stat(filepath.Join(dir, store.FileName)); err == nil {
		t.Errorf("a server on PostgreSQL made %s", store.FileName)
	}
}
