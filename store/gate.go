package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/text"
)

// Call is one call of a mutating tool, as the transactions it runs see it.
// The write gates put it in the call's context (WithCall); the first write
// transaction the call commits claims its idempotency key and writes its line
// in the write log, both in that transaction, so that a crash leaves either
// the write with its key and its line or none of them.
type Call struct {
	Principal string // memory.Identity.Principal
	Tool      string
	Key       string // the idempotency key, "" for none
	ArgsHash  string
	KeyTTL    time.Duration
	Started   time.Time
	// Gates is the time spent in each gate; the service adds its own.
	Gates map[string]time.Duration

	// Approval, if set, is what the risk-tier gate asks of the call's
	// first write: to be held for a human's approval instead of applied, or
	// to be applied and queued for review.
	Approval *ApprovalRequest
	// Applies, if set, makes the call the applying of an approved held
	// write: its first write claims the approval, so that a write is
	// applied once, whoever approves it and however often.
	Applies *Verdict
	// Subject, if set, is what the risk-tier gate read of what the call
	// would change (memory.Subject): a write that finds it otherwise in its
	// transaction was classified on a state that is gone, and is refused.
	Subject *memory.Subject
	// Origin, if set, names what a merge import's call brings in (a
	// memory of an export, an item of another tool's file): its first
	// write claims it in import_origins for good, or fails with
	// ErrImported, writing nothing, when an earlier import claimed it.
	Origin string

	// Set by the service inside the transaction: how the write ended.
	Outcome memory.WriteOutcome // "" is stored
	Reason  string              // for a duplicate, the tier that found it
	Ref     string              // the row written or found

	mu        sync.Mutex // held by the transaction that may be the call's first write
	committed bool
	held      bool                 // its first write was held: it writes nothing more
	approval  string               // the approval its first write asked for
	wrote     []memory.LedgerWrite // the ledger events a review of its ledger writes lists
	logID     int64                // the call's line in the write log, once written
}

// Committed reports whether the call's first write transaction committed.
func (c *Call) Committed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.committed
}

// spent adds d to the time spent in gate; c may be nil (no gated call).
func (c *Call) spent(gate string, d time.Duration) {
	if c == nil {
		return
	}
	if c.Gates == nil {
		c.Gates = map[string]time.Duration{}
	}
	c.Gates[gate] += d
}

type callKey struct{}

