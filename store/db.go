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
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"

	memory "github.com/memory-mcp/memory-mcp"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrations are the schema changes, applied in name order (NNNN_name.sql).
var migrations, _ = fs.Sub(migrationFS, "migrations")

// FileName is the database file inside a data directory.
const FileName = "memory.db"

// busyTimeout is how long a statement waits for a lock another connection
// (this process's or another program's) holds before SQLite gives up with
// SQLITE_BUSY, which callers then see as EBUSY. Tests shorten it.
var busyTimeout = 10 * time.Second

// DB is an open memory database.
type DB struct {
	sql *sql.DB

	// beforeRerun, set by tests only, runs before a write transaction is
	// run again: where another writer's commit would land.
	beforeRerun func()

	// reads serves View: connections opened query_only. A read-only
	// transaction on a connection that may write switches query_only on and
	// off, and SQLite expires every statement prepared on the connection
	// when that flag changes, so each read would parse every statement
	// anew; connections that only read never switch it.
	reads *sql.DB
	path  string // the file, or a PostgreSQL database's URL without its password
	// postgres says the database is PostgreSQL (postgres.go): statements
	// are rebound to its dialect, writes are serializable and retried.
	postgres bool
	pg       *postgresEngine // what the PostgreSQL engine keeps beside the pool
	busy     time.Duration   // the busy timeout the connections were opened with
	stmts    sync.Map        // query text -> *sql.Stmt on sql, prepared once (see Tx.stmt)
	rstmts   sync.Map        // the same on reads
	// logLines counts the write log lines this process wrote (pruning).
	logLines atomic.Int64
	// counted counts the admissions this process counted (pruning).
	counted atomic.Int64
	// statements counts the statements run through a Tx, so that a test can
	// hold a page to a fixed number of them however many rows it shows.
	statements atomic.Int64
	// Now is the clock every write stamps with; tests replace it.
	Now memory.Clock
	// provenanceKey keys the stamps of the rows this DB writes (see
	// provenance.go); nil writes none. Set once, before use.
	provenanceKey []byte
	// exports are the exports ExportOwn keeps between pages.
	exports exportSnapshots
}

// Open opens (creating if needed) the database at path and brings its schema
// up to date. path is a file, not a directory.
func Open(ctx context.Context, path string) (*DB, error) {
	return open(ctx, path, migrations)
}

func open(ctx context.Context, path string, migrations fs.FS) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	sdb, err := driver.Open(dsn(path, busyTimeout, false), registerFTS)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	rdb, err := driver.Open(dsn(path, busyTimeout, true), registerFTS)
	if err != nil {
		sdb.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db := &DB{sql: sdb, reads: rdb, path: path, busy: busyTimeout}
	if err := db.migrate(ctx, migrations); err != nil {
		db.Close()
		return nil, notADatabase(path, err)
	}
	return db, nil
}

// notADatabase says plainly that the file at path is not a database (or is a
// damaged one) when err, from the first statements run on it, says so.
// SQLite only finds out once it reads the file, which is when the schema is
// checked, so err would otherwise blame a schema step.
func notADatabase(path string, err error) error {
	if !errors.Is(err, sqlite3.NOTADB) && !errors.Is(err, sqlite3.CORRUPT) {
		return err
	}
	// SQLite's own words, without the steps that led to them: a full error
	// when it carries a message, else the bare code.
	var why error
	var e *sqlite3.Error
	var code sqlite3.ErrorCode
	switch {
	case errors.As(err, &e):
		why = e
	case errors.As(err, &code):
		why = code
	default:
		why = err
	}
	return fmt.Errorf("%s is not a memory-mcp database or is corrupt: %w", path, why)
}

