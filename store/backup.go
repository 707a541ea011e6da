package store

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"sort"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/ncruces/go-sqlite3/driver"
)

// Backup writes a consistent copy of the database to the new file path with
// SQLite's online backup API, while other connections and processes go on
// writing: the copy is taken in one step, under one read transaction, so it
// holds exactly the transactions committed before that step began. A file
// copy could tear a page a writer is changing, or miss the WAL's content.
// The copy is left in rollback-journal mode, one self-contained file.
func (db *DB) Backup(ctx context.Context, path string) error {
	if db.postgres {
		return memory.Errorf(memory.EINVALID, "backup copies an SQLite database; %s is PostgreSQL's: back it up with pg_dump or base backups", db.path)
	}
	conn, err := db.reads.Conn(ctx)
	if err != nil {
		return db.busyError(fmt.Errorf("backup: %w", err))
	}
	defer conn.Close()
	err = conn.Raw(func(c any) error {
		// One step of every page: stepping a few pages at a time lets a
		// writer in another process restart the copy, which under steady
		// writes might never finish.
		return c.(driver.Conn).Raw().Backup("main", path)
	})
	if err != nil {
		return db.busyError(fmt.Errorf("backup to %s: %w", path, err))
	}
	return rollbackJournal(ctx, path)
}

// rollbackJournal switches the database at path out of WAL mode, which the
// backup copied with the pages, so that it is one file with nothing beside it.
func rollbackJournal(ctx context.Context, path string) error {
	sdb, err := driver.Open("file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("open backup %s: %w", path, err)
	}
	defer sdb.Close()
	var mode string
	if err := sdb.QueryRowContext(ctx, `PRAGMA journal_mode = delete`).Scan(&mode); err != nil {
		return fmt.Errorf("backup %s: journal mode: %w", path, err)
	}
	return nil
}

// FileCheck is what Check found of a database file.
type FileCheck struct {
	Pages      int      `json:"pages"`
	PageSize   int      `json:"page_size"`
	Migrations []string `json:"migrations"`
}

// Check checks the whole database: SQLite's integrity check (every page,
// index and constraint) passes, and its schema is exactly this build's,
// every migration applied. A backup is checked so before it is trusted.
func (db *DB) Check(ctx context.Context) (FileCheck, error) {
	var fc FileCheck
	problems, err := scanStrings(db.sql.QueryContext(ctx, `PRAGMA integrity_check`))
	if err != nil {
		return fc, db.busyError(fmt.Errorf("integrity check: %w", err))
	}
	if len(problems) != 1 || problems[0] != "ok" {
		return fc, fmt.Errorf("%s fails SQLite's integrity check: %s", db.path, strings.Join(problems[:min(len(problems), 5)], "; "))
	}
	if fc.Migrations, err = db.appliedMigrations(ctx); err != nil {
		return fc, fmt.Errorf("read applied migrations: %w", err)
	}
	known, err := fs.Glob(migrations, "*.sql")
	if err != nil {
		return fc, err
	}
	sort.Strings(known)
	if !slices.Equal(fc.Migrations, known) {
		return fc, fmt.Errorf("%s has migrations %s, this build has %s", db.path, strings.Join(fc.Migrations, ", "), strings.Join(known, ", "))
	}
	err = db.sql.QueryRowContext(ctx, `SELECT page_count, page_size FROM pragma_page_count(), pragma_page_size()`).Scan(&fc.Pages, &fc.PageSize)
	if err != nil {
		return fc, fmt.Errorf("page count: %w", err)
	}
	return fc, nil
}
