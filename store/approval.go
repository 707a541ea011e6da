package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// ApprovalRequest is what the risk-tier gate asks of a call's first write
// (Call.Approval).
type ApprovalRequest struct {
	Kind    memory.ApprovalKind // hold: undo the write and ask; review: keep it and ask
	Tier    memory.RiskTier
	Rule    string
	Caller  memory.Identity
	Args    []byte    // the call's arguments without its key, canonical JSON
	Expires time.Time // a hold's deadline
	// OnLedger: a review of what the call commits to the shared state's
	// ledger. It is queued with the first event the call appends, in that
	// transaction, and lists every event the call appends (Wrote); a call
	// that appends none (its notes ignored, or waiting in the pending
	// queue; nothing to promote) leaves nothing for a human to review.
	OnLedger bool
}

// Verdict is a human's decision on an approval request.
type Verdict struct {
	ID      string
	By      string // the deciding human's principal
	Approve bool
	Reason  string
}

// ErrHeld is returned by a held call's first write, which committed only
// its approval request, and by every later write of the call.
var ErrHeld = memory.Errorf(memory.EHELD, "this write is held for a human's approval and was not applied")

// ErrDecided is returned by the first write of an approved held write when
// the approval was decided meanwhile (another human approved it first): the
// write was not applied again.
var ErrDecided = errors.New("approval decided meanwhile")

// gateApproval is the write log's name of the risk-tier gate.
const gateApproval = "approval"

// holds reports whether c's first write is to be held.
func (c *Call) holds() bool { return c.Approval != nil && c.Approval.Kind == memory.ApprovalHold }

// Held returns the id of the approval request c's first write asked for,
// and whether that write was held (not applied).
func (c *Call) Held() (approval string, held bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.approval, c.held
}

// Queued returns the id of the review c's write was queued for, or "".
func (c *Call) Queued() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held || c.Approval == nil {
		return ""
	}
	return c.approval
}

// reviewsLedger reports whether c's review is of the ledger events it
// commits (ApprovalRequest.OnLedger).
func (c *Call) reviewsLedger() bool {
	return c.Approval != nil && c.Approval.Kind == memory.ApprovalReview && c.Approval.OnLedger
}

// reviewLedger queues c's review with the ledger events tx appended, or
// adds them to the review an earlier write of the call queued. A
// transaction that appended none queues nothing.
func (tx *Tx) reviewLedger(ctx context.Context, c *Call) error {
	if len(tx.events) == 0 {
		return nil
	}
	for _, ev := range tx.events {
		c.wrote = append(c.wrote, memory.LedgerWrite{Seq: ev.Seq, Bucket: ev.Bucket, Operation: ev.Operation, TargetID: ev.TargetID, RawInput: ev.RawInput})
	}
	wrote, err := json.Marshal(c.wrote)
	if err != nil {
		return err
	}
	if c.approval == "" {
		ref := c.Ref
		c.Ref = tx.events[0].EventID
		id, err := tx.insertApproval(ctx, c)
		c.Ref = ref
		if err != nil {
			return err
		}
		c.approval = id
	}
	if _, err := tx.exec(ctx, `UPDATE approvals SET wrote = ? WHERE id = ?`, string(wrote), c.approval); err != nil {
		return fmt.Errorf("review what the call wrote: %w", err)
	}
	return nil
}