// dsn is the data source of path's connections: those that write begin
// every transaction immediate (taking the write lock at once, so that two
// writers never deadlock upgrading); those that only read are query_only.
func dsn(path string, busy time.Duration, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	if readOnly {
		q.Add("_pragma", "query_only(on)")
	} else {
		q.Add("_pragma", "journal_mode(wal)")
		q.Set("_txlock", "immediate")
	}
	q.Add("_pragma", "synchronous(normal)")
	q.Add("_pragma", "foreign_keys(on)")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Path returns the database file's path.
func (db *DB) Path() string { return db.path }

// Close closes the database.
func (db *DB) Close() error {
	if db.reads == db.sql {
		return db.sql.Close()
	}
	return errors.Join(db.reads.Close(), db.sql.Close())
}

// Tx is one transaction on the store. The store's own services run each
// public method in one; a service outside the store (promotion, and the
// services to come) composes a write of several steps — a ledger row, its
// projection, the pending retries it unblocks — from Tx's methods inside
// DB.Update, so that it commits or fails as one. Only this package sees SQL.
type Tx struct {
	sql  *sql.Tx
	db   *DB
	read bool // a View's: on db.reads
	// events are the ledger events appended in the transaction, for the
	// review of a promotion (Call's ledger review).
	events []memory.Event
}

// stmt returns q prepared once for the database and bound to tx. Parsing is
// a large share of a small statement's cost in SQLite (a sixth of a
// search's), so every statement a hot path runs is prepared once and reused
// across transactions.
func (tx *Tx) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	pool, cache := tx.db.sql, &tx.db.stmts
	if tx.read {
		pool, cache = tx.db.reads, &tx.db.rstmts
	}
	if st, ok := cache.Load(q); ok {
		return tx.sql.StmtContext(ctx, st.(*sql.Stmt)), nil
	}
	st, err := pool.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	if prev, loaded := cache.LoadOrStore(q, st); loaded {
		st.Close()
		st = prev.(*sql.Stmt)
	}
	return tx.sql.StmtContext(ctx, st), nil
}

// exec, query and queryRow run q in tx through its prepared statement. On
// PostgreSQL the driver prepares and caches each statement per connection
// itself, so q is only rebound to its dialect.
func (tx *Tx) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	tx.db.statements.Add(1)
	if tx.db.postgres {
		return tx.sql.ExecContext(ctx, tx.db.rebind(q), tx.db.args(args)...)
	}
	st, err := tx.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (tx *Tx) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	tx.db.statements.Add(1)
	if tx.db.postgres {
		return tx.sql.QueryContext(ctx, tx.db.rebind(q), tx.db.args(args)...)
	}
	st, err := tx.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// queryRow reports a statement that does not prepare through Scan, as
// database/sql's own QueryRow does: it runs q directly, which fails the same way.
func (tx *Tx) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	tx.db.statements.Add(1)
	if tx.db.postgres {
		return tx.sql.QueryRowContext(ctx, tx.db.rebind(q), tx.db.args(args)...)
	}
	if st, err := tx.stmt(ctx, q); err == nil {
		return st.QueryRowContext(ctx, args...)
	}
	return tx.sql.QueryRowContext(ctx, q, args...)
}

// execOnce, queryOnce and queryRowOnce run q in tx without preparing it for
// reuse: a statement run rarely, or built in many shapes. On PostgreSQL
// they rebind it as exec does.
func (tx *Tx) execOnce(ctx context.Context, q string, args ...any) (sql.Result, error) {
	tx.db.statements.Add(1)
	return tx.sql.ExecContext(ctx, tx.db.dialect(q), tx.db.args(args)...)
}

func (tx *Tx) queryOnce(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	tx.db.statements.Add(1)
	return tx.sql.QueryContext(ctx, tx.db.dialect(q), tx.db.args(args)...)
}

func (tx *Tx) queryRowOnce(ctx context.Context, q string, args ...any) *sql.Row {
	tx.db.statements.Add(1)
	return tx.sql.QueryRowContext(ctx, tx.db.dialect(q), tx.db.args(args)...)
}

