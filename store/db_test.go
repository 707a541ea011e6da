package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// openDB opens a fresh database file in t.TempDir with a clock that advances one
// second per reading, starting at 2026-01-01.
func openDB(t testing.TB) (*store.DB, *storetest.Clock) {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	clk := storetest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Second)
	db.Now = clk.Now
	return db, clk
}

func as(id memory.Identity) context.Context {
	return memory.WithIdentity(context.Background(), id)
}

var (
	junior = memory.Identity{AgentID: "june", Seniority: memory.SeniorityJunior, Autonomy: memory.AutonomySemi}
	senior = memory.Identity{AgentID: "sam", Seniority: memory.SenioritySenior, Autonomy: memory.AutonomyFull}
	human  = memory.Identity{AgentID: "alice", Human: true}
)

func TestMigrationsUpgradeToTheFreshSchema(t *testing.T) {
	ctx := context.Background()
	names, err := fs.Glob(store.MigrationFS, "*.sql")
	if err != nil || len(names) < 2 {
		t.Fatalf("migrations %v, %v", names, err)
	}
	seen := map[string]string{}
	for _, n := range names {
		num, _, ok := strings.Cut(n, "_")
		if !ok || len(num) != 4 || strings.Trim(num, "0123456789") != "" {
			t.Errorf("migration %s is not named NNNN_name.sql", n)
		}
		if prev, dup := seen[num]; dup {
			t.Errorf("migrations %s and %s share number %s", prev, n, num)
		}
		seen[num] = n
	}
	fresh := schemaOf(t, openWith(t, store.MigrationFS))
	// Every order in which a database can have met the migrations: one at a
	// time, and each one missing (a branch landing after a later number),
	// unless a later migration changes a table it creates or changes: that
	// one was written after it landed (and columns added in another order
	// would come in another order).
	for i := range names {
		upgraded := openSubset(t, names[:i+1], names)
		if got := schemaOf(t, upgraded); got != fresh {
			t.Errorf("upgrading from %v gives a different schema:\n%s\nwant\n%s", names[:i+1], got, fresh)
		}
		if dependedOn(t, names[i], names[i+1:]) {
			continue
		}
		without := append(append([]string{}, names[:i]...), names[i+1:]...)
		late := openSubset(t, without, names)
		if got := schemaOf(t, late); got != fresh {
			t.Errorf("applying %s after the others gives a different schema", names[i])
		}
		applied, _ := late.Migrations(ctx)
		if strings.Join(applied, ",") != strings.Join(names, ",") {
			t.Errorf("applied %v, want %v", applied, names)
		}
	}
}

