package store_test

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// checkpoint writes every page PostgreSQL holds in memory to its file.
func checkpoint(t testing.TB, db *store.DB) {
	t.Helper()
	if _, err := db.SQL().Exec(`CHECKPOINT`); err != nil {
		t.Fatal(err)
	}
}

// incompressible is n bytes of random words, which PostgreSQL stores out
// of line in a TOAST table and cannot compress (a compressed value would
// hide the secret from a raw scan whether or not it was erased).
func incompressible(n int) string {
	var b strings.Builder
	for b.Len() < n {
		for range 8 {
			b.WriteByte(byte('a' + rand.IntN(26)))
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// seedPostgresSecret stores the secret in every kind of row an erase by
// text reaches (memories, one long enough to be kept in TOAST, and
// seedSecretRows'), gathers statistics, as autovacuum would, and writes
// every page to the files. It returns a memory that stays.
func seedPostgresSecret(t *testing.T, db *store.DB) memory.Entry {
	t.Helper()
	mem := store.NewMemoryService(db, nil)
	remember(t, mem, senior, memory.EntryWrite{Content: "The vendor contact is " + secret + " at extension 4411."})
	long := incompressible(6000)
	remember(t, mem, senior, memory.EntryWrite{Content: long[:3000] + secret + " " + long[3000:]})
	for i := range 30 { // enough rows for statistics to keep values
		remember(t, mem, junior, memory.EntryWrite{Content: secret + " ticket " + incompressible(40) + string(rune('a'+i%26))})
	}
	keep := remember(t, mem, senior, memory.EntryWrite{Content: "The vendor invoices monthly."})
	seedSecretRows(t, db)
	if _, err := db.SQL().Exec(`ANALYZE`); err != nil {
		t.Fatal(err)
	}
	checkpoint(t, db)
	if found := storetest.PostgresFilesHolding(t, db.SQL(), secret); len(found) == 0 {
		t.Fatal("no file of the database holds the secret before the erase: the checks after it could not fail")
	}
	return keep
}

// An erase on PostgreSQL leaves no byte of what it removed in the
// database's files once it returns: not in the tables' pages (dead row
// versions), their TOAST tables, their btree and GIN indexes, nor the
// column statistics; and none comes back when PostgreSQL next writes its
// pages out.
func TestPostgresEraseLeavesNoBytesInTheFiles(t *testing.T) {
	db, _ := openPostgresDB(t)
	keep := seedPostgresSecret(t, db)
	mem := store.NewMemoryService(db, nil)
	rep, err := mem.Erase(as(human), memory.ErasureRequest{Contains: secret, Reason: "request 17"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts[memory.ErasedMemories] != 32 || rep.Counts[memory.ErasedNotes] != 1 || rep.Counts[memory.ErasedFacts] != 1 ||
		!rep.Scrubbed || rep.ScrubOwed {
		t.Fatalf("report %+v: want 32 memories, a note and a fact, scrubbed", rep)
	}
	if found := storetest.PostgresFilesHolding(t, db.SQL(), secret); len(found) > 0 {
		t.Fatalf("once the erase returned the erased bytes are still in %v", found)
	}
	checkpoint(t, db)
	if found := storetest.PostgresFilesHolding(t, db.SQL(), secret); len(found) > 0 {
		t.Fatalf("after a checkpoint the erased bytes are in %v", found)
	}
	if !stored(t, db, keep.ID) {
		t.Errorf("the memory without the secret went too")
	}
	if _, owed, err := db.OwedScrub(context.Background()); err != nil || owed {
		t.Errorf("a scrub is still owed: %v, %v", owed, err)
	}
}

// A session reading since before the erase (its snapshot still sees the
// erased rows, which VACUUM FULL must then keep) past the busy timeout
// keeps the scrub from running: the erase commits, says the scrub is owed,
// and the next erase, removing nothing, pays it. (A session that only
// holds a table's lock does the same: TestPostgresServerStartPaysAnOwedScrub.)
func TestPostgresScrubOwedIsPaidByTheNextErase(t *testing.T) {
	restore := store.SetBusyTimeout(200 * time.Millisecond)
	defer restore()
	db, _ := openPostgresDB(t)
	seedPostgresSecret(t, db)
	mem := store.NewMemoryService(db, nil)
	ctx := context.Background()
	reader, err := reopen(t, db).SQL().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Rollback()
	var n int
	if err := reader.QueryRow(`SELECT count(*) FROM notes`).Scan(&n); err != nil { // holds its lock on notes
		t.Fatal(err)
	}
	rep, err := mem.Erase(as(human), memory.ErasureRequest{Contains: secret, Reason: "request 21"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts[memory.ErasedMemories] != 32 || rep.Scrubbed || !rep.ScrubOwed {
		t.Fatalf("erase under a reader: %+v; want 32 memories, not scrubbed, a scrub owed", rep)
	}
	if debt, owed, err := db.OwedScrub(ctx); err != nil || !owed || debt.Erasure != rep.Erasure {
		t.Fatalf("scrub owed %+v, %v, %v; want erasure %d", debt, owed, err, rep.Erasure)
	}
	checkpoint(t, db)
	if len(storetest.PostgresFilesHolding(t, db.SQL(), secret)) == 0 {
		t.Fatal("the erased bytes are in no file while the scrub is owed: the check below could not fail")
	}
	if err := reader.Rollback(); err != nil {
		t.Fatal(err)
	}
	// The usual timeout again: the scrub waits for transactions that began
	// before the erase, and the test server runs other tests' too.
	restore()
	rep, err = mem.Erase(as(human), memory.ErasureRequest{Contains: "Nothingholdsthis", Reason: "check"})
	if err != nil || rep.Total() != 0 || !rep.Scrubbed || rep.ScrubOwed {
		t.Fatalf("an erase of nothing after the reader left: %+v, %v; want the owed scrub done", rep, err)
	}
	checkpoint(t, db)
	if found := storetest.PostgresFilesHolding(t, db.SQL(), secret); len(found) > 0 {
		t.Fatalf("after the owed scrub the erased bytes are still in %v", found)
	}
	if _, owed, err := db.OwedScrub(ctx); err != nil || owed {
		t.Fatalf("a scrub is still owed: %v, %v", owed, err)
	}
}

// holdsNoStoredText are the text columns added after migration 0035 that
// hold no text an agent or a person stored (names of callers and
// counters, the keyed hashes of what an import brought), whose statistics
// may stay.
var holdsNoStoredText = []string{"gate_counters.principal", "gate_counters.name", "import_origins.origin", "import_origins.imported_by"}

// No column that can hold stored text is analyzed (migration 0035): its
// statistics would keep sample values an erase does not reach. A new
// column of such a type must have its target set to 0 in its migration,
// or be listed in holdsNoStoredText.
func TestPostgresStatisticsKeepNoText(t *testing.T) {
	db, _ := openPostgresDB(t)
	cols, err := db.SQL().Query(`SELECT r.relname || '.' || a.attname, a.attstattarget FROM pg_attribute a JOIN pg_class r ON r.oid = a.attrelid
		WHERE r.relkind = 'r' AND r.relnamespace = current_schema()::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
		AND a.atttypid IN ('text'::regtype, 'bytea'::regtype, 'tsvector'::regtype, 'json'::regtype, 'jsonb'::regtype)`)
	if err != nil {
		t.Fatal(err)
	}
	defer cols.Close()
	n := 0
	for cols.Next() {
		var col string
		var target int
		if err := cols.Scan(&col, &target); err != nil {
			t.Fatal(err)
		}
		n++
		if target != 0 && !slices.Contains(holdsNoStoredText, col) {
			t.Errorf("%s keeps statistics (target %d): ALTER TABLE ... ALTER COLUMN ... SET STATISTICS 0 in the migration that added it", col, target)
		}
	}
	if err := cols.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d text columns found: the query misses the schema", n)
	}
}

// gc on PostgreSQL purges what expired, as an erase would: the rows go, an
// audit row stays, and once the scrub it owes is paid no file of the
// database holds the purged text.
func TestPostgresCollectPurgesAndScrubs(t *testing.T) {
	db, clk := openPostgresDB(t)
	mem := store.NewMemoryService(db, nil)
	expiring := remember(t, mem, senior, memory.EntryWrite{Content: "The door code of " + secret + " is 5512.", ExpiresAt: clk.Peek().Add(time.Hour)})
	lasting := remember(t, mem, senior, memory.EntryWrite{Content: "The doors lock at nine."})
	checkpoint(t, db)
	if len(storetest.PostgresFilesHolding(t, db.SQL(), secret)) == 0 {
		t.Fatal("no file holds the secret before gc: the check below could not fail")
	}
	clk.Advance(48 * time.Hour)
	var rep memory.ErasureReport
	err := db.Update(context.Background(), func(tx *store.Tx) (err error) {
		rep, err = tx.Collect(context.Background(), human, store.Collection{Before: clk.Peek().Add(-24 * time.Hour), Grace: 24 * time.Hour, Limit: 500})
		return err
	})
	if err != nil || rep.Counts[memory.ErasedMemories] != 1 {
		t.Fatalf("gc: %+v, %v; want the expired memory purged", rep, err)
	}
	if stored(t, db, expiring.ID) || !stored(t, db, lasting.ID) {
		t.Fatalf("after gc: the expired memory stored %v, the lasting one %v", stored(t, db, expiring.ID), stored(t, db, lasting.ID))
	}
	if audit, err := db.Erasures(context.Background()); err != nil || len(audit) != 1 || audit[0].Kind != "gc" {
		t.Fatalf("audit %+v, %v", audit, err)
	}
	if scrubbed, owed, err := db.ScrubOwed(context.Background()); err != nil || !scrubbed || owed {
		t.Fatalf("the scrub gc owes: scrubbed %v, owed %v, %v", scrubbed, owed, err)
	}
	checkpoint(t, db)
	if found := storetest.PostgresFilesHolding(t, db.SQL(), secret); len(found) > 0 {
		t.Fatalf("after gc and its scrub the purged bytes are in %v", found)
	}
}

// The scrub rewrites the store's tables, every one of them, and no other
// program's table in the same schema.
func TestPostgresScrubRewritesTheStoresTables(t *testing.T) {
	db, _ := openPostgresDB(t)
	if _, err := db.SQL().Exec(`CREATE TABLE another_programs (id bigint PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	nodes := func() map[string]string {
		t.Helper()
		rows, err := db.SQL().Query(`SELECT relname, relfilenode::text FROM pg_class WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]string{}
		for rows.Next() {
			var rel, node string
			if err := rows.Scan(&rel, &node); err != nil {
				t.Fatal(err)
			}
			out[rel] = node
		}
		return out
	}
	before := nodes()
	mem := store.NewMemoryService(db, nil)
	e := remember(t, mem, senior, memory.EntryWrite{Content: "Gone soon."})
	if rep, err := mem.Erase(as(human), memory.ErasureRequest{IDs: []string{e.ID}, Reason: "test"}); err != nil || !rep.Scrubbed {
		t.Fatalf("erase: %+v, %v", rep, err)
	}
	after := nodes()
	if len(before) < 40 {
		t.Fatalf("only %d tables: %v", len(before), before)
	}
	for rel, node := range before {
		switch {
		case rel == "another_programs" && after[rel] != node:
			t.Errorf("the scrub rewrote %s, which is not the store's", rel)
		case rel != "another_programs" && after[rel] == node:
			t.Errorf("the scrub left %s as it was (file %s)", rel, node)
		}
	}
}
