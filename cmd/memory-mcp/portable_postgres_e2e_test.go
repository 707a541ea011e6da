package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// TestPortableOnPostgres: with --database, export, import, backup and
// restore are the same commands as on SQLite. A SQLite store's export
// imports into PostgreSQL exactly and exports from it as the same bytes;
// backup writes a checked portable export that restores into an empty
// database as the same memory; a SQLite backup restores into PostgreSQL
// (moving a store from one engine to the other); a restore refuses a
// database that holds memory; erase removes from PostgreSQL what it does
// from SQLite.
func TestPortableOnPostgres(t *testing.T) {
	dir := t.TempDir()
	writeRichMemory(t, dir)
	human := []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}
	files := t.TempDir()
	first := filepath.Join(files, "first.jsonl")
	if _, err := runCmd(t, dir, human, "export", "--output", first); err != nil {
		t.Fatalf("export: %v", err)
	}
	want, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	// The provenance key of a database is in the data directory beside it
	// (or in MEMORY_MCP_PROVENANCE_KEY): one directory per database.
	keys := map[string]string{}
	keyDir := func(db string) string {
		if keys[db] == "" {
			keys[db] = t.TempDir()
		}
		return keys[db]
	}
	exported := func(db string) string {
		t.Helper()
		out, err := runCmd(t, keyDir(db), human, "export", "--database", db)
		if err != nil {
			t.Fatalf("export --database: %v", err)
		}
		return out
	}

	pg := storetest.PostgresDatabaseURL(t)
	out, err := runCmd(t, keyDir(pg), human, "import", first, "--embedder", "none", "--database", pg)
	if err != nil || !strings.Contains(out, "exactly into postgres://") {
		t.Fatalf("import --database: %q, %v", out, err)
	}
	if out, err := runCmd(t, keyDir(pg), nil, "verify", "--database", pg); err != nil {
		t.Fatalf("verify of the imported database: %v\n%s", err, out)
	}
	storetest.SameLines(t, "the export from PostgreSQL", string(want), exported(pg))
	if a, b := searches(t, dir), searches(t, keyDir(pg), "--database", pg); a != b {
		t.Errorf("the same searches found other results in the store imported into PostgreSQL:\n%s\n---\n%s", a, b)
	}

	out, err = runCmd(t, keyDir(pg), human, "import", first, "--dry-run", "--embedder", "none", "--database", pg)
	if err != nil || !strings.Contains(out, "a dry run (nothing was stored) would import through the write gates") {
		t.Fatalf("a dry run of a merge into PostgreSQL: %q, %v", out, err)
	}
	storetest.SameLines(t, "the export after a dry run", string(want), exported(pg))

	backup := filepath.Join(files, "pg.jsonl")
	out, err = runCmd(t, keyDir(pg), nil, "backup", backup, "--database", pg)
	if err != nil || !strings.Contains(out, "as a portable export") || !strings.Contains(out, "pg_dump") {
		t.Fatalf("backup --database: %q, %v", out, err)
	}
	if info, err := os.Stat(backup); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the backup file: %v, %v; want it readable by its owner only", info, err)
	}
	if _, err := runCmd(t, keyDir(pg), nil, "backup", backup, "--database", pg); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a backup over an existing file: %v", err)
	}
	if _, err := runCmd(t, keyDir(pg), human, "restore", backup, "--database", pg); err == nil || !strings.Contains(err.Error(), "already holds memory") {
		t.Errorf("a restore into a database that holds memory: %v", err)
	}
	restored := storetest.PostgresDatabaseURL(t)
	out, err = runCmd(t, keyDir(restored), human, "restore", backup, "--database", restored)
	if err != nil || !strings.Contains(out, "restored") {
		t.Fatalf("restore --database: %q, %v", out, err)
	}
	storetest.SameLines(t, "the export of the restored database", string(want), exported(restored))

	liteBackup := filepath.Join(files, "lite.db")
	if _, err := runCmd(t, dir, nil, "backup", liteBackup); err != nil {
		t.Fatal(err)
	}
	moved := storetest.PostgresDatabaseURL(t)
	if out, err := runCmd(t, keyDir(moved), human, "restore", liteBackup, "--database", moved); err != nil {
		t.Fatalf("restore of a SQLite backup into PostgreSQL: %q, %v", out, err)
	}
	storetest.SameLines(t, "the export of a SQLite backup restored into PostgreSQL", string(want), exported(moved))

	if !bytes.Contains(want, []byte("Quxzorblat")) {
		t.Fatal("the store holds no Quxzorblat: the erase below could not fail")
	}
	out, err = runCmd(t, keyDir(pg), human, "erase", "--human", "--contains", "Quxzorblat", "--reason", "request 5", "--database", pg)
	if err != nil {
		t.Fatalf("erase --database: %q, %v", out, err)
	}
	if got := exported(pg); strings.Contains(strings.ToLower(got), "quxzorblat") {
		t.Errorf("the erased text is still exported from PostgreSQL:\n%s", got)
	}
}
