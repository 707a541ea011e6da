package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Counter is one of a caller's write-gate counters kept in the database: a
// rate limit's token bucket, or a write budget's count. The gates decide
// what the value means; the store keeps it where every process on the
// database sees it.
type Counter struct {
	Name    string
	Value   float64
	At      time.Time // when Value was last brought up to date; zero for a counter never kept
	Expires time.Time // when the counter no longer matters and may be deleted
}

// countersPruned is how many expired counters one admission deletes, now
// and then (see Counters): far more than admissions make.
const countersPruned = 64

// Counters runs fn over principal's counters named names (in that order;
// one never kept, or expired, has a zero At and Value) in one write
// transaction, and keeps them as fn leaves them. When fn fails nothing is
// kept and its error is returned. Two processes counting for one caller at
// once are ordered by the counters' row locks, so no admission is lost
// between nodes.
func (db *DB) Counters(ctx context.Context, principal string, names []string, fn func([]Counter) error) error {
	if len(names) == 0 {
		return fn(nil)
	}
	return db.counting(WithoutCall(ctx), func(tx *Tx) error {
		now := tx.Now()
		if db.counted.Add(1)%countersPruned == 1 {
			if _, err := tx.exec(ctx, `DELETE FROM gate_counters WHERE (principal, name) IN
				(SELECT principal, name FROM gate_counters WHERE expires_at <= ? LIMIT ?)`, nanos(now), countersPruned); err != nil {
				return fmt.Errorf("prune gate counters: %w", err)
			}
		}
		cs, err := tx.counters(ctx, principal, names, now)
		if err != nil {
			return err
		}
		if err := fn(cs); err != nil {
			return err
		}
		return tx.keepCounters(ctx, principal, cs)
	})
}

// counting runs fn in a write transaction for Counters. SQLite's writers
// take turns already. On PostgreSQL a serializable transaction fails
// whenever another admission of the same caller commits first, and a busy
// caller's admissions (32 clients on one token) spend their time running
// again: measured (BenchmarkAdmitOneCaller, three nodes), 640 admissions
// 32 at a time took 1.8 to 2.0 s so, and 0.6 to 0.8 s reading committed
// rows under row locks instead (see counters), as here: each admission
// waits for the one before it on the same caller, then reads what it left.
func (db *DB) counting(ctx context.Context, fn func(tx *Tx) error) error {
	if !db.postgres {
		return db.Update(ctx, fn)
	}
	err := db.readCommitted(ctx, fn)
	for try := 1; (retryable(err) || uniqueViolation(err)) && try < serializationRetries; try++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(retryWait(try)):
		}
		err = db.readCommitted(ctx, fn)
	}
	return db.busyError(err)
}

// readCommitted runs fn in one PostgreSQL transaction at read committed,
// each statement seeing what committed before it.
func (db *DB) readCommitted(ctx context.Context, fn func(tx *Tx) error) error {
	t, err := db.sql.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer t.Rollback()
	if err := fn(&Tx{sql: t, db: db}); err != nil {
		return err
	}
	if err := t.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// counters reads principal's counters named names as Counters gives them
// to its fn, holding their rows. A counter with no row gets one first
// (with at 0, read as never kept, until fn keeps it), so that two
// admissions of a new caller lock the same rows rather than each insert
// its own; a caller's later admissions find their rows at once.
func (tx *Tx) counters(ctx context.Context, principal string, names []string, now time.Time) ([]Counter, error) {
	cs, rows, err := tx.lockCounters(ctx, principal, names, now)
	if err != nil || rows == len(names) {
		return cs, err
	}
	var values []string
	args := []any{}
	for _, n := range names {
		values = append(values, "(?, ?, 0, 0, ?)")
		args = append(args, principal, n, nanos(now.Add(time.Minute)))
	}
	if _, err := tx.exec(ctx, `INSERT INTO gate_counters (principal, name, value, at, expires_at) VALUES `+strings.Join(values, ", ")+`
		ON CONFLICT (principal, name) DO NOTHING`, args...); err != nil {
		return nil, fmt.Errorf("make gate counters: %w", err)
	}
	cs, _, err = tx.lockCounters(ctx, principal, names, now)
	return cs, err
}

// lockCounters reads (on PostgreSQL, locking) the rows of principal's
// counters named names, and returns the counters and how many rows it
// found.
func (tx *Tx) lockCounters(ctx context.Context, principal string, names []string, now time.Time) ([]Counter, int, error) {
	cs := make([]Counter, len(names))
	args := []any{principal}
	for i, n := range names {
		cs[i].Name = n
		args = append(args, n)
	}
	q := `SELECT name, value, at, expires_at FROM gate_counters WHERE principal = ? AND name IN (?` +
		strings.Repeat(", ?", len(names)-1) + `)`
	if tx.db.postgres {
		q += ` ORDER BY name FOR UPDATE` // in one order, so that two admissions never wait on each other
	}
	got, err := tx.query(ctx, q, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("read gate counters: %w", err)
	}
	defer got.Close()
	found := 0
	for got.Next() {
		var name string
		var value float64
		var at, expires int64
		if err := got.Scan(&name, &value, &at, &expires); err != nil {
			return nil, 0, err
		}
		found++
		if at == 0 || expires <= nanos(now) {
			continue // never kept, or no longer of use: as if there were none
		}
		for i := range cs {
			if cs[i].Name == name {
				cs[i].Value, cs[i].At, cs[i].Expires = value, fromNanos(at), fromNanos(expires)
			}
		}
	}
	return cs, found, got.Err()
}

// keepCounters writes principal's counters cs but those never kept (a zero
// At), in one statement: one round trip to a server, however many.
func (tx *Tx) keepCounters(ctx context.Context, principal string, cs []Counter) error {
	var rows []string
	var args []any
	for _, c := range cs {
		if c.At.IsZero() {
			continue
		}
		rows = append(rows, "(?, ?, ?, ?, ?)")
		args = append(args, principal, c.Name, c.Value, nanos(c.At), nanos(c.Expires))
	}
	if len(rows) == 0 {
		return nil
	}
	_, err := tx.exec(ctx, `INSERT INTO gate_counters (principal, name, value, at, expires_at) VALUES `+strings.Join(rows, ", ")+`
		ON CONFLICT (principal, name) DO UPDATE SET value = excluded.value, at = excluded.at, expires_at = excluded.expires_at`, args...)
	if err != nil {
		return fmt.Errorf("keep gate counters: %w", err)
	}
	return nil
}
