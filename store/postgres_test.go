package store_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// onPostgres reports whether db is the PostgreSQL engine's.
func onPostgres(db *store.DB) bool { return strings.HasPrefix(db.Path(), "postgres://") }

// rawSQL is q for db's engine: a test's statement, written with ? as the
// store's are, rebound for PostgreSQL.
func rawSQL(db *store.DB, q string) string {
	if onPostgres(db) {
		return store.RebindParams(q)
	}
	return q
}

// TestSchemaKeepsHistory: on both engines, every table that keeps history
// refuses a plain delete and an edit of what never changes, a provenance
// stamp is written once, and a transaction holding the erase permit may
// delete (what erase and gc do). Rows are written straight into the
// tables, as a stray program would, so that nothing of the store stands
// between the statement and the schema.
func TestSchemaKeepsHistory(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB func(testing.TB) (*store.DB, *storetest.Clock)) {
		db, _ := openDB(t)
		raw := db.SQL()
		exec := func(q string, args ...any) error {
			_, err := raw.Exec(rawSQL(db, q), args...)
			return err
		}
		for _, q := range []string{
			`INSERT INTO notes (agent_id, run_id, kind, text, created_at) VALUES ('june', 'r1', 'agent', 'the dock code is 4711', 1)`,
			`INSERT INTO pending_memory_events (bucket, request_json, fingerprint, raw_input, agent_id, run_id, reason, note_at, created_at, updated_at)
				VALUES ('issues', '{}', 'f', 'the dock code', 'june', 'r1', 'ambiguous', 1, 1, 1)`,
			`INSERT INTO approvals (id, kind, tier, rule, principal, identity, tool, args, status, created_at)
				VALUES ('apr_1', 'hold', 'high', 'r', 'agent:june', '{}', 'remember', '{}', 'pending', 1)`,
			`INSERT INTO memories (id, agent_id, namespace, category, content, confidence, created_at, updated_at, occurred_at, filters)
				VALUES ('mem_1', 'june', 'default', 'semantic', 'the dock code is 4711', 0.9, 1, 1, 1, ''),
				       ('mem_2', 'june', 'default', 'semantic', 'the dock code is 1234', 0.9, 2, 2, 2, '')`,
			`INSERT INTO memory_conflicts (id, agent_id, older_id, newer_id, kind, resolution, detected_at, detected_by)
				VALUES ('cf_1', 'june', 'mem_1', 'mem_2', 'value', 'open', 2, 'agent:june')`,
			`INSERT INTO operation_log (id, operation_id, fact_id, operation_type, content, category, author_agent_id, timestamp, version)
				VALUES (1, 'op1', 'door', 'PUBLISH', 'the door code is 4711', 'other', 'sam', 1, 1),
				       (2, 'op2', 'door-2', 'PUBLISH', 'the door code is 1234', 'other', 'sam', 2, 1)`,
			`INSERT INTO snapshot (fact_id, content, category, created_at, updated_at, version, content_op, author_agent_id)
				VALUES ('door', 'the door code is 4711', 'other', 1, 1, 1, 1, 'sam'), ('door-2', 'the door code is 1234', 'other', 2, 2, 1, 2, 'sam')`,
			`INSERT INTO fact_conflicts (id, older_id, older_version, newer_id, newer_version, kind, resolution, detected_at, detected_by)
				VALUES ('fcf_1', 'door', 1, 'door-2', 1, 'value', 'open', 2, 'agent:sam')`,
			`INSERT INTO events_memory (event_id, bucket, operation, payload_json, raw_input, source_ref, agent_id, run_id, created_at)
				VALUES ('ev_1', 'issues', 'create', '{}', 'the dock code', '{}', 'june', 'r1', 1)`,
			`INSERT INTO memory_repeats (id, memory_id, agent_id, tool, content, namespace, category, tags, tier, said_at, author_is_human)
				VALUES ('rep-1', 'mem_1', 'june', 'remember', 'the dock code is 4711', 'default', 'semantic', '[]', 'exact', 1, 0)`,
		} {
			if err := exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		refused := map[string]string{
			"notes": "notes are kept", "pending_memory_events": "resolved, not deleted", "approvals": "decided, not deleted",
			"memory_conflicts": "resolve_conflict", "fact_conflicts": "resolve_conflict", "memories": "soft-deleted",
			"operation_log": "append-only", "events_memory": "append-only", "memory_repeats": "only by erase or gc",
		}
		for table, why := range refused {
			if err := exec(`DELETE FROM ` + table); err == nil || !strings.Contains(err.Error(), why) {
				t.Errorf("DELETE FROM %s: %v, want refused (%q)", table, err, why)
			}
		}
		for q, why := range map[string]string{
			`UPDATE notes SET text = 'edited'`:                       "never changes",
			`UPDATE approvals SET args = '{"content":"other"}'`:      "never changes",
			`UPDATE memories SET content = 'edited'`:                 "immutable",
			`UPDATE operation_log SET content = 'edited'`:            "append-only",
			`UPDATE events_memory SET payload_json = '{"edited":1}'`: "immutable",
			`UPDATE memory_repeats SET content = 'edited'`:           "as they were said",
		} {
			if err := exec(q); err == nil || !strings.Contains(err.Error(), why) {
				t.Errorf("%s: %v, want refused (%q)", q, err, why)
			}
		}
		// What may change does: a note's outcome, a memory's soft delete.
		if err := exec(`UPDATE notes SET processed_at = 2, outcome_json = '{}'`); err != nil {
			t.Errorf("processing a note: %v", err)
		}
		if err := exec(`UPDATE memories SET forgotten_at = 3, forgotten_by = 'june' WHERE id = 'mem_2'`); err != nil {
			t.Errorf("forgetting a memory: %v", err)
		}
		if err := exec(`UPDATE memories SET stamp = ? WHERE id = 'mem_1'`, []byte{1}); err != nil {
			t.Fatalf("the first stamp: %v", err)
		}
		if err := exec(`UPDATE memories SET stamp = ? WHERE id = 'mem_1'`, []byte{2}); err == nil || !strings.Contains(err.Error(), "written once") {
			t.Errorf("a second stamp: %v", err)
		}

		// A transaction holding the permit deletes; the permit is gone after.
		tx, err := raw.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{`INSERT INTO erase_permit (one) VALUES (1)`,
			`DELETE FROM fact_conflicts`, `DELETE FROM snapshot`, `DELETE FROM operation_log`, `DELETE FROM memory_conflicts`,
			`DELETE FROM memories`, `DELETE FROM notes`, `DELETE FROM pending_memory_events`, `DELETE FROM approvals`,
			`DELETE FROM events_memory`, `DELETE FROM memory_repeats`, `DELETE FROM erase_permit`} {
			if _, err := tx.Exec(q); err != nil {
				tx.Rollback()
				t.Fatalf("with the permit, %s: %v", q, err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		for table := range refused {
			var n int
			if err := raw.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil || n != 0 {
				t.Errorf("%s keeps %d rows after the permitted delete (%v)", table, n, err)
			}
		}
		// The space statistics followed the memories out: none is counted.
		if miscounted, _, err := spaceCounts(t, db); err != nil || miscounted != 0 {
			t.Errorf("%d spaces miscounted after the delete (%v)", miscounted, err)
		}
	})
}

// spaceCounts is storetest.SpaceCounts on either engine.
func spaceCounts(t *testing.T, db *store.DB) (miscounted, memories int, err error) {
	t.Helper()
	err = db.SQL().QueryRow(`SELECT (SELECT count(*) FROM memory_spaces s WHERE rows != (SELECT count(*) FROM memories m
		WHERE m.agent_id = s.agent_id AND m.shared = s.shared AND m.forgotten_at IS NULL AND m.archived_at IS NULL)),
		(SELECT count(*) FROM memories)`).Scan(&miscounted, &memories)
	return miscounted, memories, err
}

// TestPostgresRefusesNewerSchema: a PostgreSQL database a newer build
// migrated is refused, naming what this build does not know, as a SQLite
// file is (TestOpenRefusesNewerSchema).
func TestPostgresRefusesNewerSchema(t *testing.T) {
	url := storetest.PostgresURL(t)
	db, err := store.OpenPostgres(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().Exec(`INSERT INTO schema_migrations (name, applied_at) VALUES ('9998_future.sql', 1), ('9999_later.sql', 2)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = store.OpenPostgres(t.Context(), url)
	want := db.Path() + " was written by a newer memory-mcp (it has migrations 9998_future.sql, 9999_later.sql, which this build does not know); upgrade memory-mcp"
	if err == nil || err.Error() != want {
		t.Fatalf("open = %v\nwant %s", err, want)
	}
	if !strings.HasPrefix(db.Path(), "postgres://127.0.0.1:") || strings.Contains(db.Path(), "password") {
		t.Errorf("the database is named %q", db.Path())
	}

	// A build that knows fewer migrations than a database has is refused,
	// naming the one; a build that knows them all opens it.
	url = storetest.PostgresURL(t)
	names, _ := fs.Glob(store.PostgresMigrations, "*.sql")
	with := fstest.MapFS{"9999_next.sql": &fstest.MapFile{Data: []byte(`CREATE TABLE next_thing (id bigint PRIMARY KEY);`)}}
	for _, n := range names {
		b, _ := fs.ReadFile(store.PostgresMigrations, n)
		with[n] = &fstest.MapFile{Data: b}
	}
	if db, err = store.OpenPostgresWith(t.Context(), url, with); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = store.OpenPostgres(t.Context(), url)
	if err == nil || !strings.Contains(err.Error(), "(it has migration 9999_next.sql, which this build does not know); upgrade memory-mcp") {
		t.Fatalf("open by an older build = %v", err)
	}
	if db, err = store.OpenPostgresWith(t.Context(), url, with); err != nil {
		t.Fatalf("reopen by the build that migrated it: %v", err)
	}
	applied, err := db.Migrations(t.Context())
	if err != nil || strings.Join(applied, ",") != strings.Join(append(names, "9999_next.sql"), ",") {
		t.Errorf("applied %v (%v)", applied, err)
	}
	db.Close()
}

// TestPostgresUnreachableIsRetryable: a server that does not answer fails
// the open at once with EBUSY naming the database (host, port and name,
// never the password), not a hang or an internal error.
func TestPostgresUnreachableIsRetryable(t *testing.T) {
	storetest.PostgresURL(t) // the same rule as the other PostgreSQL tests: run where a server is
	_, err := store.OpenPostgres(t.Context(), "postgres://memory:s3cret@127.0.0.1:1/team?sslmode=disable&connect_timeout=2")
	if memory.ErrorCode(err) != memory.EBUSY {
		t.Fatalf("open an unreachable database = %v, want EBUSY", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "postgres://127.0.0.1:1/team") || strings.Contains(msg, "s3cret") || !strings.Contains(msg, "retry") {
		t.Errorf("the error does not name the database alone, or hide the password, or say to retry: %s", msg)
	}
	if _, err := store.OpenPostgres(t.Context(), "postgres://memory:s3cret@127.0.0.1:notaport/team"); memory.ErrorCode(err) != memory.EINVALID || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("a malformed URL = %v, want EINVALID without the password", err)
	}
}

// TestChangeFeedNumbersCommits: on both engines the change feed numbers
// what committed and nothing else: a write that rolled back takes no
// number, so a reader that passed seq n has seen every change up to n.
func TestChangeFeedNumbersCommits(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB func(testing.TB) (*store.DB, *storetest.Clock)) {
		db, clk := openDB(t)
		ctx := context.Background()
		record := func(ref string, fail bool) error {
			return db.Update(ctx, func(tx *store.Tx) error {
				if err := tx.RecordChange(ctx, memory.ChangeFact, ref, clk.Now()); err != nil {
					return err
				}
				if fail {
					return errors.New("rolled back")
				}
				return nil
			})
		}
		if err := record("a", false); err != nil {
			t.Fatal(err)
		}
		if err := record("lost", true); err == nil {
			t.Fatal("the failing write committed")
		}
		if err := record("b", false); err != nil {
			t.Fatal(err)
		}
		ch, err := db.ChangesSince(ctx, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(ch) != 2 || ch[0].Ref != "a" || ch[1].Ref != "b" || ch[1].Seq != ch[0].Seq+1 {
			t.Fatalf("changes = %+v, want a and b numbered one after the other", ch)
		}
	})
}

// TestRebindParams: the store's statements, written with ? and ?N, reach
// PostgreSQL numbered $N, and a ? inside quoted text stays.
func TestRebindParams(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT a FROM t WHERE b = ? AND c = ?`:             `SELECT a FROM t WHERE b = $1 AND c = $2`,
		`UPDATE s SET x = ?1, y = ?1, z = ?2 WHERE id = ?3`: `UPDATE s SET x = $1, y = $1, z = $2 WHERE id = $3`,
		`SELECT '?', "a?b" FROM t WHERE v = ?`:              `SELECT '?', "a?b" FROM t WHERE v = $1`,
		`SELECT 'it''s ?' WHERE a = ? LIMIT ?`:              `SELECT 'it''s ?' WHERE a = $1 LIMIT $2`,
	} {
		if got := store.RebindParams(in); got != want {
			t.Errorf("rebind(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestPostgresChangesWakeListeners: a commit that wrote a change wakes a
// listener on another handle (another process); the listener is woken once
// on connecting too, since what committed before it listened notified no
// one. SQLite has no notifications: its Wake is nil and readers poll.
func TestPostgresChangesWakeListeners(t *testing.T) {
	db, clk := openPostgresDB(t)
	other := reopen(t, db)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	wake := other.Wake(ctx)
	wait := func(what string) {
		t.Helper()
		select {
		case <-wake:
		case <-time.After(30 * time.Second):
			t.Fatalf("no wake-up %s", what)
		}
	}
	wait("on connecting")
	err := db.Update(ctx, func(tx *store.Tx) error { return tx.RecordChange(ctx, memory.ChangeFact, "f", clk.Now()) })
	if err != nil {
		t.Fatal(err)
	}
	wait("after another handle's commit")
	if ch, err := other.ChangesSince(ctx, 0, 10); err != nil || len(ch) != 1 || ch[0].Ref != "f" {
		t.Fatalf("the woken reader reads %+v, %v", ch, err)
	}
	lite, _ := openDB(t)
	if lite.Wake(ctx) != nil {
		t.Error("SQLite's Wake is not nil")
	}
}

// TestConcurrentWritersAllLand: on both engines, writers on two handles
// (two processes) publishing new versions of the same fact at once all
// land, each as its own version: SQLite makes them wait their turn, and
// PostgreSQL aborts the ones it cannot order (a serialization failure)
// and the store runs them again, so no caller sees the clash.
func TestConcurrentWritersAllLand(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		handles := []*store.DB{db, reopen(t, db)}
		const each = 12
		errs := make(chan error, 2*each)
		var wg sync.WaitGroup
		for h, d := range handles {
			facts := store.NewFactService(d)
			for i := range each {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := facts.Publish(as(senior), memory.FactWrite{FactID: "counter", Content: fmt.Sprintf("Writer %d says %d.", h, i),
						Category: memory.FactOther})
					errs <- err
				}()
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("a concurrent publish failed: %v", err)
			}
		}
		hist, err := store.NewFactService(db).History(as(senior), "counter")
		if err != nil || len(hist) != 2*each {
			t.Fatalf("history holds %d versions (%v), want %d", len(hist), err, 2*each)
		}
		for i, op := range hist {
			if op.Version != i+1 {
				t.Fatalf("version %d at %d: %+v", op.Version, i, hist)
			}
		}
	})
}

// TestSQLiteFunctionsOnBothEngines: the SQLite functions the store's
// statements use give the same answers on PostgreSQL, where the schema
// defines them: json_each over a list, ->> on a claim pair, and the scalar
// max and min of integers and reals, NULL when either side is.
func TestSQLiteFunctionsOnBothEngines(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		var list, pairSum int64
		var maxInt, minInt int64
		var maxReal, minReal float64
		var nullMax, nullMin bool
		err := db.SQL().QueryRow(`SELECT
			(SELECT count(*) FROM json_each('["a","b","c"]') WHERE value IN ('a', 'c')),
			(SELECT sum(value ->> 0) + sum(value ->> 1) FROM json_each('[[7,9],[1,2]]')),
			max(3, 5), min(3, 5), max(0.25, 0.75), min(0.25, 0.75),
			max(3, NULL) IS NULL, min(NULL, 0.5) IS NULL`).Scan(&list, &pairSum, &maxInt, &minInt, &maxReal, &minReal, &nullMax, &nullMin)
		if err != nil {
			t.Fatal(err)
		}
		if list != 2 || pairSum != 19 || maxInt != 5 || minInt != 3 || maxReal != 0.75 || minReal != 0.25 || !nullMax || !nullMin {
			t.Errorf("got %d %d %d %d %v %v %v %v", list, pairSum, maxInt, minInt, maxReal, minReal, nullMax, nullMin)
		}
	})
}

// TestPostgresSchemaMatchesSQLite: the PostgreSQL schema has every table
// and column the SQLite migrations make, and nothing else but what stands
// in for SQLite's own machinery (FTS5's tables: the terms columns; the
// change feed's counter). A SQLite migration that changes the schema fails
// this until a PostgreSQL migration does the same.
func TestPostgresSchemaMatchesSQLite(t *testing.T) {
	lite, _ := openDB(t)
	pg, _ := openPostgresDB(t)
	columns := func(db *store.DB, q string) map[string][]string {
		t.Helper()
		rows, err := db.SQL().Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string][]string{}
		for rows.Next() {
			var table, column string
			if err := rows.Scan(&table, &column); err != nil {
				t.Fatal(err)
			}
			out[table] = append(out[table], column)
		}
		for _, cols := range out {
			slices.Sort(cols)
		}
		return out
	}
	want := columns(lite, `SELECT m.name, c.name FROM sqlite_schema m JOIN pragma_table_info(m.name) c
		WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\_%' ESCAPE '\' AND m.name NOT LIKE '%\_fts' ESCAPE '\'
		AND m.name NOT LIKE '%\_fts\_%' ESCAPE '\' ORDER BY m.name, c.name`)
	got := columns(pg, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND NOT (column_name = 'terms' AND table_name IN ('memories', 'operation_log', 'memory_repeats'))
		AND table_name <> 'change_counter' ORDER BY table_name, column_name`)
	if len(want) < 40 {
		t.Fatalf("SQLite has only %d tables", len(want))
	}
	for table, cols := range want {
		if g := strings.Join(got[table], ", "); g != strings.Join(cols, ", ") {
			t.Errorf("%s: PostgreSQL has columns (%s), SQLite (%s)", table, g, strings.Join(cols, ", "))
		}
	}
	for table := range got {
		if _, ok := want[table]; !ok {
			t.Errorf("PostgreSQL has table %s, which SQLite does not", table)
		}
	}
}