// insertID runs the INSERT q and returns the key column of the row it
// wrote: SQLite's last insert rowid, or on PostgreSQL what RETURNING key
// gives (its driver has no last insert id).
func (tx *Tx) insertID(ctx context.Context, key, q string, args ...any) (int64, error) {
	var id int64
	if tx.db.postgres {
		err := tx.queryRow(ctx, q+" RETURNING "+key, args...).Scan(&id)
		return id, err
	}
	res, err := tx.exec(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// Now is the time a write in tx is stamped with: the database's clock.
func (tx *Tx) Now() time.Time { return tx.db.Now.Now() }

// Update runs fn in an immediate (write) transaction and commits if fn
// returns nil: it commits whole or not at all. Every public write of the
// store's services goes through here, and so does every write a service
// outside the store composes.
//
// On PostgreSQL the transaction is serializable, so that every rule the
// services check inside one holds as it does under SQLite's one writer at a
// time; one PostgreSQL aborts for concurrent writers is run again. So is one
// that broke a unique key: PostgreSQL reports a key a concurrent
// transaction inserted that way unless this one had read that very key
// (two publishes of a new version each read the snapshot, then insert the
// same log row). Run again, it reads the other's row and decides anew; a
// real duplicate fails every time and is returned as it is.
func (db *DB) Update(ctx context.Context, fn func(tx *Tx) error) error {
	err := db.update(ctx, fn, false)
	for try := 1; db.postgres && (retryable(err) || uniqueViolation(err)) && try < serializationRetries; try++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(retryWait(try)):
		}
		if db.beforeRerun != nil {
			db.beforeRerun()
		}
		err = db.update(ctx, fn, try >= serializeAfter)
	}
	return db.busyError(err)
}

// writeTx is how a write transaction begins: SQLite's are immediate by their
// connections' settings; PostgreSQL's serializable.
func (db *DB) writeTx() *sql.TxOptions {
	if db.postgres {
		return &sql.TxOptions{Isolation: sql.LevelSerializable}
	}
	return nil
}

// readTx is how a read transaction begins: read-only, and on PostgreSQL one
// snapshot for all its statements.
func (db *DB) readTx() *sql.TxOptions {
	if db.postgres {
		return &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}
	}
	return &sql.TxOptions{ReadOnly: true}
}

