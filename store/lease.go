package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// LeaseMaintenance names the lease of maintenance runs (consolidation,
// retention, archival): one at a time in a data directory, whichever process
// starts it.
const LeaseMaintenance = "maintenance"

// Lease is a hold on one of the data directory's exclusive jobs, taken in
// the database so that it holds across processes. Its token is the fence:
// every write of the holder's run checks, in the write's own transaction,
// that the lease still has that token, so a holder that stalled past its
// lease and was taken over cannot write, whatever it believes.
type Lease struct {
	Name       string
	Holder     string // who holds it: a process and run, for the messages of those who wait
	Token      int64  // one more than the previous holder's
	AcquiredAt time.Time
	ExpiresAt  time.Time
}

// LeaseLostError is the error of a write whose lease another holder took
// over (the lease expired first): the run it belongs to must stop. It is an
// ECONFLICT domain error.
type LeaseLostError struct {
	err *memory.Error
}

func (e *LeaseLostError) Error() string { return e.err.Error() }

// Unwrap gives the domain error, so that callers see its code and message.
func (e *LeaseLostError) Unwrap() error { return e.err }

// AcquireLease takes lease name for holder until d from now, when it is
// free: never held, released, or expired (its holder crashed or stalled).
// The lease taken has the next token. When someone holds it, it returns
// their lease and false.
func (tx *Tx) AcquireLease(ctx context.Context, name, holder string, d time.Duration) (Lease, bool, error) {
	if d <= 0 {
		return Lease{}, false, fmt.Errorf("acquire lease %s: duration %s is not positive", name, d)
	}
	now := tx.Now()
	cur, err := tx.lease(ctx, name, true)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Lease{}, false, err
	}
	if err == nil && cur.ExpiresAt.After(now) {
		return cur, false, nil
	}
	l := Lease{Name: name, Holder: holder, Token: cur.Token + 1, AcquiredAt: now, ExpiresAt: now.Add(d)}
	_, err = tx.exec(ctx, `INSERT INTO leases (name, holder, token, acquired_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)
		ON CONFLICT (name) DO UPDATE SET holder = ?2, token = ?3, acquired_at = ?4, expires_at = ?5`,
		name, holder, l.Token, nanos(now), nanos(l.ExpiresAt))
	if err != nil {
		return Lease{}, false, fmt.Errorf("acquire lease %s: %w", name, err)
	}
	return l, true, nil
}

// RenewLease extends l to d from now, if it is still held with l's token
// (expired but not taken over counts as held: nobody else wrote since). It
// returns the lease renewed, or a *LeaseLostError.
func (tx *Tx) RenewLease(ctx context.Context, l Lease, d time.Duration) (Lease, error) {
	if err := tx.CheckLease(ctx, l); err != nil {
		return l, err
	}
	l.ExpiresAt = tx.Now().Add(d)
	if _, err := tx.exec(ctx, `UPDATE leases SET expires_at = ? WHERE name = ? AND token = ?`, nanos(l.ExpiresAt), l.Name, l.Token); err != nil {
		return l, fmt.Errorf("renew lease %s: %w", l.Name, err)
	}
	return l, nil
}

// ReleaseLease frees l now, if it is still held with l's token; a lease
// someone else took over is theirs, and left alone.
func (tx *Tx) ReleaseLease(ctx context.Context, l Lease) error {
	_, err := tx.exec(ctx, `UPDATE leases SET expires_at = ? WHERE name = ? AND token = ? AND expires_at > ?`,
		nanos(tx.Now()), l.Name, l.Token, nanos(tx.Now()))
	if err != nil {
		return fmt.Errorf("release lease %s: %w", l.Name, err)
	}
	return nil
}

// CheckLease is the fence: it fails with a *LeaseLostError unless lease l
// still has l's token. Every write of a leased run calls it in the write's
// transaction, so the check and the write commit together.
func (tx *Tx) CheckLease(ctx context.Context, l Lease) error {
	if l.Token == 0 {
		return fmt.Errorf("a %s write needs the %s lease: acquire it first", l.Name, l.Name)
	}
	cur, err := tx.lease(ctx, l.Name, false)
	if err != nil {
		return fmt.Errorf("check lease %s: %w", l.Name, err)
	}
	if cur.Token == l.Token {
		return nil
	}
	return &LeaseLostError{memory.Errorf(memory.ECONFLICT,
		"this %s run (%s, token %d) held the lease until %s, and %s took it over (token %d) when it expired: the run stopped; what it stored is kept, and a later run does the rest",
		l.Name, l.Holder, l.Token, l.ExpiresAt.Format(time.RFC3339), cur.Holder, cur.Token)}
}

