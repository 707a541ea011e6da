package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
)

// InsertPending adds p to the pending queue and sets its id.
func (tx *Tx) InsertPending(ctx context.Context, p *memory.PendingItem) error {
	req, err := json.Marshal(p.Request)
	if err != nil {
		return err
	}
	cands, err := json.Marshal(nonNil(p.Candidates))
	if err != nil {
		return err
	}
	kind := p.Kind
	if kind == "" {
		kind = memory.NoteAgent
	}
	err = tx.queryRowOnce(ctx, `INSERT INTO pending_memory_events
		(bucket, note_kind, request_json, fingerprint, raw_input, note_id, agent_id, autonomy, run_id, interpreter, reason, candidates_json,
		 attempts, stale, status, note_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?) RETURNING pending_id`,
		p.Request.Bucket, kind, string(req), p.Request.Fingerprint(), p.RawInput, sql.NullInt64{Int64: p.NoteID, Valid: p.NoteID != 0},
		p.Agent, autonomyArg(p.Autonomy), p.Run, p.Interpreter, p.Reason, string(cands), p.Attempts, p.Stale,
		nanos(p.NoteAt), nanos(p.CreatedAt), nanos(p.UpdatedAt)).Scan(&p.ID)
	if err != nil {
		return fmt.Errorf("insert pending: %w", err)
	}
	p.Status = memory.PendingOpen
	return tx.RecordChange(ctx, memory.ChangePending, memory.IDRef(p.ID), p.UpdatedAt)
}

// UpdatePending stores p's reason, candidates, attempts, stale flag, status
// and resolution.
func (tx *Tx) UpdatePending(ctx context.Context, p *memory.PendingItem) error {
	cands, err := json.Marshal(nonNil(p.Candidates))
	if err != nil {
		return err
	}
	var res sql.NullString
	if p.Resolution != nil {
		b, err := json.Marshal(p.Resolution)
		if err != nil {
			return err
		}
		res = sql.NullString{String: string(b), Valid: true}
	}
	_, err = tx.execOnce(ctx, `UPDATE pending_memory_events SET reason = ?, candidates_json = ?, attempts = ?, stale = ?,
		status = ?, updated_at = ?, resolution_json = ? WHERE pending_id = ?`,
		p.Reason, string(cands), p.Attempts, p.Stale, p.Status, nanos(p.UpdatedAt), res, p.ID)
	if err != nil {
		return fmt.Errorf("update pending %d: %w", p.ID, err)
	}
	return tx.RecordChange(ctx, memory.ChangePending, memory.IDRef(p.ID), p.UpdatedAt)
}

// OpenPendingWith returns the id of an open pending item with fingerprint
// (see memory.WriteRequest.Fingerprint), or 0.
func (tx *Tx) OpenPendingWith(ctx context.Context, fingerprint string) (int64, error) {
	var id int64
	err := tx.queryRowOnce(ctx, `SELECT coalesce(min(pending_id), 0) FROM pending_memory_events
		WHERE fingerprint = ? AND status = 'open'`, fingerprint).Scan(&id)
	return id, err
}

// RetryablePending returns up to limit open items of bucket that are not
// stale, least tried first, then oldest.
func (tx *Tx) RetryablePending(ctx context.Context, bucket memory.Bucket, limit int) ([]memory.PendingItem, error) {
	return queryPending(ctx, tx, `bucket = ? AND status = 'open' AND stale = 0 ORDER BY attempts, pending_id LIMIT ?`, bucket, limit)
}

// GetPending returns one pending item in any status.
func (tx *Tx) GetPending(ctx context.Context, id int64) (memory.PendingItem, error) {
	ps, err := queryPending(ctx, tx, `pending_id = ?`, id)
	if err != nil {
		return memory.PendingItem{}, err
	}
	if len(ps) == 0 {
		return memory.PendingItem{}, memory.Errorf(memory.ENOTFOUND, "no pending item %d: list_reviews shows the open ones", id)
	}
	return ps[0], nil
}

// ListPending returns up to limit open pending items (stale ones included),
// oldest first, and how many there are in all; with all, the committed and
// dropped ones too.
func (db *DB) ListPending(ctx context.Context, all bool, limit int) ([]memory.PendingItem, int, error) {
	return db.ListPendingBy(ctx, memory.PendingQuery{All: all, Limit: limit})
}

// ListPendingBy is ListPending narrowed by q's filters in the query itself,
// so that they reach every item however long the queue, and paged by its
// offset; the total counts the items the filters select.
func (db *DB) ListPendingBy(ctx context.Context, q memory.PendingQuery) ([]memory.PendingItem, int, error) {
	conds, args := []string{`status = 'open'`}, []any{}
	if q.All {
		conds = []string{`true`}
	}
	if q.Agent != "" {
		conds, args = append(conds, `agent_id = ?`), append(args, q.Agent)
	}
	if !q.NotedBefore.IsZero() {
		conds, args = append(conds, `note_at < ?`), append(args, nanos(q.NotedBefore))
	}
	where := strings.Join(conds, " AND ")
	var out []memory.PendingItem
	var total int
	err := db.View(ctx, func(tx *Tx) (err error) {
		if err = tx.queryRowOnce(ctx, `SELECT count(*) FROM pending_memory_events WHERE `+where, args...).Scan(&total); err != nil {
			return fmt.Errorf("count pending: %w", err)
		}
		out, err = queryPending(ctx, tx, where+` ORDER BY pending_id LIMIT ? OFFSET ?`, append(args, q.Limit, q.Offset)...)
		return err
	})
	return out, total, err
}

func queryPending(ctx context.Context, tx *Tx, where string, args ...any) ([]memory.PendingItem, error) {
	rows, err := tx.queryOnce(ctx, `SELECT pending_id, note_kind, request_json, raw_input, note_id, agent_id, autonomy, run_id, interpreter,
		reason, candidates_json, attempts, stale, status, note_at, created_at, updated_at, resolution_json
		FROM pending_memory_events WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("read pending: %w", err)
	}
	defer rows.Close()
	out := []memory.PendingItem{}
	for rows.Next() {
		p, err := scanPending(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func scanPending(rows *sql.Rows) (memory.PendingItem, error) {
	var p memory.PendingItem
	var req, cands string
	var note sql.NullInt64
	var noteAt, created, updated int64
	var autonomy, res sql.NullString
	if err := rows.Scan(&p.ID, &p.Kind, &req, &p.RawInput, &note, &p.Agent, &autonomy, &p.Run, &p.Interpreter, &p.Reason, &cands,
		&p.Attempts, &p.Stale, &p.Status, &noteAt, &created, &updated, &res); err != nil {
		return p, err
	}
	p.Autonomy = memory.Autonomy(autonomy.String)
	if err := json.Unmarshal([]byte(req), &p.Request); err != nil {
		return p, fmt.Errorf("pending %d request: %w", p.ID, err)
	}
	if err := json.Unmarshal([]byte(cands), &p.Candidates); err != nil {
		return p, fmt.Errorf("pending %d candidates: %w", p.ID, err)
	}
	if res.Valid {
		p.Resolution = &memory.PendingResolution{}
		if err := json.Unmarshal([]byte(res.String), p.Resolution); err != nil {
			return p, fmt.Errorf("pending %d resolution: %w", p.ID, err)
		}
	}
	p.NoteID, p.NoteAt, p.CreatedAt, p.UpdatedAt = note.Int64, fromNanos(noteAt), fromNanos(created), fromNanos(updated)
	return p, nil
}

func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