// insertApproval writes c's approval request and returns its id.
func (tx *Tx) insertApproval(ctx context.Context, c *Call) (string, error) {
	a := c.Approval
	who, err := json.Marshal(a.Caller)
	if err != nil {
		return "", err
	}
	var b [6]byte
	rand.Read(b[:])
	id := "apr-" + hex.EncodeToString(b[:])
	var expires sql.NullInt64
	if a.Kind == memory.ApprovalHold {
		expires = nullTime(a.Expires)
	}
	_, err = tx.exec(ctx, `INSERT INTO approvals (id, kind, tier, rule, principal, identity, tool, args, idempotency_key,
		status, created_at, expires_at, ref) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
		id, string(a.Kind), string(a.Tier), a.Rule, c.Principal, string(who), c.Tool, string(a.Args),
		nullString(c.Key, c.Key != ""), nanos(tx.Now()), expires, nullString(c.Ref, c.Ref != ""))
	if err != nil {
		return "", fmt.Errorf("insert approval: %w", err)
	}
	return id, nil
}

// claimApproval marks the held write v approves as approved, in the
// transaction that applies it; ErrDecided if it is no longer pending.
func (tx *Tx) claimApproval(ctx context.Context, v *Verdict) error {
	res, err := tx.exec(ctx, `UPDATE approvals SET status = 'approved', decided_by = ?, decided_at = ?, reason = ?
		WHERE id = ? AND kind = 'hold' AND status = 'pending' AND expires_at > ?`,
		v.By, nanos(tx.Now()), v.Reason, v.ID, nanos(tx.Now()))
	if err != nil {
		return fmt.Errorf("claim approval: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return ErrDecided
	}
	return nil
}

const approvalColumns = `id, kind, tier, rule, identity, tool, args, idempotency_key, status, created_at, expires_at,
	decided_by, decided_at, reason, ref, error_code, error_message, wrote`

// scanApproval reads a row of approvalColumns; a pending hold past its
// deadline reads as expired, whether or not it was marked yet.
func scanApproval(row interface{ Scan(...any) error }, now time.Time) (memory.Approval, error) {
	var a memory.Approval
	var who, args string
	var key, by, reason, ref, code, msg, wrote sql.NullString
	var created int64
	var expires, decided sql.NullInt64
	err := row.Scan(&a.ID, &a.Kind, &a.Tier, &a.Rule, &who, &a.Tool, &args, &key, &a.Status, &created, &expires,
		&by, &decided, &reason, &ref, &code, &msg, &wrote)
	if err != nil {
		return a, err
	}
	if err := json.Unmarshal([]byte(who), &a.Caller); err != nil {
		return a, fmt.Errorf("approval %s: identity: %w", a.ID, err)
	}
	a.Arguments, a.IdempotencyKey, a.CreatedAt = args, key.String, fromNanos(created)
	a.DecidedBy, a.Reason, a.Ref = by.String, reason.String, ref.String
	if wrote.Valid {
		if err := json.Unmarshal([]byte(wrote.String), &a.Wrote); err != nil {
			return a, fmt.Errorf("approval %s: wrote: %w", a.ID, err)
		}
	}
	if expires.Valid {
		t := fromNanos(expires.Int64)
		a.ExpiresAt = &t
		if a.Status == memory.ApprovalPending && !now.Before(t) {
			a.Status = memory.ApprovalExpired
			code, msg = sql.NullString{String: memory.ECONFLICT, Valid: true}, sql.NullString{String: expiredMessage(a), Valid: true}
		}
	}
	if decided.Valid {
		t := fromNanos(decided.Int64)
		a.DecidedAt = &t
	}
	if code.Valid {
		a.Error = code.String + ": " + msg.String
	}
	return a, nil
}

func expiredMessage(a memory.Approval) string {
	return fmt.Sprintf("approval %s expired at %s with no human's decision: the %s call was never applied; make it again if it is still wanted",
		a.ID, a.ExpiresAt.Format(time.RFC3339), a.Tool)
}

// Approval returns approval request id; ENOTFOUND if there is none.
func (db *DB) Approval(ctx context.Context, id string) (memory.Approval, error) {
	var a memory.Approval
	err := db.View(ctx, func(tx *Tx) error {
		var err error
		a, err = tx.approval(ctx, id)
		return err
	})
	return a, err
}

func (tx *Tx) approval(ctx context.Context, id string) (memory.Approval, error) {
	a, err := scanApproval(tx.queryRow(ctx, `SELECT `+approvalColumns+` FROM approvals WHERE id = ?`, id), tx.Now())
	if errors.Is(err, sql.ErrNoRows) {
		return a, memory.Errorf(memory.ENOTFOUND, "no approval request %s: list_reviews shows the ids", id)
	}
	return a, err
}

// Approvals returns approval requests newest first: every caller's, or with
// principal only that caller's; f.Status "" for every status.
func (db *DB) Approvals(ctx context.Context, principal string, f memory.ApprovalFilter) ([]memory.Approval, error) {
	out := []memory.Approval{}
	err := db.View(ctx, func(tx *Tx) error {
		now := nanos(tx.Now())
		var where []string
		var args []any
		if principal != "" {
			where, args = append(where, `principal = ?`), append(args, principal)
		}
		if f.AgentID != "" {
			where, args = append(where, `principal IN (?, ?)`), append(args, "agent:"+f.AgentID, "human:"+f.AgentID)
		}
		for col, v := range map[string]string{"rule": f.Rule, "tool": f.Tool} {
			if v != "" {
				where, args = append(where, col+` = ?`), append(args, v)
			}
		}
		if !f.Before.IsZero() {
			where, args = append(where, `created_at < ?`), append(args, nanos(f.Before))
		}
		switch f.Status {
		case "":
		case memory.ApprovalPending:
			where, args = append(where, `status = 'pending' AND (expires_at IS NULL OR expires_at > ?)`), append(args, now)
		case memory.ApprovalExpired:
			where, args = append(where, `(status = 'expired' OR status = 'pending' AND expires_at <= ?)`), append(args, now)
		default:
			where, args = append(where, `status = ?`), append(args, string(f.Status))
		}
		q := `SELECT ` + approvalColumns + ` FROM approvals`
		if len(where) > 0 {
			q += ` WHERE ` + strings.Join(where, ` AND `)
		}
		order := ` ORDER BY created_at DESC, id`
		if f.ExpiringFirst {
			order = ` ORDER BY expires_at IS NULL, expires_at, created_at, id`
		}
		rows, err := tx.query(ctx, q+order+` LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			a, err := scanApproval(rows, tx.Now())
			if err != nil {
				return err
			}
			out = append(out, a)
		}
		return rows.Err()
	})
	return out, err
}

