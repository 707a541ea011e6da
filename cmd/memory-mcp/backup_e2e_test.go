package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memory-mcp/memory-mcp/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runCmd runs memory-mcp with args on dataDir, as main does, in the
// environment a test server gets, and returns its standard output.
func runCmd(t *testing.T, dataDir string, env []string, args ...string) (string, error) {
	t.Helper()
	vars := map[string]string{}
	for _, kv := range append(cleanEnv(t, dataDir), env...) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	var out, errb bytes.Buffer
	err := run(context.Background(), append(args, "--data-dir", dataDir), func(k string) string { return vars[k] }, strings.NewReader(""), &out, &errb)
	return out.String(), err
}

// TestBackupUnderConcurrentWrites backs a data directory up while a server
// in another process publishes without pause, restores the backup into an
// empty directory, and checks that the restored store passes verify and
// holds every publish acknowledged before the backup began.
func TestBackupUnderConcurrentWrites(t *testing.T) {
	sqliteOnly(t, "SQLite's online backup of its file; portable_postgres_e2e_test.go covers PostgreSQL's backups")
	dir := t.TempDir()
	s := start(t, options{dataDir: dir, args: []string{"--agent-id", "writer"}})

	type ack struct{ id, content string }
	var (
		mu    sync.Mutex
		acks  []ack
		stop  = make(chan struct{})
		done  = make(chan error, 1)
		count = func() int { mu.Lock(); defer mu.Unlock(); return len(acks) }
	)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			id, content := fmt.Sprintf("fact-%d", i%7), fmt.Sprintf("publish %d", i)
			res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "publish_fact", Arguments: map[string]any{"fact_id": id, "content": content, "category": "convention"}})
			if err != nil || res.IsError {
				done <- fmt.Errorf("publish %d: %v %v", i, err, res)
				return
			}
			mu.Lock()
			acks = append(acks, ack{id, content})
			mu.Unlock()
		}
	}()
	waitUntil(t, func() bool { return count() >= 40 })

	mu.Lock()
	before := append([]ack(nil), acks...)
	mu.Unlock()
	path := filepath.Join(t.TempDir(), "memory.db")
	out, err := runCmd(t, dir, nil, "backup", path)
	if err != nil {
		t.Fatalf("backup: %v", err)
	}
	n := count()
	waitUntil(t, func() bool { return count() >= n+20 }) // the writes went on
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "backed up") {
		t.Errorf("backup printed %q", out)
	}
	for _, leftover := range []string{".partial", "-wal", "-shm"} {
		if _, err := os.Stat(path + leftover); err == nil {
			t.Errorf("backup left %s%s behind", path, leftover)
		}
	}

	restored := filepath.Join(t.TempDir(), "data")
	if out, err := runCmd(t, restored, nil, "restore", path); err != nil {
		t.Fatalf("restore: %v", err)
	} else if !strings.Contains(out, "restored") {
		t.Errorf("restore printed %q", out)
	}
	if out, err := runCmd(t, restored, nil, "verify"); err != nil {
		t.Fatalf("verify of the restored store: %v\n%s", err, out)
	}
	db, err := openTestStore(context.Background(), t, restored)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	facts := store.NewFactService(db)
	logged := map[string]bool{}
	for i := range 7 {
		ops, err := facts.History(context.Background(), fmt.Sprintf("fact-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			if op.Content != nil {
				logged[fmt.Sprintf("fact-%d=%s", i, *op.Content)] = true
			}
		}
	}
	for _, a := range before {
		if !logged[a.id+"="+a.content] {
			t.Errorf("publish %s = %q was acknowledged before the backup began, but the restored store lacks it", a.id, a.content)
		}
	}
	if len(logged) >= count() {
		t.Errorf("the restored store holds %d publishes, all %d made: the backup was not taken while writes went on", len(logged), count())
	}
}

