package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	memory "github.com/memory-mcp/memory-mcp"
)

// ProjectFunc applies one ledger event to the shared tables. Project is the
// real one; tests substitute failing ones.
type ProjectFunc func(ctx context.Context, tx *Tx, ev *memory.Event) error

// AppendEvent records ev in the ledger and then projects it, inside tx.
//
// The projection runs in a savepoint of its own: when it fails, only its own
// writes roll back, and the event stays recorded with applied = 0 and the
// error, so that the caller's transaction still commits the ledger row and
// replay can apply it later. An error is returned only when the ledger itself
// cannot be written; then the whole transaction must roll back.
func (tx *Tx) AppendEvent(ctx context.Context, ev *memory.Event, project ProjectFunc) error {
	if ev.EventID == "" {
		ev.EventID = uuid.NewString()
	}
	payload, err := json.Marshal(ev.Payload)
	if err != nil {
		return err
	}
	ref, err := json.Marshal(ev.SourceRef)
	if err != nil {
		return err
	}
	// The stamp covers seq, which SQLite assigns: it is taken here, in
	// the write transaction, as AUTOINCREMENT would (one past the highest
	// ever used), so that the row is stamped in its own INSERT.
	seq, err := tx.nextEventSeq(ctx)
	if err != nil {
		return err
	}
	stamp, err := tx.db.stamp(eventStampTag, seq, ev.EventID, ev.Bucket, ev.Operation, ev.TargetID, string(payload), ev.RawInput,
		string(ref), ev.Agent, autonomyArg(ev.Autonomy), ev.Run, nanos(ev.CreatedAt))
	if err != nil {
		return err
	}
	_, err = tx.execOnce(ctx, `INSERT INTO events_memory
		(seq, event_id, bucket, operation, target_id, payload_json, raw_input, source_ref, agent_id, autonomy, run_id, created_at, stamp)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		seq, ev.EventID, ev.Bucket, ev.Operation, ev.TargetID, string(payload), ev.RawInput, string(ref),
		ev.Agent, autonomyArg(ev.Autonomy), ev.Run, nanos(ev.CreatedAt), stamp)
	if err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	ev.Seq = seq
	tx.events = append(tx.events, *ev)
	return applyEvent(ctx, tx, ev, project, ev.CreatedAt)
}

// UnappliedEvent returns the oldest event for bucket/target whose
// projection failed and has not been applied since, if there is one. Writes
// to such a target wait: committed on top of the unapplied event they would
// make the live state and the ledger's replay differ.
func (tx *Tx) UnappliedEvent(ctx context.Context, b memory.Bucket, target string) (memory.Event, bool, error) {
	var ev memory.Event
	var perr sql.NullString
	err := tx.queryRowOnce(ctx, `SELECT seq, event_id, projection_error FROM events_memory
		WHERE bucket = ? AND target_id = ? AND applied = 0 ORDER BY seq LIMIT 1`, b, target).Scan(&ev.Seq, &ev.EventID, &perr)
	if errors.Is(err, sql.ErrNoRows) {
		return ev, false, nil
	}
	if err != nil {
		return ev, false, fmt.Errorf("read unapplied events: %w", err)
	}
	ev.Bucket, ev.TargetID, ev.ProjectionError = b, target, perr.String
	return ev, true, nil
}

// IDTaken reports whether a row of bucket b has id, or any ledger event
// targets it: an id given to a new row must be neither, so that it never
// merges with a row, closed or not, nor with an event not yet applied.
func (tx *Tx) IDTaken(ctx context.Context, b memory.Bucket, id string) (bool, error) {
	var n int
	err := tx.queryRowOnce(ctx, `SELECT (SELECT count(*) FROM `+stateTable(b)+` WHERE id = ?1)
		+ (SELECT count(*) FROM events_memory WHERE bucket = ?2 AND target_id = ?1)`, id, b).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("check id %s/%s: %w", b, id, err)
	}
	return n > 0, nil
}

// applyEvent projects ev in a savepoint and records whether it took, and when.
func applyEvent(ctx context.Context, tx *Tx, ev *memory.Event, project ProjectFunc, at time.Time) error {
	if _, err := tx.execOnce(ctx, `SAVEPOINT projection`); err != nil {
		return fmt.Errorf("savepoint: %w", err)
	}
	perr := project(ctx, tx, ev)
	if perr != nil {
		if _, err := tx.execOnce(ctx, `ROLLBACK TO projection`); err != nil {
			return fmt.Errorf("roll back projection of %s: %w (projection: %v)", ev.EventID, err, perr)
		}
	}
	if _, err := tx.execOnce(ctx, `RELEASE projection`); err != nil {
		return fmt.Errorf("release savepoint: %w", err)
	}
	ev.Applied, ev.ProjectionError = perr == nil, ""
	var err error
	if perr != nil {
		ev.ProjectionError = perr.Error()
		_, err = tx.execOnce(ctx, `UPDATE events_memory SET applied = 0, applied_at = NULL, projection_error = ? WHERE seq = ?`,
			ev.ProjectionError, ev.Seq)
	} else {
		_, err = tx.execOnce(ctx, `UPDATE events_memory SET applied = 1, applied_at = ?, projection_error = NULL WHERE seq = ?`,
			nanos(at), ev.Seq)
	}
	if err != nil {
		return fmt.Errorf("mark event %s: %w", ev.EventID, err)
	}
	return nil
}

// Events returns up to limit ledger events after seq, oldest first.
func (db *DB) Events(ctx context.Context, after int64, limit int) ([]memory.Event, error) {
	var out []memory.Event
	err := db.View(ctx, func(tx *Tx) (err error) {
		out, err = events(ctx, tx, after, limit)
		return err
	})
	return out, err
}

func events(ctx context.Context, tx *Tx, after int64, limit int) ([]memory.Event, error) {
	return scanEvents(ctx, tx, `seq > ? ORDER BY seq LIMIT ?`, after, limit)
}

// Ledger returns the events q selects, newest first, for a person reading
// the ledger back. The human-only rule is the service's.
func (db *DB) Ledger(ctx context.Context, q memory.LedgerQuery) ([]memory.Event, error) {
	where, args := "", []any{}
	if q.Before > 0 {
		where, args = "seq < ? AND ", append(args, q.Before)
	}
	if q.Bucket != "" {
		where, args = where+"bucket = ? AND ", append(args, q.Bucket)
	}
	if q.TargetID != "" {
		where, args = where+"target_id = ? AND ", append(args, q.TargetID)
	}
	var out []memory.Event
	err := db.View(ctx, func(tx *Tx) (err error) {
		out, err = scanEvents(ctx, tx, where+"true ORDER BY seq DESC LIMIT ?", append(args, q.Limit)...)
		return err
	})
	return out, err
}

// scanEvents reads the events after WHERE in cond (a condition, its order
// and its limit).
func scanEvents(ctx context.Context, tx *Tx, cond string, args ...any) ([]memory.Event, error) {
	rows, err := tx.queryOnce(ctx, `SELECT seq, event_id, bucket, operation, target_id, payload_json, raw_input,
		source_ref, agent_id, autonomy, run_id, created_at, applied, projection_error
		FROM events_memory WHERE `+cond, args...)
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	defer rows.Close()
	out := []memory.Event{}
	for rows.Next() {
		var ev memory.Event
		var payload, ref string
		var created int64
		var autonomy, perr sql.NullString
		if err := rows.Scan(&ev.Seq, &ev.EventID, &ev.Bucket, &ev.Operation, &ev.TargetID, &payload, &ev.RawInput,
			&ref, &ev.Agent, &autonomy, &ev.Run, &created, &ev.Applied, &perr); err != nil {
			return nil, err
		}
		ev.Autonomy = memory.Autonomy(autonomy.String)
		if err := json.Unmarshal([]byte(payload), &ev.Payload); err != nil {
			return nil, fmt.Errorf("event %d payload: %w", ev.Seq, err)
		}
		if err := json.Unmarshal([]byte(ref), &ev.SourceRef); err != nil {
			return nil, fmt.Errorf("event %d source_ref: %w", ev.Seq, err)
		}
		ev.CreatedAt, ev.ProjectionError = fromNanos(created), perr.String
		out = append(out, ev)
	}
	return out, rows.Err()
}

// ReplayReport says what a replay did, and which events it applied that had
// failed before or failed that had applied.
type ReplayReport struct {
	Events  int            `json:"events"`
	Applied int            `json:"applied"`
	Failed  int            `json:"failed"`
	Flipped []memory.Event `json:"flipped,omitempty"`
}

// Replay rebuilds every shared table from the ledger in one transaction:
// it empties them and projects every event in ledger order, recording for
// each whether it applied. Events whose projection failed before are retried;
// a projection that fails again leaves its event unapplied and does not stop
// the replay.
func (db *DB) Replay(ctx context.Context, project ProjectFunc) (ReplayReport, error) {
	var rep ReplayReport
	err := db.Update(ctx, func(tx *Tx) error {
		rep = ReplayReport{}
		now := db.Now.Now()
		for _, b := range memory.Buckets {
			if _, err := tx.execOnce(ctx, `DELETE FROM `+stateTable(b)); err != nil {
				return fmt.Errorf("empty %s: %w", stateTable(b), err)
			}
		}
		if err := replayEvents(ctx, tx, project, now, &rep); err != nil {
			return err
		}
		return tx.RecordChange(ctx, memory.ChangeState, memory.StateReplayed, now)
	})
	return rep, err
}

func replayEvents(ctx context.Context, tx *Tx, project ProjectFunc, now time.Time, rep *ReplayReport) error {
	for after := int64(0); ; {
		batch, err := events(ctx, tx, after, 500)
		if err != nil || len(batch) == 0 {
			return err
		}
		for i := range batch {
			was := batch[i].Applied
			if err := applyEvent(ctx, tx, &batch[i], project, now); err != nil {
				return err
			}
			if batch[i].Applied != was {
				rep.Flipped = append(rep.Flipped, batch[i])
			}
			rep.Events++
			if batch[i].Applied {
				rep.Applied++
			} else {
				rep.Failed++
			}
			after = batch[i].Seq
		}
	}
}