// ExpireApprovals marks the holds past their deadline expired, tells a
// repeat of each call so under its key, and writes each caller a log line:
// the write was refused by the approval gate. It returns how many expired.
func (db *DB) ExpireApprovals(ctx context.Context) (int, error) {
	n := 0
	err := db.Update(WithoutCall(ctx), func(tx *Tx) error {
		rows, err := tx.query(ctx, `SELECT `+approvalColumns+` FROM approvals
			WHERE status = 'pending' AND kind = 'hold' AND expires_at <= ? ORDER BY expires_at LIMIT 256`, nanos(tx.Now()))
		if err != nil {
			return err
		}
		var due []memory.Approval
		for rows.Next() {
			a, err := scanApproval(rows, tx.Now())
			if err != nil {
				rows.Close()
				return err
			}
			due = append(due, a)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return err
		}
		for _, a := range due {
			e := memory.Errorf(memory.ECONFLICT, "%s", expiredMessage(a))
			if _, err := tx.exec(ctx, `UPDATE approvals SET status = 'expired', error_code = ?, error_message = ? WHERE id = ?`,
				e.Code, e.Message, a.ID); err != nil {
				return err
			}
			if err := tx.closeHeld(ctx, a, e); err != nil {
				return err
			}
		}
		n = len(due)
		return nil
	})
	return n, err
}

// closeHeld ends held call a that will never be applied: a repeat of its key
// gets err, and its caller's log has a line saying the approval gate refused
// it with err's code.
func (tx *Tx) closeHeld(ctx context.Context, a memory.Approval, err *memory.Error) error {
	if a.IdempotencyKey != "" {
		if _, e := tx.exec(ctx, `UPDATE idempotency_keys SET error_code = ?, error_message = ?, result = NULL
			WHERE principal = ? AND key = ?`, err.Code, err.Message, a.Caller.Principal(), a.IdempotencyKey); e != nil {
			return e
		}
	}
	c := &Call{Principal: a.Caller.Principal(), Tool: a.Tool, Started: tx.Now(), Ref: a.ID}
	return tx.logCall(ctx, c, memory.WriteOutcomeRejected, gateApproval, err.Code)
}

// decidedError says that approval a was decided already, and how.
func decidedError(a memory.Approval) error {
	if a.Status == memory.ApprovalExpired {
		return memory.Errorf(memory.ECONFLICT, "%s", expiredMessage(a))
	}
	when := ""
	if a.DecidedAt != nil {
		when = " at " + a.DecidedAt.Format(time.RFC3339)
	}
	return memory.Errorf(memory.ECONFLICT, "approval %s was already decided: %s by %s%s (reason: %q); a request is decided once",
		a.ID, a.Status, a.DecidedBy, when, a.Reason)
}

