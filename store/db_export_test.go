package store

import (
	"context"
	"io/fs"
)

// OpenWith opens path applying only the migrations in fsys, for upgrade tests.
func OpenWith(ctx context.Context, path string, fsys fs.FS) (*DB, error) {
	return open(ctx, path, fsys)
}

// MigrationFS is the embedded migration set.
var MigrationFS = migrations