// WithCall returns ctx carrying c, for the transactions the call runs.
func WithCall(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// WithoutCall returns ctx for bookkeeping a call does besides its write
// (taking or renewing a lease, making default blocks): its transactions
// neither claim the call's key nor write its line.
func WithoutCall(ctx context.Context) context.Context {
	return context.WithValue(ctx, callKey{}, (*Call)(nil))
}

// CallFrom returns the call ctx carries, or nil.
func CallFrom(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// ErrKeyTaken is returned by the first write transaction of a call whose
// idempotency key another call took first (a repeat that raced the first
// call, or one sent while it ran). Nothing was written.
var ErrKeyTaken = memory.Errorf(memory.ECONFLICT, "this idempotency_key was taken by another call while this one ran")

// beginCall readies c for a transaction that may be its first write.
func (c *Call) begin() {
	c.Outcome, c.Reason, c.Ref = "", "", ""
}

// rerun notes what a write transaction may change of c (under c.mu) and
// returns what puts it back: the transaction's deferred undo, when it did
// not commit. PostgreSQL may roll a transaction back and run it again; the
// approval it inserted, the ledger events its review listed, its write log
// line and the Approval lastWrite dropped for a repeat went with it, and the
// run again must not build on them (skip inserting the approval, update a
// row that is gone, list an event twice).
func (c *Call) rerun() (undo func()) {
	approval, wrote, logID := c.Approval, len(c.wrote), c.logID
	id, outcome, reason, ref := c.approval, c.Outcome, c.Reason, c.Ref
	return func() {
		c.Approval, c.wrote, c.logID = approval, c.wrote[:wrote], logID
		c.approval, c.Outcome, c.Reason, c.Ref = id, outcome, reason, ref
	}
}

// claim takes c's idempotency key in tx: a new key, or one that expired.
func (tx *Tx) claim(ctx context.Context, c *Call) error {
	now := tx.Now()
	// Keys that expired go first, a few per claim, so the table holds only
	// what may still be repeated.
	if _, err := tx.exec(ctx, `DELETE FROM idempotency_keys WHERE (principal, key) IN
		(SELECT principal, key FROM idempotency_keys WHERE expires_at <= ? LIMIT 16)`, nanos(now)); err != nil {
		return fmt.Errorf("expire idempotency keys: %w", err)
	}
	res, err := tx.exec(ctx, `INSERT INTO idempotency_keys (principal, key, tool, args_hash, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (principal, key) DO UPDATE SET tool = excluded.tool, args_hash = excluded.args_hash,
			result = NULL, text = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at
		WHERE idempotency_keys.expires_at <= excluded.created_at`,
		c.Principal, c.Key, c.Tool, c.ArgsHash, nanos(now), nanos(now.Add(c.KeyTTL)))
	if err != nil {
		return fmt.Errorf("claim idempotency key: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return ErrKeyTaken
	}
	return nil
}

// writeLogKeep is how long the write log keeps its lines.
const writeLogKeep = 90 * 24 * time.Hour

// logCall writes c's line in the write log, and now and then prunes lines
// older than writeLogKeep.
func (tx *Tx) logCall(ctx context.Context, c *Call, outcome memory.WriteOutcome, gate, reason string) error {
	now := tx.Now()
	// Every 64th line prunes up to 256 old ones: faster than lines come.
	if tx.db.logLines.Add(1)%64 == 1 {
		if _, err := tx.exec(ctx, `DELETE FROM write_log WHERE id IN
			(SELECT id FROM write_log WHERE at < ? ORDER BY at LIMIT 256)`, nanos(now.Add(-writeLogKeep))); err != nil {
			return fmt.Errorf("prune write log: %w", err)
		}
	}
	gates, err := json.Marshal(nanosOf(c.Gates))
	if err != nil {
		return err
	}
	err = tx.queryRow(ctx, `INSERT INTO write_log (at, principal, tool, outcome, gate, reason, ref, latency_ns, gates)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, nanos(now), c.Principal, c.Tool, string(outcome),
		nullString(gate, gate != ""), nullString(reason, reason != ""), nullString(c.Ref, c.Ref != ""),
		int64(now.Sub(c.Started)), string(gates)).Scan(&c.logID)
	if err != nil {
		return fmt.Errorf("write log: %w", err)
	}
	return nil
}

func nanosOf(m map[string]time.Duration) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, d := range m {
		out[k] = int64(d)
	}
	return out
}

// firstWrite runs in the transaction of a call's write before fn: it claims
// the call's key, and the approval it applies. A write to be held runs
// inside a savepoint that lastWrite rolls back: the tool's own checks ran
// in full, and nothing of the write remains.
func (tx *Tx) firstWrite(ctx context.Context, c *Call) error {
	c.begin()
	if c.Key != "" {
		if err := tx.claim(ctx, c); err != nil {
			return err
		}
	}
	if c.Origin != "" {
		if err := tx.claimOrigin(ctx, c); err != nil {
			return err
		}
	}
	if c.Applies != nil {
		if err := tx.claimApproval(ctx, c.Applies); err != nil {
			return err
		}
	}
	if c.holds() {
		if _, err := tx.execOnce(ctx, `SAVEPOINT held_write`); err != nil {
			return fmt.Errorf("hold: %w", err)
		}
	}
	return nil
}

// lastWrite runs in the transaction of a call's first write after fn: it
// writes the call's line in the write log. A write to be held is undone
// here and its approval request written instead; one to be reviewed is
// queued with it.
func (tx *Tx) lastWrite(ctx context.Context, c *Call) error {
	if c.Approval != nil && (c.Outcome == memory.WriteOutcomeDuplicate || c.Outcome == memory.WriteOutcomeUnchanged) {
		// It repeated what is there: nothing for a human to approve or
		// review (a repeat's count stands, as anyone's repeat's would).
		if c.holds() {
			if _, err := tx.execOnce(ctx, `RELEASE held_write`); err != nil {
				return fmt.Errorf("hold: %w", err)
			}
		}
		c.Approval = nil
	}
	if c.holds() {
		if _, err := tx.execOnce(ctx, `ROLLBACK TO held_write; RELEASE held_write`); err != nil {
			return fmt.Errorf("hold: %w", err)
		}
		c.Outcome, c.Reason, c.Ref = memory.WriteOutcomeHeld, "", ""
	}
	if c.reviewsLedger() {
		if err := tx.reviewLedger(ctx, c); err != nil {
			return err
		}
	} else if c.Approval != nil {
		id, err := tx.insertApproval(ctx, c)
		if err != nil {
			return err
		}
		c.approval = id
		if c.holds() {
			c.Ref = id
			return tx.logCall(ctx, c, memory.WriteOutcomeHeld, gateApproval, string(c.Approval.Tier))
		}
	}
	outcome, gate := c.Outcome, ""
	if outcome == "" {
		outcome = memory.WriteOutcomeStored
	}
	if outcome == memory.WriteOutcomeDuplicate || outcome == memory.WriteOutcomeMerged {
		gate = "dedup"
	}
	if c.Key != "" && c.Ref != "" {
		if _, err := tx.exec(ctx, `UPDATE idempotency_keys SET ref = ? WHERE principal = ? AND key = ?`, c.Ref, c.Principal, c.Key); err != nil {
			return err
		}
	}
	return tx.logCall(ctx, c, outcome, gate, c.Reason)
}

// KeyRecord is what the store holds of an idempotency key.
type KeyRecord struct {
	Tool     string
	ArgsHash string
	// Result is nil while the call that took the key has not finished, and
	// when it failed after it wrote (Err).
	Result    []byte
	Text      string
	Err       *memory.Error // the error of a call that failed after it wrote
	Ref       string        // what its first write wrote, when it says
	CreatedAt time.Time
}

// LookupKey returns the live record of principal's key, or ok false.
func (db *DB) LookupKey(ctx context.Context, principal, key string) (rec KeyRecord, ok bool, err error) {
	err = db.View(ctx, func(tx *Tx) error {
		var result, text, code, msg, ref sql.NullString
		var created int64
		err := tx.queryRow(ctx, `SELECT tool, args_hash, result, text, error_code, error_message, ref, created_at FROM idempotency_keys
			WHERE principal = ? AND key = ? AND expires_at > ?`, principal, key, nanos(tx.Now())).
			Scan(&rec.Tool, &rec.ArgsHash, &result, &text, &code, &msg, &ref, &created)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		ok = true
		if result.Valid {
			rec.Result = []byte(result.String)
		}
		if code.Valid {
			rec.Err = &memory.Error{Code: code.String, Message: msg.String}
		}
		rec.Text, rec.Ref, rec.CreatedAt = text.String, ref.String, fromNanos(created)
		return nil
	})
	return rec, ok, err
}

// Ending is how a gated call ended, for FinishCall.
type Ending struct {
	Outcome memory.WriteOutcome // of a call that committed no write: rejected, replayed or unchanged
	Gate    string              // the gate that decided
	Err     error               // the call's error, if it failed
	Result  []byte              // the structured result of a call that succeeded, JSON
	Text    string
}

// FinishCall ends call c in the store. A call that committed a write keeps
// under its key what a repeat is to get: its result, or the error it failed
// with after writing (and its log line says it failed). A call that
// committed nothing writes its log line now and leaves its key free: a
// repeat runs again, which changes nothing the first did not.
func (db *DB) FinishCall(ctx context.Context, c *Call, e Ending) error {
	return db.Update(WithoutCall(ctx), func(tx *Tx) error {
		if !c.Committed() {
			reason := ""
			if e.Err != nil {
				reason = memory.ErrorCode(e.Err)
			}
			return tx.logCall(ctx, c, e.Outcome, e.Gate, reason)
		}
		if e.Outcome == memory.WriteOutcomeHeld {
			// The line says held already; a repeat gets the held answer
			// until a decision replaces it, for as long as it may come.
			if c.Key == "" {
				return nil
			}
			_, err := tx.exec(ctx, `UPDATE idempotency_keys SET error_code = ?, error_message = ?, expires_at = max(expires_at, ?)
				WHERE principal = ? AND key = ? AND args_hash = ?`,
				memory.ErrorCode(e.Err), memory.ErrorMessage(e.Err), nanos(c.Approval.Expires.Add(c.KeyTTL)), c.Principal, c.Key, c.ArgsHash)
			return err
		}
		if e.Err != nil {
			public, _ := memory.Public(e.Err)
			if _, err := tx.exec(ctx, `UPDATE write_log SET outcome = 'rejected', gate = ?, reason = ? WHERE id = ?`,
				e.Gate, public.Code, c.logID); err != nil {
				return err
			}
			if c.Key == "" {
				return nil
			}
			_, err := tx.exec(ctx, `UPDATE idempotency_keys SET error_code = ?, error_message = ?
				WHERE principal = ? AND key = ? AND args_hash = ? AND result IS NULL`,
				public.Code, public.Message, c.Principal, c.Key, c.ArgsHash)
			return err
		}
		if c.Key == "" {
			return nil
		}
		// A call that committed but whose result cannot be encoded leaves
		// the key without one: a repeat is told the write committed.
		_, err := tx.exec(ctx, `UPDATE idempotency_keys SET result = ?, text = ?
			WHERE principal = ? AND key = ? AND args_hash = ? AND result IS NULL`,
			nullString(string(e.Result), e.Result != nil), e.Text, c.Principal, c.Key, c.ArgsHash)
		return err
	})
}

// WriteLog returns the write log's lines at or after since, oldest first:
// every caller's, or with principal only that caller's.
func (db *DB) WriteLog(ctx context.Context, since time.Time, principal string) ([]memory.WriteRecord, error) {
	var out []memory.WriteRecord
	err := db.View(ctx, func(tx *Tx) error {
		q, args := `SELECT at, principal, tool, outcome, gate, reason, ref, latency_ns, gates
			FROM write_log WHERE at >= ? ORDER BY at`, []any{nanos(since)}
		if principal != "" {
			q, args = `SELECT at, principal, tool, outcome, gate, reason, ref, latency_ns, gates
			FROM write_log WHERE principal = ? AND at >= ? ORDER BY at`, []any{principal, nanos(since)}
		}
		var err error
		out, err = scanWriteLog(tx.query(ctx, q, args...))
		return err
	})
	return out, err
}

// scanWriteLog reads write log lines selected as WriteLog selects them.
func scanWriteLog(rows *sql.Rows, err error) ([]memory.WriteRecord, error) {
	if err != nil {
		return nil, fmt.Errorf("read write log: %w", err)
	}
	defer rows.Close()
	var out []memory.WriteRecord
	for rows.Next() {
		var r memory.WriteRecord
		var at, latency int64
		var gate, reason, ref, gates sql.NullString
		if err := rows.Scan(&at, &r.Principal, &r.Tool, &r.Outcome, &gate, &reason, &ref, &latency, &gates); err != nil {
			return nil, err
		}
		r.At, r.Gate, r.Reason, r.Ref, r.Latency = fromNanos(at), gate.String, reason.String, ref.String, time.Duration(latency)
		var ns map[string]int64
		if gates.Valid && json.Unmarshal([]byte(gates.String), &ns) == nil {
			r.Gates = make(map[string]time.Duration, len(ns))
			for k, v := range ns {
				r.Gates[k] = time.Duration(v)
			}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// fillDedupKeys gives the memories written before the dedup keys existed
// their keys, so that a repeat of one of them is found.
func fillDedupKeys(ctx context.Context, tx *Tx) error {
	type row struct {
		pk      int64
		content string
	}
	todo, err := collect(ctx, tx, `SELECT pk, content FROM memories WHERE exact_key IS NULL`, func(rows *sql.Rows, r *row) error {
		return rows.Scan(&r.pk, &r.content)
	})
	if err != nil {
		return err
	}
	for _, r := range todo {
		exact, words := text.DedupKeys(r.content)
		if _, err := tx.execOnce(ctx, `UPDATE memories SET exact_key = ?, words_key = ? WHERE pk = ?`, exact, words, r.pk); err != nil {
			return err
		}
	}
	return nil
}
