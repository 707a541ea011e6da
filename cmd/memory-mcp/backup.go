package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// BackupConfig schedules the server's backups.
type BackupConfig struct {
	// Dir is where scheduled backups go; "" schedules none.
	Dir string
	// Interval is how often the data directory is backed up, between all
	// the servers running on it.
	Interval time.Duration
	// Keep is how many scheduled backups are kept; older ones are deleted.
	Keep int
}

// backupSettings are the scheduled backup's settings. Scheduling is off
// until a directory is named: where backups may go is the operator's call.
func backupSettings() []setting {
	return []setting{
		{"backup-dir", "directory the server writes a verified backup to every backup-interval (memory-YYYYMMDDTHHMMSSZ.db and its .key); " +
			"empty: no scheduled backups", constant(""),
			func(c *Config, v string) error { c.Backup.Dir = v; return nil }},
		{"backup-interval", "how often the data directory is backed up to backup-dir, e.g. 6h or 1d (between all the servers on it: " +
			"one backup per interval)", constant("1d"),
			func(c *Config, v string) error {
				d, err := memory.ParseAge("backup-interval", v)
				if err != nil || d == nil || *d < time.Minute {
					return fmt.Errorf("%q is not an interval of a minute or more, such as 6h or 1d", v)
				}
				c.Backup.Interval = *d
				return nil
			}},
		{"backup-keep", "how many scheduled backups backup-dir keeps; older ones are deleted", constant("7"),
			func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 {
					return fmt.Errorf("%q is not a positive number of backups", v)
				}
				c.Backup.Keep = n
				return nil
			}},
	}
}

// backupKeySuffix names the provenance key written beside a backup: the
// backup's stamps verify only under it, so a restore needs it.
const backupKeySuffix = ".key"

// backupReport is what a written and verified backup holds.
type backupReport struct {
	Path       string
	Bytes      int64
	Migrations int
	Rows       int // provenance-checked rows
	KeyPath    string
	// Copied and Checked are how long the copy and its checks took.
	Copied, Checked time.Duration
}

// backup writes a verified backup of the data directory's database to path.
// A data directory with no database is refused: opening it would make an
// empty store, and a verified backup of nothing.
func backup(ctx context.Context, cfg *Config, path string, stdout io.Writer) error {
	if cfg.Database != "" {
		return backupPostgres(ctx, cfg, path, stdout)
	}
	if info, err := os.Stat(filepath.Join(cfg.DataDir, store.FileName)); err != nil || !info.Mode().IsRegular() {
		what := "holds no " + store.FileName
		if _, err := os.Stat(cfg.DataDir); errors.Is(err, fs.ErrNotExist) {
			what = "does not exist"
		}
		return fmt.Errorf("backup: the data directory %s %s: name the data directory that holds the memory (--data-dir)", cfg.DataDir, what)
	}
	db, from, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	key, _, err := provenanceKey(ctx, cfg, db)
	if err != nil {
		return err
	}
	r, err := writeBackup(ctx, db, key, from != "env MEMORY_MCP_PROVENANCE_KEY", path)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s (%d bytes, %d migrations, %d rows match their provenance stamps; copied in %s, checked in %s)\n",
		db.Path(), r.Path, r.Bytes, r.Migrations, r.Rows, r.Copied.Round(time.Millisecond), r.Checked.Round(time.Millisecond))
	if r.KeyPath != "" {
		fmt.Fprintf(stdout, "the provenance key is in %s: keep it as private as the data directory; restore reads it from there\n", r.KeyPath)
	} else {
		fmt.Fprintln(stdout, "the provenance key came from MEMORY_MCP_PROVENANCE_KEY: set it again to restore")
	}
	return nil
}

// writeBackup backs db up to path, which must not exist, through a file
// beside it that becomes path only once verified: it passes SQLite's
// integrity check, has exactly this build's migrations, and every row
// matches its provenance stamp under key. With withKey the key is written
// to path.key, mode 0600.
func writeBackup(ctx context.Context, db *store.DB, key []byte, withKey bool, path string) (backupReport, error) {
	r := backupReport{Path: path}
	keyPath := path + backupKeySuffix
	tmp, f, err := createPartial(path, keyPath)
	if err != nil {
		return r, err
	}
	f.Close()
	start := time.Now()
	if err := db.Backup(ctx, tmp); err != nil {
		removeDatabase(tmp)
		return r, err
	}
	r.Copied = time.Since(start)
	err = checkBackup(ctx, tmp, key, &r)
	r.Checked = time.Since(start) - r.Copied
	if err == nil && withKey {
		err = writeKeyFile(keyPath, key)
		r.KeyPath = keyPath
	}
	if err == nil {
		err = os.Link(tmp, path)
	}
	removeDatabase(tmp)
	if err != nil {
		if r.KeyPath != "" {
			os.Remove(keyPath)
		}
		return r, fmt.Errorf("backup to %s: %w", path, err)
	}
	info, err := os.Stat(path)
	if err != nil {
		return r, err
	}
	r.Bytes = info.Size()
	return r, nil
}