// dependedOn reports whether one of later alters a table that migration
// name creates or alters, or makes a trigger on one, or drops an index it
// makes, or indexes a column it adds.
func dependedOn(t *testing.T, name string, later []string) bool {
	t.Helper()
	b, err := fs.ReadFile(store.MigrationFS, name)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?:CREATE|ALTER) TABLE (\w+)`).FindAllStringSubmatch(string(b), -1) {
		for _, l := range later {
			lb, _ := fs.ReadFile(store.MigrationFS, l)
			if strings.Contains(string(lb), "ALTER TABLE "+m[1]+" ") ||
				regexp.MustCompile(`CREATE TRIGGER \w+ [^;]*\bON `+m[1]+`\b`).MatchString(string(lb)) {
				return true
			}
		}
	}
	// An index it makes that a later one drops.
	for _, m := range regexp.MustCompile(`CREATE INDEX (\w+)`).FindAllStringSubmatch(string(b), -1) {
		for _, l := range later {
			lb, _ := fs.ReadFile(store.MigrationFS, l)
			if strings.Contains(string(lb), "DROP INDEX "+m[1]+";") {
				return true
			}
		}
	}
	// A column it adds that a later one indexes.
	for _, m := range regexp.MustCompile(`ALTER TABLE (\w+) ADD COLUMN (\w+)`).FindAllStringSubmatch(string(b), -1) {
		for _, l := range later {
			lb, _ := fs.ReadFile(store.MigrationFS, l)
			if regexp.MustCompile(`CREATE INDEX \w+ ON ` + m[1] + ` \([^)]*\b` + m[2] + `\b`).Match(lb) {
				return true
			}
		}
	}
	return false
}

// openSubset opens a database with only the migrations named first, closes
// it, and reopens it with the migrations named then.
func openSubset(t *testing.T, first, then []string) *store.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), store.FileName)
	for _, set := range [][]string{first, then} {
		sub := fstest.MapFS{}
		for _, n := range set {
			b, _ := fs.ReadFile(store.MigrationFS, n)
			sub[n] = &fstest.MapFile{Data: b}
		}
		db, err := store.OpenWith(context.Background(), path, sub)
		if err != nil {
			t.Fatal(err)
		}
		if len(set) == len(then) {
			t.Cleanup(func() { db.Close() })
			return db
		}
		db.Close()
	}
	return nil
}

func openWith(t *testing.T, fsys fs.FS) *store.DB {
	t.Helper()
	db, err := store.OpenWith(context.Background(), filepath.Join(t.TempDir(), store.FileName), fsys)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// schemaOf lists every table, index, trigger and view definition.
func schemaOf(t *testing.T, db *store.DB) string {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT type, name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var typ, name, sql string
		rows.Scan(&typ, &name, &sql)
		fmt.Fprintf(&b, "%s %s: %s\n", typ, name, sql)
	}
	return b.String()
}

func TestChangeFeed(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		ctx := as(senior)
		for i, id := range []string{"a", "b", "a"} {
			if _, err := facts.Publish(ctx, memory.FactWrite{FactID: id, Content: fmt.Sprintf("x %s %d", id, i), Category: memory.FactOther}); err != nil {
				t.Fatal(err)
			}
		}
		// The same words under a new id are a duplicate: nothing changed,
		// and the feed says so on either engine.
		if p, err := facts.Publish(ctx, memory.FactWrite{FactID: "c", Content: "x b 1", Category: memory.FactOther}); err != nil || p.Outcome != memory.WriteOutcomeDuplicate {
			t.Fatalf("a repeat under a new id: %+v, %v", p, err)
		}
		ch, err := db.ChangesSince(ctx, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(ch) != 3 || ch[0].Ref != "a" || ch[1].Ref != "b" || ch[2].Ref != "a" || ch[0].Kind != "fact" {
			t.Fatalf("changes = %+v", ch)
		}
		rest, _ := db.ChangesSince(ctx, ch[1].Seq, 10)
		if len(rest) != 1 || rest[0].Seq != ch[2].Seq {
			t.Fatalf("changes since %d = %+v", ch[1].Seq, rest)
		}
		last, _ := db.LastChange(ctx)
		if last != ch[2].Seq {
			t.Fatalf("last change %d, want %d", last, ch[2].Seq)
		}
	})
}

// TestBusyDatabaseIsRetryable: a lock another connection holds past the busy
// timeout is EBUSY naming the file, for writes and for reads, not an
// internal error; once the lock is gone the same call succeeds.
func TestBusyDatabaseIsRetryable(t *testing.T) {
	defer store.SetBusyTimeout(100 * time.Millisecond)()
	db, _ := openDB(t)
	facts := store.NewFactService(db)
	if _, err := facts.Publish(as(senior), memory.FactWrite{FactID: "f", Content: "x", Category: memory.FactADR}); err != nil {
		t.Fatal(err)
	}
	other, err := store.Open(t.Context(), db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	hold := func(stmts ...string) func() {
		conn, err := other.SQL().Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stmts {
			if _, err := conn.ExecContext(t.Context(), s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		return func() {
			conn.ExecContext(t.Context(), "ROLLBACK") // fails harmlessly after COMMIT
			conn.ExecContext(t.Context(), "PRAGMA locking_mode = NORMAL")
			conn.ExecContext(t.Context(), "SELECT 1 FROM snapshot") // drops the exclusive lock
			conn.Close()
		}
	}
	wantBusy := func(what string, err error) {
		t.Helper()
		want := "the database is busy: " + db.Path() + " stayed locked by another connection (another memory-mcp, or another program) for longer than 0.1 s; retry the call in a few seconds"
		if memory.ErrorCode(err) != memory.EBUSY || memory.ErrorMessage(err) != want {
			t.Fatalf("%s under another connection's lock: %v", what, err)
		}
	}

	release := hold("BEGIN IMMEDIATE")
	_, err = facts.Publish(as(senior), memory.FactWrite{FactID: "g", Content: "y", Category: memory.FactADR})
	wantBusy("publish", err)
	if _, err := facts.Get(as(senior), "f"); err != nil {
		t.Fatalf("a reader waits for no writer in WAL mode: %v", err)
	}
	_, err = store.Open(t.Context(), db.Path()) // a second server starting
	wantBusy("open", err)
	release()
	if _, err := facts.Publish(as(senior), memory.FactWrite{FactID: "g", Content: "y", Category: memory.FactADR}); err != nil {
		t.Fatalf("publish once the lock is gone: %v", err)
	}

	// An exclusive lock keeps readers out too: the transaction path (Get,
	// History) and the raw scan path (Query) both say EBUSY. (In WAL mode a
	// connection gets one only while no other connection is open.)
	db.KeepNoIdle()
	other.KeepNoIdle()
	release = hold("PRAGMA locking_mode = EXCLUSIVE", "BEGIN IMMEDIATE", "UPDATE snapshot SET version = version WHERE 0", "COMMIT")
	_, err = facts.Get(as(senior), "f")
	wantBusy("get", err)
	_, err = facts.History(as(senior), "f")
	wantBusy("history", err)
	_, err = facts.Query(as(senior), memory.FactQuery{Text: "x"})
	wantBusy("query", err)
	release()
	if _, err := facts.Query(as(senior), memory.FactQuery{Text: "x"}); err != nil {
		t.Fatalf("query once the lock is gone: %v", err)
	}
}

// TestOpenRefusesNewerSchema: a database that has a migration this build does
// not know was written by a newer build, and is left untouched.
func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	db, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().Exec(`INSERT INTO schema_migrations (name, applied_at) VALUES ('9998_future.sql', 1), ('9999_later.sql', 2)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = store.Open(t.Context(), path)
	want := path + " was written by a newer memory-mcp (it has migrations 9998_future.sql, 9999_later.sql, which this build does not know); upgrade memory-mcp"
	if err == nil || err.Error() != want {
		t.Fatalf("open = %v\nwant %s", err, want)
	}
	// One unknown migration is named alone.
	db, err = store.OpenWith(t.Context(), filepath.Join(t.TempDir(), store.FileName), store.MigrationFS)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	names, _ := fs.Glob(store.MigrationFS, "*.sql")
	older := fstest.MapFS{}
	for _, n := range names[:len(names)-1] {
		b, _ := fs.ReadFile(store.MigrationFS, n)
		older[n] = &fstest.MapFile{Data: b}
	}
	_, err = store.OpenWith(t.Context(), db.Path(), older)
	if err == nil || !strings.Contains(err.Error(), "(it has migration "+names[len(names)-1]+", which this build does not know); upgrade memory-mcp") {
		t.Fatalf("open by an older build = %v", err)
	}
}

