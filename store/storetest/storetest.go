// Package storetest lets tests outside the store damage a database file
// and check the store's own bookkeeping, which no service exposes, without
// speaking SQL themselves: only store/ does.
package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	_ "github.com/ncruces/go-sqlite3/driver" // registers "sqlite3"
)

// open opens the database at path: a SQLite file, or a PostgreSQL database
// by its URL or key=value string (PostgresURL's), which readOnly does not
// restrict.
func open(path string, readOnly bool) (*sql.DB, error) {
	if isPostgres(path) {
		return OpenPostgresSQL(path)
	}
	dsn := "file:" + path
	if readOnly {
		dsn += "?mode=ro"
	}
	return sql.Open("sqlite3", dsn)
}

// isPostgres says whether path names a PostgreSQL database.
func isPostgres(path string) bool {
	return strings.HasPrefix(path, "postgres://") || strings.HasPrefix(path, "postgresql://") || strings.Contains(path, "dbname=")
}

// AddMigration records migration name as applied to the database at path,
// as a newer build would.
func AddMigration(ctx context.Context, path, name string) error {
	db, err := open(path, false)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES (?, 1)`, name)
	return err
}

// SpaceCounts checks the per-space memory counts search statistics use
// against the rows of the database at path (a SQLite file or what
// PostgresURL returned): it returns how many spaces are miscounted and how many memories are
// stored in all.
func SpaceCounts(ctx context.Context, path string) (miscounted, memories int, err error) {
	db, err := open(path, true)
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	err = db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM memory_spaces s WHERE rows != (SELECT count(*) FROM memories m
		WHERE m.agent_id = s.agent_id AND m.shared = s.shared AND m.forgotten_at IS NULL AND m.archived_at IS NULL)),
		(SELECT count(*) FROM memories)`).Scan(&miscounted, &memories)
	if err != nil {
		return 0, 0, fmt.Errorf("count memory spaces: %w", err)
	}
	return miscounted, memories, nil
}

// MiscountMemories adds by to every memory count the database at path
// keeps (memory_counts) for agent, as someone editing the database by hand
// would.
func MiscountMemories(ctx context.Context, path, agent string, by int) error {
	db, err := open(path, false)
	if err != nil {
		return err
	}
	defer db.Close()
	q := `UPDATE memory_counts SET n = n + ? WHERE agent_id = ?`
	if isPostgres(path) {
		q = `UPDATE memory_counts SET n = n + $1 WHERE agent_id = $2`
	}
	_, err = db.ExecContext(ctx, q, by, agent)
	return err
}

// HoldReader opens a read transaction on the database at path, from a
// connection of its own, and reads in it, as another process reading
// would: until release, the write-ahead log cannot be emptied past it.
func HoldReader(ctx context.Context, path string) (release func() error, err error) {
	db, err := open(path, true)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	var n int
	if _, err = conn.ExecContext(ctx, `BEGIN`); err == nil {
		err = conn.QueryRowContext(ctx, `SELECT count(*) FROM memories`).Scan(&n)
	}
	if err != nil {
		conn.Close()
		db.Close()
		return nil, fmt.Errorf("hold a reader: %w", err)
	}
	return func() error {
		_, err := conn.ExecContext(ctx, `ROLLBACK`)
		conn.Close()
		db.Close()
		return err
	}, nil
}

// SameLines fails t at the first line where got differs from want (two
// exports, say), quoting both.
func SameLines(t testing.TB, what, want, got string) {
	t.Helper()
	if want == got {
		return
	}
	lw, lg := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(lw), len(lg)) {
		if lw[i] != lg[i] {
			t.Fatalf("%s differs at line %d:\n%s\n%s", what, i+1, lw[i], lg[i])
		}
	}
	t.Fatalf("%s has %d lines, want %d", what, len(lg), len(lw))
}
