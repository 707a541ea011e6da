package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// A scrub is owed from the commit of an erase or gc that removed rows
// until a scrub completes: the erase's (or gc batch's) own transaction
// writes the one row of scrub_owed (migration 0019), and only ScrubOwed,
// once the file is rewritten and the log emptied, deletes it. A scrub that
// failed, because another process kept reading or because the process died
// between the commit and the scrub, is thus retried by the next erase, gc
// or server start, whether or not that one removes anything.

// ScrubDebt is a scrub owed.
type ScrubDebt struct {
	// Erasure is the newest audit row (erase or gc) whose removed bytes
	// may still be in the files.
	Erasure int64
	// Since is when the oldest erase or gc not yet scrubbed committed.
	Since time.Time
}

// oweScrub records in an erasure's transaction that the rows it removed
// leave bytes in the files until a scrub completes.
func (tx *Tx) oweScrub(ctx context.Context, erasure int64, at time.Time) error {
	if _, err := tx.execOnce(ctx, `INSERT INTO scrub_owed (one, erasure, since) VALUES (1, ?, ?)
		ON CONFLICT (one) DO UPDATE SET erasure = max(scrub_owed.erasure, excluded.erasure)`, erasure, nanos(at)); err != nil {
		return fmt.Errorf("record the scrub owed: %w", err)
	}
	return nil
}

// OwedScrub returns the scrub owed, or ok false when none is.
func (db *DB) OwedScrub(ctx context.Context) (d ScrubDebt, ok bool, err error) {
	err = db.View(WithoutCall(ctx), func(tx *Tx) error {
		var since int64
		err := tx.queryRow(ctx, `SELECT erasure, since FROM scrub_owed`).Scan(&d.Erasure, &since)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the scrub owed: %w", err)
		}
		d.Since, ok = fromNanos(since), true
		return nil
	})
	return d, ok, err
}

// ScrubOwed scrubs when a scrub is owed, and clears the debt once the
// scrub completed. It reports whether it scrubbed, and whether a scrub is
// still owed after it (it failed, or another erase committed meanwhile).
// An erase, a gc and the server's start call it, whatever they removed.
func (db *DB) ScrubOwed(ctx context.Context) (scrubbed, owed bool, err error) {
	debt, owed, err := db.OwedScrub(ctx)
	if err != nil || !owed {
		return false, owed, err
	}
	if scrubbed, err = db.scrub(ctx); err != nil || !scrubbed {
		return false, true, err
	}
	// Only the debt read before the rewrite is paid: an erase that
	// committed since may have committed after it.
	err = db.Update(WithoutCall(ctx), func(tx *Tx) error {
		_, err := tx.execOnce(ctx, `DELETE FROM scrub_owed WHERE erasure = ?`, debt.Erasure)
		return err
	})
	if err != nil {
		return true, true, fmt.Errorf("clear the scrub owed: %w", err)
	}
	// The delete's frames hold the debt's page alone, no erased byte; the
	// log is cut again all the same, and a reader in the way is harmless.
	if _, err := db.checkpoint(ctx); err != nil {
		return true, false, err
	}
	_, owed, err = db.OwedScrub(ctx)
	return true, owed, err
}

// scrub rewrites the database file and empties its write-ahead log, after
// an erase or gc committed: deleted rows leave their bytes in free pages,
// in the free space of the pages they were on (from every earlier update
// too) and in the log's frames until those are overwritten. VACUUM writes
// every page afresh (the new file's free space is zeros) and a TRUNCATE
// checkpoint copies it into the file and cuts the log to nothing. It
// reports false when another connection's reads kept the log from being
// emptied within the busy timeout; the scrub stays owed. PostgreSQL's
// scrub is its own (scrubPostgres).
func (db *DB) scrub(ctx context.Context) (bool, error) {
	if db.postgres {
		return db.scrubPostgres(ctx)
	}
	if _, err := db.sql.ExecContext(ctx, `VACUUM`); err != nil {
		return false, db.busyError(fmt.Errorf("vacuum: %w", err))
	}
	return db.checkpoint(ctx)
}

// checkpoint copies the write-ahead log into the database file and cuts
// the log to nothing; false when another connection's reads kept it from
// finishing within the busy timeout.
func (db *DB) checkpoint(ctx context.Context) (bool, error) {
	if db.postgres { // the scrub has nothing left to copy: see scrubPostgres
		return true, nil
	}
	var busy, frames, done int
	if err := db.sql.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done); err != nil {
		return false, db.busyError(fmt.Errorf("checkpoint: %w", err))
	}
	return busy == 0, nil
}