// update runs fn in one write transaction; queued (PostgreSQL only), it
// first waits its turn among the writers that failed to commit several
// times (see writeQueue).
func (db *DB) update(ctx context.Context, fn func(tx *Tx) error, queued bool) error {
	t, err := db.sql.BeginTx(ctx, db.writeTx())
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	// Even if fn panics, the write lock (held across every process on the
	// file) is released; after Commit this is a no-op.
	defer t.Rollback()
	tx := &Tx{sql: t, db: db}
	if queued {
		if err := tx.writeQueue(ctx); err != nil {
			return err
		}
	}
	// The first write a gated call commits claims its idempotency key and
	// writes its line in the write log, in the same transaction.
	// A call's transactions may run in parallel (a consolidation's groups):
	// the first one to commit is the one that claims.
	call := CallFrom(ctx)
	var owed *Call
	if call != nil {
		call.mu.Lock()
		if call.held {
			// A held call's first write was its last: nothing more of it
			// may commit until a human approves it.
			call.mu.Unlock()
			return ErrHeld
		}
		switch {
		case call.committed && call.reviewsLedger():
			// A later write of a call whose review is of its ledger
			// events: it may be the first to append one, or add more.
			defer call.mu.Unlock()
			owed, call = call, nil
		case call.committed:
			call.mu.Unlock()
			call = nil
		default:
			defer call.mu.Unlock()
		}
	}
	// On PostgreSQL this run may be rolled back and fn run again: what it
	// writes of the call is undone with it, so that the next run starts
	// from what the committed transactions left (see Call.rerun).
	committed := false
	for _, c := range []*Call{call, owed} {
		if c != nil {
			undo := c.rerun()
			defer func() {
				if !committed {
					undo()
				}
			}()
		}
	}
	if call != nil {
		if err := tx.firstWrite(ctx, call); err != nil {
			return err
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	if call != nil {
		if err := tx.lastWrite(ctx, call); err != nil {
			return err
		}
	}
	if owed != nil {
		if err := tx.reviewLedger(ctx, owed); err != nil {
			return err
		}
	}
	if err := t.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	committed = true
	if call != nil {
		call.committed = true
		if call.holds() {
			call.held = true
			return ErrHeld
		}
	}
	return nil
}

// View runs fn in a read-only (deferred) transaction: a consistent snapshot that
// does not block writers.
func (db *DB) View(ctx context.Context, fn func(tx *Tx) error) error {
	t, err := db.reads.BeginTx(ctx, db.readTx())
	if err != nil {
		return db.busyError(fmt.Errorf("begin read: %w", err))
	}
	defer t.Rollback()
	return db.busyError(fn(&Tx{sql: t, db: db, read: true}))
}

// busyError turns a lock SQLite waited for in vain (SQLITE_BUSY once the busy
// timeout ran out, SQLITE_LOCKED) into EBUSY, which tells the caller to retry;
// any other error is returned as it is. The transaction it happened in has
// rolled back, so a retry starts clean.
func (db *DB) busyError(err error) error {
	if db.postgres {
		return db.postgresError(err)
	}
	if !errors.Is(err, sqlite3.BUSY) && !errors.Is(err, sqlite3.LOCKED) {
		return err
	}
	return memory.Errorf(memory.EBUSY, "the database is busy: %s stayed locked by another connection (another memory-mcp, or another program) for longer than %s; retry the call in a few seconds",
		db.path, seconds(db.busy))
}

// seconds renders d as "10 s" or "0.1 s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// migrate applies every embedded migration not yet applied, in name order,
// each in its own transaction with its record in schema_migrations. Applied
// migrations are tracked by name, not by a high-water number, so a migration
// that lands after a higher-numbered one still runs on existing databases.
// migrationSteps are what a migration needs done in Go after its SQL, in
// its transaction: values SQL cannot compute.
var migrationSteps = map[string]func(context.Context, *Tx) error{
	"0009_gates.sql":                 fillDedupKeys,
	"0010_conflicts.sql":             widenArchiveReasons,
	"0014_fact_gates.sql":            fillFactKeys,
	"0018_meaning_key.sql":           fillMeaningKeys,
	"0019_shared_gates.sql":          fillSharedKeys,
	"0022_text_rules.sql":            rekeyTexts,
	"0023_claims_rekey.sql":          refillClaims,
	"0032_claims_rekey_handles.sql":  refillClaims,
	"0038_claims_rekey_reworded.sql": refillClaims,
	"0048_dedup_rekey_paths_units.sql": func(ctx context.Context, tx *Tx) error {
		return rekeyDedup(ctx, tx.sql, sqliteRekey)
	},
	"0050_dedup_rekey_camel_case.sql": func(ctx context.Context, tx *Tx) error {
		return rekeyDedup(ctx, tx.sql, sqliteRekey)
	},
	"0053_claims_rekey_modifiers.sql": refillClaims,
}

// collect reads every row of q, each by scan, before a migration's Go
// step writes what it computes from them.
func collect[T any](ctx context.Context, tx *Tx, q string, scan func(*sql.Rows, *T) error) ([]T, error) {
	rows, err := tx.sql.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var r T
		if err := scan(rows, &r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (db *DB) migrate(ctx context.Context, fsys fs.FS) error {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	if err := db.checkSchema(ctx, names); err != nil {
		return err
	}
	_, err = db.sql.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL) WITHOUT ROWID`)
	if err != nil {
		return db.busyError(fmt.Errorf("create schema_migrations: %w", err))
	}
	for _, name := range names {
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		err = db.Update(ctx, func(tx *Tx) error {
			var n int
			if err := tx.sql.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE name = ?`, name).Scan(&n); err != nil || n > 0 {
				return err
			}
			if _, err := tx.sql.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("migration %s: %w", name, err)
			}
			if step := migrationSteps[name]; step != nil {
				if err := step(ctx, tx); err != nil {
					return fmt.Errorf("migration %s: %w", name, err)
				}
			}
			_, err := tx.sql.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`, name, time.Now().UnixNano())
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// checkSchema refuses a file this build must not change: a SQLite database
// of another program (tables, but no record of migrations), or one that has
// a migration this build does not know (a newer memory-mcp wrote it, and this
// build would misread or damage its schema).
func (db *DB) checkSchema(ctx context.Context, known []string) error {
	var tables []string
	err := db.View(ctx, func(tx *Tx) error {
		var err error
		tables, err = scanStrings(tx.sql.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`))
		return err
	})
	switch {
	case err != nil:
		return fmt.Errorf("read schema: %w", err)
	case len(tables) == 0:
		return nil // a new file
	case !slices.Contains(tables, "schema_migrations"):
		return fmt.Errorf("%s is not a memory-mcp database: it holds tables (%s) but no schema_migrations; use another data directory",
			db.path, strings.Join(tables[:min(len(tables), 5)], ", "))
	}
	applied, err := db.appliedMigrations(ctx)
	if err != nil {
		return fmt.Errorf("read applied migrations: %w", err)
	}
	return newerSchema(db.path, known, applied)
}