// createPartial creates the file a backup to path is made in, path.partial,
// once none of paths exists (a backup never overwrites): readable by its
// owner only (it holds every memory), and which no one else is writing.
func createPartial(path string, paths ...string) (string, *os.File, error) {
	for _, p := range append([]string{path}, paths...) {
		if _, err := os.Lstat(p); err == nil {
			return "", nil, fmt.Errorf("backup: %s exists: name a new file (a backup never overwrites)", p)
		}
	}
	tmp := path + ".partial"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return "", nil, fmt.Errorf("backup: %s exists: another backup to %s is under way, or one was interrupted (then remove it)", tmp, path)
	} else if err != nil {
		return "", nil, fmt.Errorf("backup: %w", err)
	}
	return tmp, f, nil
}

// checkBackup opens the database at path and checks it whole (see
// writeBackup), filling r.
func checkBackup(ctx context.Context, path string, key []byte, r *backupReport) error {
	db, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	fc, err := db.Check(ctx)
	if err != nil {
		return err
	}
	r.Migrations = len(fc.Migrations)
	if err := db.UseProvenanceKey(ctx, key); err != nil {
		return err
	}
	rep, err := db.Verify(ctx)
	if err != nil {
		return err
	}
	if n := len(rep.Mismatched); n > 0 {
		return fmt.Errorf("%d rows of the backup do not match their provenance stamps (the first: %s %s); the live database holds them too: run memory-mcp verify",
			n, rep.Mismatched[0].Table, rep.Mismatched[0].ID)
	}
	for _, t := range rep.Tables {
		r.Rows += t.Valid
	}
	return nil
}

// writeKeyFile writes key to the new file path, readable by its owner only.
func writeKeyFile(path string, key []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(hex.EncodeToString(key) + "\n")
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// removeDatabase removes a database file and what SQLite keeps beside it.
func removeDatabase(path string) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		os.Remove(path + suffix)
	}
}

// restore copies the backup at path into the configured data directory,
// which must be empty, with its provenance key (MEMORY_MCP_PROVENANCE_KEY,
// else path.key), and checks the result as a backup is checked. A restore
// that fails leaves the data directory as empty as it found it.
func restore(ctx context.Context, cfg *Config, path string, stdout io.Writer) error {
	if cfg.Database != "" {
		return restorePostgres(ctx, cfg, path, stdout)
	}
	if info, err := os.Stat(path); err != nil {
		return fmt.Errorf("restore: %w", err)
	} else if !info.Mode().IsRegular() {
		return fmt.Errorf("restore: %s is not a file: name a backup written by memory-mcp backup", path)
	}
	if err := checkEmptyDir(cfg.DataDir); err != nil {
		return err
	}
	key, err := restoreKey(cfg, path)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("restore: create data dir: %w", err)
	}
	dst := filepath.Join(cfg.DataDir, store.FileName)
	r := backupReport{Path: dst}
	err = copyFile(path, dst)
	if err == nil && cfg.ProvenanceKey == "" {
		err = writeKeyFile(filepath.Join(cfg.DataDir, ProvenanceKeyFile), key)
	}
	if err == nil {
		err = checkBackup(ctx, dst, key, &r)
	}
	if err != nil {
		removeDatabase(dst)
		os.Remove(filepath.Join(cfg.DataDir, ProvenanceKeyFile))
		return fmt.Errorf("restore %s: %w", path, err)
	}
	fmt.Fprintf(stdout, "restored %s into %s (%d migrations, %d rows match their provenance stamps)\n", path, dst, r.Migrations, r.Rows)
	return nil
}

// checkEmptyDir refuses a data directory that holds anything: a restore
// never replaces or mixes with memory that is there.
func checkEmptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if len(entries) == 0 {
		return nil
	}
	var names []string
	for _, e := range entries[:min(len(entries), 5)] {
		names = append(names, e.Name())
	}
	return fmt.Errorf("restore: the data directory %s is not empty (it holds %s): restore only into an empty one, e.g. --data-dir %s",
		dir, strings.Join(names, ", "), filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-restored"))
}

