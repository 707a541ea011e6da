package store_test

import (
	"context"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

func TestNotesArePrivatePerAgentAndRun(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		for _, n := range []memory.Note{
			{Agent: "sam", Run: "r1", Kind: memory.NoteAgent, Text: "one"},
			{Agent: "sam", Run: "r2", Kind: memory.NoteAgent, Text: "other run"},
			{Agent: "ann", Run: "r1", Kind: memory.NoteAgent, Text: "other agent"},
			{Agent: "sam", Run: "r1", Kind: memory.NoteToolResult, Text: "two", TaskID: "T-1"},
		} {
			if _, err := db.InsertNote(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
		notes, total, err := db.UnprocessedNotes(ctx, "sam", "r1", 1)
		if err != nil || total != 2 || len(notes) != 1 || notes[0].Text != "one" {
			t.Fatalf("unprocessed = %+v (%d), %v", notes, total, err)
		}
		err = db.Update(ctx, func(tx *store.Tx) error {
			return tx.MarkNoteProcessed(ctx, notes[0].ID, memory.Outcome{Status: memory.OutcomeIgnored, Reason: "noise"}, db.Now.Now())
		})
		if err != nil {
			t.Fatal(err)
		}
		notes, total, _ = db.UnprocessedNotes(ctx, "sam", "r1", 10)
		if total != 1 || notes[0].Text != "two" || notes[0].TaskID != "T-1" || notes[0].Kind != memory.NoteToolResult {
			t.Fatalf("after processing = %+v", notes)
		}
		err = db.View(ctx, func(tx *store.Tx) error {
			n, ok, err := tx.GetNote(ctx, 1)
			if err != nil || !ok || !n.Processed || n.Outcome == nil || n.Outcome.Reason != "noise" {
				t.Errorf("processed note = %+v, %v, %v", n, ok, err)
			}
			if o, done, err := tx.NoteOutcome(ctx, 1); err != nil || !done || o.Reason != "noise" {
				t.Errorf("outcome of a processed note = %+v, %v, %v", o, done, err)
			}
			if _, done, err := tx.NoteOutcome(ctx, 2); err != nil || done {
				t.Errorf("an unprocessed note counts as done: %v, %v", done, err)
			}
			if _, ok, err := tx.GetNote(ctx, 99); ok || err != nil {
				t.Errorf("missing note: %v, %v", ok, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

func TestPendingQueue(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		req := memory.WriteRequest{Decision: memory.DecisionAccept, Bucket: memory.BucketIssues, Operation: memory.OpResolve, ReferenceText: "the flaky test"}
		var ids []int64
		err := db.Update(ctx, func(tx *store.Tx) error {
			for i := range 3 {
				now := db.Now.Now()
				p := memory.PendingItem{Request: req, RawInput: "the flaky test is fixed", Agent: "sam", Run: "r", Reason: "ambiguous",
					Attempts: i, NoteAt: now, CreatedAt: now, UpdatedAt: now}
				p.Request.ReferenceText += string(rune('a' + i))
				if err := tx.InsertPending(ctx, &p); err != nil {
					return err
				}
				ids = append(ids, p.ID)
				// The same write in another bucket is retried only when that bucket changes.
				p.Request.Bucket, p.Request.Operation = memory.BucketConstraints, memory.OpInvalidate
				if err := tx.InsertPending(ctx, &p); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		err = db.Update(ctx, func(tx *store.Tx) error {
			r := req
			r.ReferenceText += "b"
			if id, err := tx.OpenPendingWith(ctx, r.Fingerprint()); err != nil || id != ids[1] {
				t.Errorf("fingerprint lookup = %d, %v", id, err)
			}
			p, err := tx.GetPending(ctx, ids[0])
			if err != nil {
				return err
			}
			p.Stale, p.Attempts, p.Reason = true, 5, "still ambiguous"
			if err := tx.UpdatePending(ctx, &p); err != nil {
				return err
			}
			p, _ = tx.GetPending(ctx, ids[2])
			p.Status = memory.PendingDropped
			p.Resolution = &memory.PendingResolution{Action: "drop", By: "alice", Reason: "noise"}
			if err := tx.UpdatePending(ctx, &p); err != nil {
				return err
			}
			retry, err := tx.RetryablePending(ctx, memory.BucketIssues, 10)
			if err != nil || len(retry) != 1 || retry[0].ID != ids[1] {
				t.Errorf("retryable = %+v, %v", retry, err)
			}
			if retry, _ := tx.RetryablePending(ctx, memory.BucketConstraints, 10); len(retry) != 3 {
				t.Errorf("retryable constraints = %+v", retry)
			}
			if retry, _ := tx.RetryablePending(ctx, memory.BucketDecisions, 10); len(retry) != 0 {
				t.Errorf("retryable decisions = %+v", retry)
			}
			_, err = tx.GetPending(ctx, 99)
			if memory.ErrorCode(err) != memory.ENOTFOUND {
				t.Errorf("missing pending: %v", err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		open, n, _ := db.ListPending(ctx, false, 100)
		all, total, _ := db.ListPending(ctx, true, 100)
		if len(open) != 5 || n != 5 || !open[0].Stale || open[0].Reason != "still ambiguous" || len(all) != 6 || total != 6 || all[4].ID != ids[2] || all[4].Resolution.By != "alice" {
			t.Fatalf("open = %+v\nall = %+v", open, all)
		}
		if page, total, _ := db.ListPending(ctx, true, 2); len(page) != 2 || total != 6 || page[0].ID != ids[0] {
			t.Fatalf("page = %+v of %d", page, total)
		}
	})
}

// TestAutonomyIsRecorded: notes, ledger events and pending items store the
// autonomy they are given and read it back (none for a human's); an event's
// is immutable like the rest of it; forgetting and publishing a memory keep
// the autonomy of who did it.
func TestAutonomyIsRecorded(t *testing.T) {
	db, _ := openDB(t)
	ctx := context.Background()
	n, err := db.InsertNote(ctx, memory.Note{Agent: "sam", Autonomy: memory.AutonomyFull, Run: "r", Kind: memory.NoteAgent, Text: "issue: x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.InsertNote(ctx, memory.Note{Agent: "alice", Run: "r", Kind: memory.NoteAgent, Text: "issue: y"}); err != nil {
		t.Fatal(err)
	}
	notes, _, err := db.UnprocessedNotes(ctx, "sam", "r", 10)
	if err != nil || len(notes) != 1 || notes[0].Autonomy != memory.AutonomyFull {
		t.Fatalf("notes = %+v, %v", notes, err)
	}
	if notes, _, _ := db.UnprocessedNotes(ctx, "alice", "r", 10); len(notes) != 1 || notes[0].Autonomy != "" {
		t.Fatalf("a human's note = %+v", notes)
	}
	now := db.Now.Now()
	err = db.Update(ctx, func(tx *store.Tx) error {
		ev := memory.Event{Bucket: memory.BucketLearnings, Operation: memory.OpAppend, Payload: memory.Payload{Text: "pin pandas"},
			RawInput: "learned: pin pandas", SourceRef: memory.SourceRef{NoteID: n.ID}, Agent: "sam", Autonomy: memory.AutonomyFull, Run: "r", CreatedAt: now}
		if err := tx.AppendEvent(ctx, &ev, store.Project); err != nil {
			return err
		}
		p := memory.PendingItem{Request: memory.WriteRequest{Decision: memory.DecisionAccept, Bucket: memory.BucketIssues, Operation: memory.OpResolve},
			RawInput: "fixed: x", NoteID: n.ID, Agent: "sam", Autonomy: memory.AutonomyFull, Run: "r", Reason: "waits", NoteAt: now, CreatedAt: now, UpdatedAt: now}
		if err := tx.InsertPending(ctx, &p); err != nil {
			return err
		}
		p.Attempts++
		return tx.UpdatePending(ctx, &p)
	})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := db.Events(ctx, 0, 10)
	if err != nil || len(evs) != 1 || evs[0].Autonomy != memory.AutonomyFull {
		t.Fatalf("events = %+v, %v", evs, err)
	}
	if pending, _, err := db.ListPending(ctx, false, 10); err != nil || len(pending) != 1 || pending[0].Autonomy != memory.AutonomyFull || pending[0].Attempts != 1 {
		t.Fatalf("pending = %+v, %v", pending, err)
	}
	if _, err := db.SQL().Exec(`UPDATE events_memory SET autonomy = 'locked'`); err == nil || !strings.Contains(err.Error(), "immutable") {
		t.Fatalf("an event's autonomy changed: %v", err)
	}

	mem := store.NewMemoryService(db, nil)
	e, err := mem.Remember(as(senior), memory.EntryWrite{Content: "The staging database is db-2."})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Publish(as(senior), e.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Forget(as(senior), e.ID, "moved"); err != nil {
		t.Fatal(err)
	}
	var published, forgotten string
	err = db.SQL().QueryRow(`SELECT (SELECT published_autonomy FROM memories WHERE published_from = ?1),
		(SELECT forgotten_autonomy FROM memories WHERE id = ?1)`, e.ID).Scan(&published, &forgotten)
	if err != nil || published != string(senior.Autonomy) || forgotten != string(senior.Autonomy) {
		t.Fatalf("published by autonomy %q, forgotten by %q (%v); want %q", published, forgotten, err, senior.Autonomy)
	}
}