// appliedMigrations returns the names of the applied migrations, in order.
func (db *DB) appliedMigrations(ctx context.Context) ([]string, error) {
	return scanStrings(db.sql.QueryContext(ctx, `SELECT name FROM schema_migrations ORDER BY name`))
}

// scanStrings reads a one-column result of text and closes rows.
func scanStrings(rows *sql.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// RecordChange appends to the change feed inside a write transaction, so other
// processes tailing the feed see the change exactly when it commits (see
// memory.ChangeKind for what each kind's ref is).
func (tx *Tx) RecordChange(ctx context.Context, kind memory.ChangeKind, ref string, at time.Time) error {
	_, err := tx.exec(ctx, insertChange, kind, ref, at.UnixNano())
	if err != nil {
		return fmt.Errorf("record change: %w", err)
	}
	return nil
}

const insertChange = `INSERT INTO changes (kind, ref, at) VALUES (?, ?, ?)`

// ChangesSince returns up to limit changes after seq, oldest first.
// DB is the memory.ChangeFeed of its file.
func (db *DB) ChangesSince(ctx context.Context, seq int64, limit int) ([]memory.Change, error) {
	rows, err := db.sql.QueryContext(ctx, db.rebind(`SELECT seq, kind, ref, at FROM changes WHERE seq > ? ORDER BY seq LIMIT ?`), seq, limit)
	if err != nil {
		return nil, db.busyError(fmt.Errorf("read changes: %w", err))
	}
	defer rows.Close()
	var out []memory.Change
	for rows.Next() {
		var c memory.Change
		var at int64
		if err := rows.Scan(&c.Seq, &c.Kind, &c.Ref, &at); err != nil {
			return nil, err
		}
		c.At = time.Unix(0, at).UTC()
		out = append(out, c)
	}
	return out, rows.Err()
}

// Size is the bytes the store takes on disk: the database file with its
// write-ahead log and shared-memory files, or on PostgreSQL the database's
// size as the server counts it.
func (db *DB) Size(ctx context.Context) (int64, error) {
	if db.postgres {
		var n int64
		err := db.sql.QueryRowContext(ctx, `SELECT pg_database_size(current_database())`).Scan(&n)
		return n, db.busyError(err)
	}
	var n int64
	for _, f := range []string{db.path, db.path + "-wal", db.path + "-shm"} {
		if st, err := os.Stat(f); err == nil {
			n += st.Size()
		} else if !errors.Is(err, fs.ErrNotExist) {
			return 0, err
		}
	}
	return n, nil
}

// LastChange returns the newest change sequence number (0 when none).
func (db *DB) LastChange(ctx context.Context) (int64, error) {
	var seq sql.NullInt64
	err := db.sql.QueryRowContext(ctx, `SELECT max(seq) FROM changes`).Scan(&seq)
	return seq.Int64, db.busyError(err)
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
