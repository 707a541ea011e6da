package store

import (
	"context"
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
