package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// bulkMemories is how many memories, each with two claims, the test of a
// large import adds to every kind writeEveryStampedKind writes: several
// INSERTs' worth of each, the last one partial.
const bulkMemories = 1234

// TestImportBesideSerializableWriters: an exact import into PostgreSQL
// while other serializable transactions of the cluster read and commit
// (the servers of a running deployment). The import of 20,000 memories
// was one serializable transaction of minutes, and PostgreSQL keeps the
// predicate locks of every serializable transaction that commits while
// one that overlaps it runs: the cluster's lock table filled and the
// import (or the servers) failed with "out of shared memory". Here the
// cluster is the test's own, with a lock table small enough for the
// readers run in the middle of the import to fill it were their locks kept.
// The import is exact all the same: many rows of a kind go in several
// statements, and the export of the import is the file, byte for byte.
func TestImportBesideSerializableWriters(t *testing.T) {
	ctx := context.Background()
	c := storetest.OwnPostgres(t)
	admin, err := storetest.OpenPostgresSQL(c.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	// 10 predicate locks per connection, 300 connections: about 3,000
	// locks for the cluster; the readers below take 200 x 30 (a reader's
	// 30 rows are 30 locks, not one on the table: up to 100 a table).
	for _, q := range []string{`ALTER SYSTEM SET max_pred_locks_per_transaction = 10`, `ALTER SYSTEM SET max_pred_locks_per_relation = 100`} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	admin.Close()
	c.Down()
	c.Up()
	if admin, err = storetest.OpenPostgresSQL(c.URL); err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, q := range []string{`CREATE SCHEMA reader`, `CREATE TABLE reader.rows (id bigint PRIMARY KEY, pad text NOT NULL)`,
		`INSERT INTO reader.rows SELECT g, repeat('x', 100) FROM generate_series(1, 60000) AS g`, `ANALYZE reader.rows`} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	lite, _ := openDB(t)
	if err := lite.UseProvenanceKey(ctx, provKey); err != nil {
		t.Fatal(err)
	}
	writeEveryStampedKind(t, lite)
	exec(t, lite, fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
		INSERT INTO memories (id, agent_id, namespace, category, content, tags, confidence, shared, created_at, updated_at, occurred_at, filters)
		SELECT 'mem-bulk-' || i, 'ann', 'default', 'semantic', 'Bulk note ' || i || ': the deploy window moved to slot ' || (i %% 7) || '.', '["bulk"]', 1, 0, i, i, i, '' FROM n`, bulkMemories),
		`INSERT INTO memory_claims (agent_id, claim, value, memory_pk) SELECT 'ann', pk, pk * 7, pk FROM memories WHERE id LIKE 'mem-bulk-%'`,
		`INSERT INTO memory_claims (agent_id, claim, value, memory_pk) SELECT 'ann', -pk, pk * 11, pk FROM memories WHERE id LIKE 'mem-bulk-%'`)
	var file bytes.Buffer
	counts, err := lite.Export(ctx, store.ExportFilter{}, &file)
	if err != nil {
		t.Fatal(err)
	}
	if counts["memory"] < bulkMemories || counts["memory_claim"] < 2*bulkMemories {
		t.Fatalf("the SQLite store exported %v, want at least %d memories and twice as many claims", counts, bulkMemories)
	}

	pg, err := store.OpenPostgres(ctx, c.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	if err := pg.UseProvenanceKey(ctx, otherKey); err != nil {
		t.Fatal(err)
	}
	var readErr error
	in := &midway{r: bytes.NewReader(file.Bytes()), at: int64(file.Len() / 2), fn: func() { readErr = readSerializable(ctx, admin, 200, 30) }}
	rep, err := pg.Import(ctx, in, store.ImportSource{File: "lite.jsonl", By: "human:alice"})
	if !in.ran {
		t.Fatal("the import never read half of the file")
	}
	if readErr != nil {
		t.Fatalf("the serializable readers beside the import: %v", readErr)
	}
	if err != nil {
		t.Fatalf("the import beside serializable readers: %v", err)
	}
	if rep.Kinds["memory"] != counts["memory"] || rep.Kinds["memory_claim"] != counts["memory_claim"] {
		t.Fatalf("import into PostgreSQL: %+v, want %v", rep, counts)
	}
	if v, tables := verify(t, pg); len(v.Mismatched) != 0 || tables["memories"].Valid != counts["memory"] {
		t.Fatalf("verify after the import: %+v", v)
	}
	// The search statistics the import counted in one statement are what
	// the trigger it lifted keeps, and the trigger is back.
	var spaces, wrong int
	var enabled string
	if err := admin.QueryRow(`SELECT count(*), count(*) FILTER (WHERE (s.rows, s.tokens, s.gen) IS DISTINCT FROM (m.n, m.len, m.n))
		FROM memory_spaces s FULL JOIN (SELECT agent_id, shared, count(*) AS n, sum(length) AS len FROM memories
			WHERE forgotten_at IS NULL AND archived_at IS NULL GROUP BY agent_id, shared) m USING (agent_id, shared)`).Scan(&spaces, &wrong); err != nil {
		t.Fatal(err)
	}
	if err := admin.QueryRow(`SELECT tgenabled FROM pg_trigger WHERE tgname = 'memories_spaces_insert'`).Scan(&enabled); err != nil {
		t.Fatal(err)
	}
	if spaces == 0 || wrong != 0 || enabled != "O" {
		t.Fatalf("after the import: %d of %d search spaces miscounted, the counting trigger's state %q (want O)", wrong, spaces, enabled)
	}
	// So are the kept state counts, lifted and counted the same way.
	if bad, err := pg.CheckCounts(ctx); err != nil || len(bad) != 0 {
		t.Fatalf("kept counts after the import: %v %+v", err, bad)
	}
	if err := admin.QueryRow(`SELECT tgenabled FROM pg_trigger WHERE tgname = 'memories_counts_insert'`).Scan(&enabled); err != nil || enabled != "O" {
		t.Fatalf("the kept counts' trigger after the import: %q %v (want O)", enabled, err)
	}
	var fromPG bytes.Buffer
	if _, err := pg.Export(ctx, store.ExportFilter{}, &fromPG); err != nil {
		t.Fatal(err)
	}
	storetest.SameLines(t, "PostgreSQL's export of the import", file.String(), fromPG.String())
}

// readSerializable runs n serializable transactions on db, one after the
// other, each reading per rows of reader.rows (each on a page of its own)
// and committing.
func readSerializable(ctx context.Context, db *sql.DB, n, per int) error {
	for i := range n {
		ids := make([]int64, per)
		for j := range ids {
			ids[j] = int64(1 + i + 2000*j)
		}
		tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})
		if err != nil {
			return err
		}
		var got int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM reader.rows WHERE id = ANY($1)`, ids).Scan(&got); err != nil {
			tx.Rollback()
			return fmt.Errorf("reader %d: %w", i, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("reader %d: %w", i, err)
		}
	}
	return nil
}

// midway reads r and runs fn once, when at bytes have been read.
type midway struct {
	r    io.Reader
	at   int64
	read int64
	fn   func()
	ran  bool
	once sync.Once
}

func (m *midway) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	m.read += int64(n)
	if m.read >= m.at {
		m.once.Do(func() { m.fn(); m.ran = true })
	}
	return n, err
}
