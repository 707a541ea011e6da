package store

import (
	"context"
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
// once are ordered by the transaction (SQLite's one writer; PostgreSQL's
// serializable isolation, which runs the loser again), so no admission is
// lost between nodes.
func (db *DB) Counters(ctx context.Context, principal string, names []string, fn func([]Counter) error) error {
	if len(names) == 0 {
		return fn(nil)
	}
	return db.Update(WithoutCall(ctx), func(tx *Tx) error {
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

// counters reads principal's counters named names as Counters gives them
// to its fn.
func (tx *Tx) counters(ctx context.Context, principal string, names []string, now time.Time) ([]Counter, error) {
	cs := make([]Counter, len(names))
	for i, n := range names {
		cs[i].Name = n
	}
	q := `SELECT name, value, at, expires_at FROM gate_counters WHERE principal = ? AND expires_at > ? AND name IN (?` +
		strings.Repeat(", ?", len(names)-1) + `)`
	args := []any{principal, nanos(now)}
	for _, n := range names {
		args = append(args, n)
	}
	rows, err := tx.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read gate counters: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var value float64
		var at, expires int64
		if err := rows.Scan(&name, &value, &at, &expires); err != nil {
			return nil, err
		}
		for i := range cs {
			if cs[i].Name == name {
				cs[i].Value, cs[i].At, cs[i].Expires = value, fromNanos(at), fromNanos(expires)
			}
		}
	}
	return cs, rows.Err()
}