// TestOpenNamesABadFile: a file that is not SQLite, a damaged database and
// another program's database are refused with a message that names the file
// and says what is wrong with it.
func TestOpenNamesABadFile(t *testing.T) {
	good := filepath.Join(t.TempDir(), store.FileName)
	db, err := store.Open(t.Context(), good)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	real, err := os.ReadFile(good)
	if err != nil || len(real) < 3*4096 {
		t.Fatalf("database file: %d bytes, %v", len(real), err)
	}
	foreign := filepath.Join(t.TempDir(), store.FileName)
	sqldb, err := sql.Open("sqlite3", "file:"+foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sqldb.Exec(`CREATE TABLE recipes (name TEXT); CREATE TABLE cooks (name TEXT)`); err != nil {
		t.Fatal(err)
	}
	sqldb.Close()
	tests := []struct {
		name string
		data []byte // nil: the file is already there
		path string
		want string
	}{
		{"garbage", []byte(strings.Repeat("not a database at all \x00\x01\x02 ", 200)), "",
			" is not a memory-mcp database or is corrupt: sqlite3: file is not a database"},
		{"truncated", real[:len(real)/2], "", " is not a memory-mcp database or is corrupt: sqlite3: database disk image is malformed"},
		{"truncated header", real[:100], "", " is not a memory-mcp database or is corrupt: sqlite3: database disk image is malformed"},
		{"another program's", nil, foreign, " is not a memory-mcp database: it holds tables (cooks, recipes) but no schema_migrations; use another data directory"},
	}
	for _, tt := range tests {
		path := tt.path
		if path == "" {
			path = filepath.Join(t.TempDir(), store.FileName)
			if err := os.WriteFile(path, tt.data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		db, err := store.Open(t.Context(), path)
		if err == nil {
			db.Close()
		}
		if err == nil || err.Error() != path+tt.want {
			t.Errorf("%s: open = %v\nwant %s%s", tt.name, err, path, tt.want)
		}
	}
}