// restoreKey is the key the backup at path is stamped with.
func restoreKey(cfg *Config, path string) ([]byte, error) {
	if cfg.ProvenanceKey != "" {
		key, err := decodeProvenanceKey(cfg.ProvenanceKey)
		if err != nil {
			return nil, fmt.Errorf("MEMORY_MCP_PROVENANCE_KEY: %w", err)
		}
		return key, nil
	}
	key, err := readProvenanceKey(path + backupKeySuffix)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("restore: %s has no %s beside it: put the provenance key the backup was written with there, "+
			"or set MEMORY_MCP_PROVENANCE_KEY to it", path, filepath.Base(path)+backupKeySuffix)
	}
	return key, err
}

// copyFile copies src to the new file dst and syncs it.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	return errors.Join(err, out.Close())
}

// backupLease is the lease that spaces scheduled backups: whoever takes it
// backs up, and it is held for the interval, so the servers on one data
// directory back it up once per interval between them.
const backupLease = "backup"

// scheduleBackup backs the data directory up to cfg.Backup.Dir once per
// interval (looking each minute, or each interval if shorter) until ctx
// ends, keeping the newest cfg.Backup.Keep.
func scheduleBackup(ctx context.Context, cfg *Config, db *store.DB, log *slog.Logger) {
	key, from, err := provenanceKey(ctx, cfg, db)
	if err != nil {
		log.Error("scheduled backups: not scheduled", "err", err)
		return
	}
	if err := os.MkdirAll(cfg.Backup.Dir, 0o700); err != nil {
		log.Error("scheduled backups: not scheduled", "dir", cfg.Backup.Dir, "err", err)
		return
	}
	log.Info("backups scheduled", "dir", cfg.Backup.Dir, "interval", cfg.Backup.Interval, "keep", cfg.Backup.Keep)
	look := min(cfg.Backup.Interval, time.Minute)
	for {
		if err := scheduledBackup(ctx, cfg, db, key, from != "env MEMORY_MCP_PROVENANCE_KEY", log); err != nil && ctx.Err() == nil {
			log.Error("scheduled backup failed", "dir", cfg.Backup.Dir, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(look):
		}
	}
}

// scheduledBackup takes one backup if it is due, then prunes.
func scheduledBackup(ctx context.Context, cfg *Config, db *store.DB, key []byte, withKey bool, log *slog.Logger) error {
	var due bool
	err := db.Update(ctx, func(tx *store.Tx) error {
		var err error
		_, due, err = tx.AcquireLease(ctx, backupLease, holderName("backup"), cfg.Backup.Interval)
		return err
	})
	if err != nil || !due {
		return err
	}
	name := "memory-" + db.Now.Now().UTC().Format(backupStamp)
	var r backupReport
	if cfg.Database != "" { // PostgreSQL's is the portable export (see backup_portable.go)
		r, err = writePortableBackup(ctx, db, filepath.Join(cfg.Backup.Dir, name+".jsonl"))
	} else {
		r, err = writeBackup(ctx, db, key, withKey, filepath.Join(cfg.Backup.Dir, name+".db"))
	}
	if err != nil {
		return err
	}
	log.Info("backed up", "path", r.Path, "bytes", r.Bytes, "rows", r.Rows)
	return pruneBackups(cfg.Backup.Dir, cfg.Backup.Keep)
}

// backupStamp is the time in a scheduled backup's name: sortable as text.
const backupStamp = "20060102T150405Z"

// pruneBackups deletes all but the newest keep scheduled backups in dir
// (and their keys): memory-STAMP.db, or memory-STAMP.jsonl on PostgreSQL;
// files of other names are left alone.
func pruneBackups(dir string, keep int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		stamp, ok := strings.CutPrefix(e.Name(), "memory-")
		stamp, dotDB := strings.CutSuffix(stamp, ".db")
		if !dotDB {
			stamp, dotDB = strings.CutSuffix(stamp, ".jsonl")
		}
		if !ok || !dotDB || !e.Type().IsRegular() {
			continue
		}
		if _, err := time.Parse(backupStamp, stamp); err == nil {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	var errs []error
	for _, n := range names[:max(len(names)-keep, 0)] {
		p := filepath.Join(dir, n)
		errs = append(errs, os.Remove(p))
		if err := os.Remove(p + backupKeySuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