// RecordVerdict records verdict v on a request that applies nothing: a
// review's verdict (the write stays as it is), or the rejection of a hold
// (which is then never applied: a repeat of its call is told so). It runs
// in the deciding call's context, so it is that call's write. A request
// decided already, or a hold past its deadline, is ECONFLICT.
func (db *DB) RecordVerdict(ctx context.Context, v Verdict) (memory.Approval, error) {
	var a memory.Approval
	err := db.Update(ctx, func(tx *Tx) error {
		var err error
		if a, err = tx.approval(ctx, v.ID); err != nil {
			return err
		}
		if a.Status != memory.ApprovalPending {
			return decidedError(a)
		}
		status, now := memory.ApprovalRejected, tx.Now()
		if v.Approve {
			status = memory.ApprovalApproved
		}
		var e *memory.Error
		if a.Kind == memory.ApprovalHold {
			if v.Approve {
				return fmt.Errorf("approval %s: a hold is approved by applying it", v.ID)
			}
			e = memory.Errorf(memory.EFORBIDDEN, "approval %s: %s rejected this %s call (reason: %q); it was never applied",
				a.ID, v.By, a.Tool, v.Reason)
		}
		var code, msg sql.NullString
		if e != nil {
			code, msg = nullString(e.Code, true), nullString(e.Message, true)
		}
		if _, err := tx.exec(ctx, `UPDATE approvals SET status = ?, decided_by = ?, decided_at = ?, reason = ?,
			error_code = ?, error_message = ? WHERE id = ?`, string(status), v.By, nanos(now), v.Reason, code, msg, a.ID); err != nil {
			return err
		}
		if e != nil {
			if err := tx.closeHeld(ctx, a, e); err != nil {
				return err
			}
		}
		a, err = tx.approval(ctx, v.ID)
		return err
	})
	return a, err
}

// Applied is how the applying of an approved held write ended.
type Applied struct {
	Committed bool   // its first write committed (and claimed the approval)
	Ref       string // what it wrote
	Result    []byte // its structured result, JSON, when it succeeded
	Text      string
	Err       error // its error, when it failed
}

// RecordApplied records how approved held write id ended when applied by
// human by with reason: what it wrote, or the error it failed with, which a
// repeat of its call then gets. A write that failed before it committed
// anything leaves the request failed; one that committed claimed the
// request as approved already. It runs in the deciding call's context.
func (db *DB) RecordApplied(ctx context.Context, id, by, reason string, o Applied) (memory.Approval, error) {
	var a memory.Approval
	err := db.Update(ctx, func(tx *Tx) error {
		var err error
		if a, err = tx.approval(ctx, id); err != nil {
			return err
		}
		var code, msg sql.NullString
		if o.Err != nil {
			public, _ := memory.Public(o.Err)
			code, msg = nullString(public.Code, true), nullString(public.Message, true)
		}
		if !o.Committed {
			status := memory.ApprovalApproved // it succeeded without writing
			if o.Err != nil {
				status = memory.ApprovalFailed
			}
			res, err := tx.exec(ctx, `UPDATE approvals SET status = ?, decided_by = ?, decided_at = ?, reason = ?
				WHERE id = ? AND status = 'pending'`, string(status), by, nanos(tx.Now()), reason, id)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				return decidedError(a)
			}
		}
		if _, err := tx.exec(ctx, `UPDATE approvals SET ref = ?, error_code = ?, error_message = ? WHERE id = ?`,
			nullString(o.Ref, o.Ref != ""), code, msg, id); err != nil {
			return err
		}
		if a.IdempotencyKey != "" {
			if _, err := tx.exec(ctx, `UPDATE idempotency_keys SET result = ?, text = ?, error_code = ?, error_message = ?, ref = ?
				WHERE principal = ? AND key = ?`, nullString(string(o.Result), o.Result != nil), o.Text, code, msg,
				nullString(o.Ref, o.Ref != ""), a.Caller.Principal(), a.IdempotencyKey); err != nil {
				return err
			}
		}
		a, err = tx.approval(ctx, id)
		return err
	})
	return a, err
}

// SetApprovalRef records what the write under review id wrote.
func (db *DB) SetApprovalRef(ctx context.Context, id, ref string) error {
	return db.Update(WithoutCall(ctx), func(tx *Tx) error {
		_, err := tx.exec(ctx, `UPDATE approvals SET ref = ? WHERE id = ? AND ref IS NULL`, ref, id)
		return err
	})
}