// waitUntil polls cond until it holds, failing the test after 60 s.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRestoreRefuses: restore writes only into an empty data directory,
// needs the backup's key, and a backup never overwrites a file.
func TestRestoreRefuses(t *testing.T) {
	sqliteOnly(t, "SQLite's online backup of its file; portable_postgres_e2e_test.go covers PostgreSQL's backups")
	dir := t.TempDir()
	startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--embedder", "none"}}).stop()
	path := filepath.Join(t.TempDir(), "b.db")
	if _, err := runCmd(t, dir, nil, "backup", path); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dataDir, want string
		args                []string
		before              func()
	}{
		{name: "no data directory", dataDir: filepath.Join(dir, "nope"), args: []string{"backup", path + ".2"}, want: "the data directory " + filepath.Join(dir, "nope") + " does not exist"},
		{name: "no database", dataDir: t.TempDir(), args: []string{"backup", path + ".3"}, want: " holds no memory.db"},
		{name: "overwrite", dataDir: dir, args: []string{"backup", path}, want: path + " exists"},
		{name: "no path", dataDir: dir, args: []string{"backup"}, want: "backup: give one file to write the backup to"},
		{name: "non-empty", dataDir: dir, args: []string{"restore", path}, want: "the data directory " + dir + " is not empty (it holds memory.db, provenance.key)"},
		{name: "no backup", dataDir: t.TempDir(), args: []string{"restore", path + ".nope"}, want: "no such file"},
		{name: "no key", dataDir: filepath.Join(t.TempDir(), "d"), args: []string{"restore", path}, want: "has no b.db.key beside it",
			before: func() { os.Rename(path+".key", path+".k") }},
		{name: "wrong key", dataDir: filepath.Join(t.TempDir(), "d"), args: []string{"restore", path}, want: "not the one",
			before: func() { os.WriteFile(path+".key", []byte(strings.Repeat("ab", 32)+"\n"), 0o600) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.before != nil {
				c.before()
			}
			_, err := runCmd(t, c.dataDir, nil, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v = %v, want an error containing %q", c.args, err, c.want)
			}
			if c.args[0] == "backup" && c.dataDir != dir {
				if _, err := os.Stat(c.args[1]); err == nil {
					t.Errorf("a refused backup wrote %s", c.args[1])
				}
				if entries, _ := os.ReadDir(c.dataDir); len(entries) > 0 {
					t.Errorf("a refused backup left %d files in %s", len(entries), c.dataDir)
				}
			}
			if c.args[0] == "restore" && c.dataDir != dir {
				if entries, _ := os.ReadDir(c.dataDir); len(entries) > 0 {
					t.Errorf("a failed restore left %d files in %s", len(entries), c.dataDir)
				}
			}
		})
	}
}

// TestScheduledBackupsKeepLastN takes a scheduled backup once per interval
// between two servers on one data directory and keeps the newest N, each
// one restorable.
func TestScheduledBackupsKeepLastN(t *testing.T) {
	sqliteOnly(t, "SQLite's online backup of its file; portable_postgres_e2e_test.go covers PostgreSQL's backups")
	dir, backups := t.TempDir(), t.TempDir()
	cfg, err := LoadConfig([]string{"--data-dir", dir, "--backup-dir", backups, "--backup-interval", "1h", "--backup-keep", "2"},
		func(string) string { return "" }, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	db, _, err := openStore(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	key, _, err := provenanceKey(context.Background(), cfg, db)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	log := newLogger(cfg, &bytes.Buffer{})
	for i := range 5 {
		// Twice per step: the second, as another server's look, finds the lease held.
		for range 2 {
			if err := scheduledBackup(context.Background(), cfg, db, key, true, log); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
		}
		now = now.Add(61 * time.Minute)
	}
	os.WriteFile(filepath.Join(backups, "notes.txt"), nil, 0o600) // not a backup: left alone
	if err := pruneBackups(backups, 2); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(backups)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := "memory-20261129T040300Z.db memory-20261129T040300Z.db.key memory-20261129T050400Z.db memory-20261129T050400Z.db.key notes.txt"
	if strings.Join(names, " ") != want {
		t.Fatalf("backup dir holds %v, want %s", names, want)
	}
	if _, err := runCmd(t, filepath.Join(t.TempDir(), "d"), nil, "restore", filepath.Join(backups, names[2])); err != nil {
		t.Fatalf("restore a scheduled backup: %v", err)
	}
}

// TestServerBacksUpOnSchedule: a server with backup-dir set takes its first
// backup when it starts, with its key beside it.
func TestServerBacksUpOnSchedule(t *testing.T) {
	sqliteOnly(t, "SQLite's online backup of its file; portable_postgres_e2e_test.go covers PostgreSQL's backups")
	backups := t.TempDir()
	s := startIn(t, options{args: []string{"--backup-dir", backups, "--backup-interval", "1h", "--embedder", "none"}})
	waitUntil(t, func() bool {
		m, _ := filepath.Glob(filepath.Join(backups, "memory-*.db"))
		return len(m) == 1
	})
	s.stop()
	m, _ := filepath.Glob(filepath.Join(backups, "memory-*.db*"))
	if len(m) != 2 || m[1] != m[0]+".key" {
		t.Fatalf("backup dir holds %v, want a backup and its key", m)
	}
}
