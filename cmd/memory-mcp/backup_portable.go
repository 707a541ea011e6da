package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"time"

	"github.com/memory-mcp/memory-mcp/store"
)

// Backup and restore on PostgreSQL (--database). Copying the database's
// pages is PostgreSQL's own job (pg_dump, pg_basebackup, and the archives
// that make point-in-time recovery; see docs/operations.md). What memory-mcp
// writes is the memory's portable export, read from one REPEATABLE READ
// snapshot while servers go on writing, checked by reading it back (every
// line against the trailer's count and checksum, and the records of each
// kind against what was written); a restore is its exact import into an
// empty database. The export leaves out what is not the memory's meaning
// (see docs/export.md): vectors, which reindex makes again, tokens, the
// change feed, the erasure audit, fine-tuned adapters.

// sqliteMagic starts every SQLite database file: a backup of the SQLite
// engine, which a restore into PostgreSQL reads through its export.
const sqliteMagic = "SQLite format 3\x00"

// backupPostgres writes a checked portable backup of cfg's PostgreSQL
// database to path.
func backupPostgres(ctx context.Context, cfg *Config, path string, stdout io.Writer) error {
	db, _, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	r, err := writePortableBackup(ctx, db, path)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s as a portable export (%d bytes, %d records, read from one snapshot in %s, read back and checked in %s)\n",
		db.Path(), r.Path, r.Bytes, r.Rows, r.Copied.Round(time.Millisecond), r.Checked.Round(time.Millisecond))
	fmt.Fprintln(stdout, "restore it into an empty database with memory-mcp restore --database; it carries the memory, not vectors (reindex makes them), "+
		"tokens, the change feed or the erasure audit: back the cluster itself up with pg_dump or pg_basebackup (docs/operations.md)")
	return nil
}

// writePortableBackup writes db's export to path, which must not exist,
// through a file beside it that becomes path only once read back whole.
func writePortableBackup(ctx context.Context, db *store.DB, path string) (backupReport, error) {
	r := backupReport{Path: path}
	tmp, f, err := createPartial(path)
	if err != nil {
		return r, err
	}
	start := time.Now()
	counts, err := db.Export(ctx, store.ExportFilter{}, f)
	if err == nil {
		err = f.Sync()
	}
	err = errors.Join(err, f.Close())
	r.Copied = time.Since(start)
	if err == nil {
		err = checkPortableBackup(tmp, counts, &r)
	}
	r.Checked = time.Since(start) - r.Copied
	if err == nil {
		err = os.Link(tmp, path)
	}
	os.Remove(tmp)
	if err != nil {
		return r, fmt.Errorf("backup to %s: %w", path, err)
	}
	info, err := os.Stat(path)
	if err != nil {
		return r, err
	}
	r.Bytes = info.Size()
	return r, nil
}

// checkPortableBackup reads the export at path back: whole (its trailer's
// count and checksum), and holding the records written.
func checkPortableBackup(path string, want store.ExportCounts, r *backupReport) error {
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	got := store.ExportCounts{}
	if _, err := store.ReadExport(bufio.NewReader(in), func(kind string, _ json.RawMessage) error { got[kind]++; return nil }); err != nil {
		return fmt.Errorf("read back: %s", errorText(err))
	}
	if !maps.Equal(got, want) {
		return fmt.Errorf("read back, it holds %s; the export wrote %s", describeCounts(got), describeCounts(want))
	}
	for _, n := range got {
		r.Rows += n
	}
	return nil
}

// restorePostgres imports the backup at path into cfg's PostgreSQL
// database, which must hold no memory: a portable backup as it is, a
// SQLite backup (memory-mcp backup without --database) through its
// export (the memory only: copy moves a whole data directory). Every row
// is stamped under the database's key and checked after.
func restorePostgres(ctx context.Context, cfg *Config, path string, stdout io.Writer) error {
	in, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer in.Close()
	if info, err := in.Stat(); err != nil || !info.Mode().IsRegular() {
		return fmt.Errorf("restore: %s is not a file: name a backup written by memory-mcp backup", path)
	}
	db, _, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	if empty, err := db.Empty(ctx); err != nil {
		return err
	} else if !empty {
		return fmt.Errorf("restore: %s already holds memory: a restore goes only into an empty database", db.Path())
	}
	var src io.Reader = bufio.NewReader(in)
	head, _ := src.(*bufio.Reader).Peek(len(sqliteMagic))
	if string(head) == sqliteMagic {
		if src, err = exportSQLiteBackup(ctx, path); err != nil {
			return fmt.Errorf("restore %s: %w", path, err)
		}
	}
	file := path
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	rep, err := db.Import(ctx, src, store.ImportSource{File: file, By: cfg.Identity.Principal(), MaxContentBytes: cfg.MaxContentBytes})
	if c, ok := src.(io.Closer); ok {
		c.Close()
	}
	if err != nil {
		return fmt.Errorf("restore %s: %s", path, errorText(err))
	}
	v, err := db.Verify(ctx)
	if err != nil {
		return err
	}
	if n := len(v.Mismatched); n > 0 {
		return fmt.Errorf("restore %s: %d rows do not match their provenance stamps after the import (the first: %s %s)", path, n, v.Mismatched[0].Table, v.Mismatched[0].ID)
	}
	fmt.Fprintf(stdout, "restored %s into %s (%s); run memory-mcp reindex --database to embed the memories\n", path, db.Path(), describeCounts(rep.Kinds))
	return nil
}

// exportSQLiteBackup returns the export of the SQLite backup at path, read
// from a copy of it (opening a database may bring its schema up to date,
// and the backup stays as it was), streamed as it is written.
func exportSQLiteBackup(ctx context.Context, path string) (io.ReadCloser, error) {
	dir, err := os.MkdirTemp("", "memory-mcp-restore-")
	if err != nil {
		return nil, err
	}
	copied := filepath.Join(dir, store.FileName)
	if err := copyFile(path, copied); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	lite, err := store.Open(ctx, copied)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := lite.Export(ctx, store.ExportFilter{}, pw)
		lite.Close()
		os.RemoveAll(dir)
		pw.CloseWithError(err)
	}()
	return pr, nil
}

// copyThroughExport copies db's memory into a new SQLite store at path,
// stamped under key, through the export: what a dry run of a merge into a
// PostgreSQL database runs its gates against.
func copyThroughExport(ctx context.Context, db *store.DB, key []byte, path string) error {
	lite, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer lite.Close()
	if err := lite.UseProvenanceKey(ctx, key); err != nil {
		return err
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := db.Export(ctx, store.ExportFilter{}, pw)
		pw.CloseWithError(err)
	}()
	_, err = lite.Import(ctx, pr, store.ImportSource{File: db.Path(), By: "memory-mcp"})
	pr.CloseWithError(errors.New("the copy ended"))
	return err
}