// fence is CheckLease for a write that a leased run may make (Token set)
// and a command may make alone (the zero Lease: nothing to check).
func (tx *Tx) fence(ctx context.Context, l Lease) error {
	if l.Token == 0 {
		return nil
	}
	return tx.CheckLease(ctx, l)
}

// lease reads lease name as it stands (sql.ErrNoRows if never held); with
// take, to take it over.
//
// On PostgreSQL a write transaction reads it under a row lock held until it
// commits (FOR SHARE to check it, FOR UPDATE to take it): a fenced write and
// a takeover of its lease are ordered on the lease's row, so a takeover
// waits for the holder's write in flight, and a write that reads the lease
// after a takeover committed is aborted and run again, reading the new
// token. SQLite's one writer orders them already. Never a session advisory
// lock: it would not hold behind a pooler that hands each transaction
// another connection.
func (tx *Tx) lease(ctx context.Context, name string, take bool) (Lease, error) {
	l := Lease{Name: name}
	var acquired, expires int64
	q := `SELECT holder, token, acquired_at, expires_at FROM leases WHERE name = ?`
	switch {
	case !tx.db.postgres || tx.read:
	case take:
		q += ` FOR UPDATE`
	default:
		q += ` FOR SHARE`
	}
	err := tx.queryRow(ctx, q, name).Scan(&l.Holder, &l.Token, &acquired, &expires)
	if err != nil {
		return Lease{Name: name}, err
	}
	l.AcquiredAt, l.ExpiresAt = fromNanos(acquired), fromNanos(expires)
	return l, nil
}

// FinishRun records that the run holding l finished maintaining agent's
// memories now, which the scheduler of every process reads (MaintainedAgents)
// to run each agent once an interval.
func (tx *Tx) FinishRun(ctx context.Context, l Lease, agent string) error {
	if err := tx.CheckLease(ctx, l); err != nil {
		return err
	}
	_, err := tx.exec(ctx, `INSERT INTO maintenance_runs (agent_id, finished_at, holder, token) VALUES (?1, ?2, ?3, ?4)
		ON CONFLICT (agent_id) DO UPDATE SET finished_at = ?2, holder = ?3, token = ?4`, agent, nanos(tx.Now()), l.Holder, l.Token)
	if err != nil {
		return fmt.Errorf("record the run of %s: %w", agent, err)
	}
	return nil
}

// PersonalAgents lists, by id, the agents that have active personal
// memories; with a non-zero notRunSince, only those whose last finished run
// (FinishRun) was before it, or who were never maintained.
func (tx *Tx) PersonalAgents(ctx context.Context, notRunSince time.Time) ([]string, error) {
	since := int64(math.MaxInt64) // every run finished before it: no condition
	if !notRunSince.IsZero() {
		since = nanos(notRunSince)
	}
	// memory_spaces counts each agent's active memories (kept by triggers),
	// so this reads one row per agent, not every memory.
	agents, err := scanStrings(tx.query(ctx, `SELECT s.agent_id FROM memory_spaces s LEFT JOIN maintenance_runs r ON r.agent_id = s.agent_id
		WHERE s.shared = 0 AND s.rows > 0 AND (r.finished_at IS NULL OR r.finished_at < ?) ORDER BY s.agent_id`, since))
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	return agents, nil
}

// TakeOverLease takes lease from its holder, whatever its expiry, when the
// caller knows that holder is gone (a process on this machine that no
// longer runs): it succeeds only if the lease still has from's token. The
// lease taken has the next token.
func (tx *Tx) TakeOverLease(ctx context.Context, from Lease, holder string, d time.Duration) (Lease, bool, error) {
	now := tx.Now()
	l := Lease{Name: from.Name, Holder: holder, Token: from.Token + 1, AcquiredAt: now, ExpiresAt: now.Add(d)}
	res, err := tx.exec(ctx, `UPDATE leases SET holder = ?, token = ?, acquired_at = ?, expires_at = ? WHERE name = ? AND token = ?`,
		holder, l.Token, nanos(now), nanos(l.ExpiresAt), from.Name, from.Token)
	if err != nil {
		return Lease{}, false, fmt.Errorf("take over lease %s: %w", from.Name, err)
	}
	n, err := res.RowsAffected()
	return l, n == 1, err
}
