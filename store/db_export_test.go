package store

import (
	"context"
	"database/sql"
	"io/fs"
	"time"
)

// OpenWith opens path applying only the migrations in fsys, for upgrade tests.
func OpenWith(ctx context.Context, path string, fsys fs.FS) (*DB, error) {
	return open(ctx, path, fsys)
}

// MigrationFS is the embedded migration set.
var MigrationFS = migrations

// SetBusyTimeout changes the busy timeout of databases opened after it, for
// a test, and returns the undo.
func SetBusyTimeout(d time.Duration) func() {
	old := busyTimeout
	busyTimeout = d
	return func() { busyTimeout = old }
}

// SetFactIDSuffix makes derived fact ids end in suffix, for a test, and
// returns the undo.
func SetFactIDSuffix(suffix string) func() {
	old := factIDSuffix
	factIDSuffix = func() string { return suffix }
	return func() { factIDSuffix = old }
}

// SQL exposes the handle, for tests that check what the services wrote.
func (db *DB) SQL() *sql.DB { return db.sql }

// SQL exposes the transaction, for tests that damage or inspect rows.
func (tx *Tx) SQL() *sql.Tx { return tx.sql }

// KeepNoIdle closes the database's idle connections, of both pools, and
// keeps none from now on.
func (db *DB) KeepNoIdle() {
	db.sql.SetMaxIdleConns(0)
	db.reads.SetMaxIdleConns(0)
}

// Statements is how many statements the database has run through a Tx.
func (db *DB) Statements() int64 { return db.statements.Load() }
