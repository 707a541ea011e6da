package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// InsertNote adds a note to the working memory of its agent and run, stamped
// with the database clock, and returns it with its id.
func (db *DB) InsertNote(ctx context.Context, n memory.Note) (memory.Note, error) {
	n.CreatedAt = db.Now.Now()
	err := db.Update(ctx, func(tx *Tx) error {
		err := tx.queryRow(ctx, `INSERT INTO notes (agent_id, autonomy, run_id, kind, text, task_id, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING note_id`, n.Agent, autonomyArg(n.Autonomy), n.Run, n.Kind, n.Text, nullString(n.TaskID, n.TaskID != ""),
			nanos(n.CreatedAt)).Scan(&n.ID)
		if err != nil {
			return fmt.Errorf("insert note: %w", err)
		}
		return tx.RecordChange(ctx, memory.ChangeNote, memory.IDRef(n.ID), n.CreatedAt)
	})
	return n, err
}

// UnprocessedNotes returns up to limit notes of agent and run that promotion
// has not taken yet, oldest first, and how many there are in all.
func (db *DB) UnprocessedNotes(ctx context.Context, agent, run string, limit int) ([]memory.Note, int, error) {
	var out []memory.Note
	var total int
	err := db.View(ctx, func(tx *Tx) error {
		err := tx.queryRowOnce(ctx, `SELECT count(*) FROM notes WHERE agent_id = ? AND run_id = ? AND processed_at IS NULL`,
			agent, run).Scan(&total)
		if err != nil {
			return fmt.Errorf("count notes: %w", err)
		}
		rows, err := tx.queryOnce(ctx, noteColumns+` WHERE agent_id = ? AND run_id = ? AND processed_at IS NULL
			ORDER BY note_id LIMIT ?`, agent, run, limit)
		if err != nil {
			return fmt.Errorf("read notes: %w", err)
		}
		out, err = scanNotes(rows)
		return err
	})
	return out, total, err
}

// GetNote returns one note by id, whoever wrote it.
func (tx *Tx) GetNote(ctx context.Context, id int64) (memory.Note, bool, error) {
	rows, err := tx.queryOnce(ctx, noteColumns+` WHERE note_id = ?`, id)
	if err != nil {
		return memory.Note{}, false, fmt.Errorf("read note %d: %w", id, err)
	}
	ns, err := scanNotes(rows)
	if err != nil || len(ns) == 0 {
		return memory.Note{}, false, err
	}
	return ns[0], true, nil
}

// NoteOutcome reports whether the note was already promoted, and what came
// of it, so that two promotion passes racing over one run never promote a
// note twice and the second reports what the first decided.
func (tx *Tx) NoteOutcome(ctx context.Context, id int64) (memory.Outcome, bool, error) {
	n, ok, err := tx.GetNote(ctx, id)
	switch {
	case err != nil:
		return memory.Outcome{}, false, err
	case !ok:
		return memory.Outcome{Status: memory.OutcomeIgnored, NoteID: id, Reason: "the note no longer exists"}, true, nil
	case !n.Processed:
		return memory.Outcome{}, false, nil
	case n.Outcome == nil:
		return memory.Outcome{Status: memory.OutcomeIgnored, NoteID: id, Reason: "already promoted by another pass"}, true, nil
	}
	return *n.Outcome, true, nil
}

// MarkNoteProcessed records that promotion took the note, and what came of it.
func (tx *Tx) MarkNoteProcessed(ctx context.Context, id int64, o memory.Outcome, at time.Time) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	_, err = tx.execOnce(ctx, `UPDATE notes SET processed_at = ?, outcome_json = ? WHERE note_id = ?`, nanos(at), string(b), id)
	if err != nil {
		return fmt.Errorf("mark note processed: %w", err)
	}
	return tx.RecordChange(ctx, memory.ChangeNote, memory.IDRef(id), at)
}

// autonomyArg stores an autonomy, NULL when there is none (a human author,
// or a row written before autonomy was recorded).
func autonomyArg(a memory.Autonomy) sql.NullString { return nullString(string(a), a != "") }

const noteColumns = `SELECT note_id, agent_id, autonomy, run_id, kind, text, task_id, created_at, processed_at, outcome_json FROM notes`

func scanNotes(rows *sql.Rows) ([]memory.Note, error) {
	defer rows.Close()
	out := []memory.Note{}
	for rows.Next() {
		var n memory.Note
		var autonomy, task, outcome sql.NullString
		var created int64
		var processed sql.NullInt64
		if err := rows.Scan(&n.ID, &n.Agent, &autonomy, &n.Run, &n.Kind, &n.Text, &task, &created, &processed, &outcome); err != nil {
			return nil, err
		}
		n.Autonomy, n.TaskID = memory.Autonomy(autonomy.String), task.String
		n.CreatedAt, n.ProcessedAt = fromNanos(created), fromNullNanos(processed)
		n.Processed = processed.Valid
		if outcome.Valid {
			n.Outcome = &memory.Outcome{}
			if err := json.Unmarshal([]byte(outcome.String), n.Outcome); err != nil {
				return nil, fmt.Errorf("note %d outcome: %w", n.ID, err)
			}
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
