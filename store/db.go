// Package store keeps everything memory-mcp knows in one SQLite file: the fact
// log and snapshot, memories with their FTS5 index and vectors, notes and the
// promotion ledger, shared state and blocks. Several processes may open the same
// file at once; SQLite's WAL and immediate write transactions serialise writers,
// and the changes table lets each process see what the others wrote.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"

	memory "github.com/memory-mcp/memory-mcp"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// FileName is the database file inside a data directory.
const FileName = "memory.db"

// DB is an open memory database.
type DB struct {
	sql  *sql.DB
	path string
	// Now is the clock every write stamps with; tests replace it.
	Now memory.Clock
}

// Open opens (creating if needed) the database at path and brings its schema
// up to date. path is a file, not a directory.
func Open(ctx context.Context, path string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	sdb, err := driver.Open(dsn(path), registerFTS)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db := &DB{sql: sdb, path: path}
	if err := db.migrate(ctx); err != nil {
		sdb.Close()
		return nil, err
	}
	return db, nil
}

func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(wal)")
	q.Add("_pragma", "synchronous(normal)")
	q.Add("_pragma", "foreign_keys(on)")
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Path returns the database file's path.
func (db *DB) Path() string { return db.path }

// Close closes the database.
func (db *DB) Close() error { return db.sql.Close() }

// SQL exposes the handle for packages that own their tables (benchmarks, replay).
func (db *DB) SQL() *sql.DB { return db.sql }

// Update runs fn in an immediate (write) transaction and commits if fn returns nil.
// Every public write method of the store goes through here, so a method is one
// transaction: it commits whole or not at all.
func (db *DB) Update(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// View runs fn in a read-only (deferred) transaction: a consistent snapshot that
// does not block writers.
func (db *DB) View(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.sql.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback()
	return fn(tx)
}

// migrate applies every embedded migration newer than PRAGMA user_version, in
// order, each in its own transaction. Migration files are named NNNN_name.sql.
func (db *DB) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		n, err := strconv.Atoi(strings.SplitN(filepath.Base(name), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: name must start with a number", name)
		}
		body, err := migrationFS.ReadFile(name)
		if err != nil {
			return err
		}
		err = db.Update(ctx, func(tx *sql.Tx) error {
			var have int
			if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&have); err != nil {
				return err
			}
			if have >= n {
				return nil
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("migration %s: %w", name, err)
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, n))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// SchemaVersion returns the applied migration number.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := db.sql.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v)
	return v, err
}

// Change is one row of the change feed: something of kind (fact, memory, ...)
// named ref changed in the transaction that wrote seq.
type Change struct {
	Seq  int64
	Kind string
	Ref  string
	At   time.Time
}

// RecordChange appends to the change feed inside a write transaction, so other
// processes tailing the feed see the change exactly when it commits.
func RecordChange(ctx context.Context, tx *sql.Tx, kind, ref string, at time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO changes (kind, ref, at) VALUES (?, ?, ?)`, kind, ref, at.UnixNano())
	if err != nil {
		return fmt.Errorf("record change: %w", err)
	}
	return nil
}

// ChangesSince returns up to limit changes after seq, oldest first.
func (db *DB) ChangesSince(ctx context.Context, seq int64, limit int) ([]Change, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT seq, kind, ref, at FROM changes WHERE seq > ? ORDER BY seq LIMIT ?`, seq, limit)
	if err != nil {
		return nil, fmt.Errorf("read changes: %w", err)
	}
	defer rows.Close()
	var out []Change
	for rows.Next() {
		var c Change
		var at int64
		if err := rows.Scan(&c.Seq, &c.Kind, &c.Ref, &at); err != nil {
			return nil, err
		}
		c.At = time.Unix(0, at).UTC()
		out = append(out, c)
	}
	return out, rows.Err()
}

// LastChange returns the newest change sequence number (0 when none).
func (db *DB) LastChange(ctx context.Context) (int64, error) {
	var seq sql.NullInt64
	err := db.sql.QueryRowContext(ctx, `SELECT max(seq) FROM changes`).Scan(&seq)
	return seq.Int64, err
}

// IsBusy reports whether err is SQLite refusing a lock after the busy timeout.
func IsBusy(err error) bool {
	var e *sqlite3.Error
	return errors.As(err, &e) && (e.Code() == sqlite3.BUSY || e.Code() == sqlite3.LOCKED)
}

// nanos and fromNanos convert timestamps to the INTEGER unix-nanosecond form
// every table uses: sortable, exact, and free of time-zone ambiguity.
func nanos(t time.Time) int64 { return t.UTC().UnixNano() }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

func fromNullNanos(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := fromNanos(n.Int64)
	return &t
}
