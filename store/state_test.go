package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// commit appends one event built from the arguments with the given projector
// in its own transaction, as the inputter does.
func commit(t *testing.T, db *store.DB, project store.ProjectFunc, b memory.Bucket, op memory.Operation, target string, p memory.Payload, ref memory.SourceRef) memory.Event {
	t.Helper()
	ev := memory.Event{Bucket: b, Operation: op, TargetID: target, Payload: p, RawInput: "raw " + target,
		SourceRef: ref, Agent: "sam", Run: "run1", CreatedAt: db.Now.Now()}
	err := db.Update(context.Background(), func(tx *store.Tx) error {
		return tx.AppendEvent(context.Background(), &ev, project)
	})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func row(t *testing.T, db *store.DB, b memory.Bucket, id string) (memory.StateRow, bool) {
	t.Helper()
	var r memory.StateRow
	var ok bool
	err := db.View(context.Background(), func(tx *store.Tx) (err error) {
		r, ok, err = tx.StateRow(context.Background(), b, id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return r, ok
}

func TestProjectBucketRules(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		none := memory.SourceRef{}

		// plan: one row, replaced, version increments.
		commit(t, db, store.Project, memory.BucketPlan, memory.OpUpsert, "main", memory.Payload{Text: "ship v1"}, none)
		commit(t, db, store.Project, memory.BucketPlan, memory.OpUpsert, "main", memory.Payload{Text: "ship v2"}, none)
		if p, _ := row(t, db, memory.BucketPlan, "main"); p.Text != "ship v2" || p.Version != 2 {
			t.Fatalf("plan = %+v", p)
		}
		// task_state: latest wins per task.
		commit(t, db, store.Project, memory.BucketTaskState, memory.OpUpsert, "build_1", memory.Payload{State: "running"}, none)
		commit(t, db, store.Project, memory.BucketTaskState, memory.OpUpsert, "build_1", memory.Payload{State: "done", Text: "green"}, none)
		if ts, _ := row(t, db, memory.BucketTaskState, "build_1"); ts.State != "done" || ts.Text != "green" || ts.Version != 2 {
			t.Fatalf("task = %+v", ts)
		}
		// results and learnings: append, ids from the ledger.
		r1 := commit(t, db, store.Project, memory.BucketResults, memory.OpAppend, "", memory.Payload{Text: "acc 0.9", TaskID: "eval"}, none)
		r2 := commit(t, db, store.Project, memory.BucketResults, memory.OpAppend, "", memory.Payload{Text: "acc 0.9", TaskID: "eval"}, none)
		if _, ok := row(t, db, memory.BucketResults, store.RowID(&r1)); !ok {
			t.Fatal("result 1 missing")
		}
		if res, _ := row(t, db, memory.BucketResults, store.RowID(&r2)); res.TaskID != "eval" || res.EventID != r2.EventID {
			t.Fatalf("result 2 = %+v", res)
		}
		// issues: upsert creates with reference memory, resolve closes and grows it, upsert reopens.
		commit(t, db, store.Project, memory.BucketIssues, memory.OpUpsert, "pandas_blocker", memory.Payload{Text: "pandas import fails"},
			memory.SourceRef{CandidateAliases: []string{"blocker"}})
		ev := commit(t, db, store.Project, memory.BucketIssues, memory.OpResolve, "pandas_blocker", memory.Payload{Reason: "pinned 2.1"},
			memory.SourceRef{ReferenceText: "the earlier blocker", CandidateAliases: []string{"pandas error"}})
		is, _ := row(t, db, memory.BucketIssues, "pandas_blocker")
		if is.Status != memory.StatusResolved || is.CloseReason != "pinned 2.1" || is.ClosedAt == nil || is.EventID != ev.EventID ||
			strings.Join(is.Reference.Aliases, ",") != "blocker,pandas error" || strings.Join(is.Reference.Phrases, ",") != "the earlier blocker" {
			t.Fatalf("resolved issue = %+v %+v", is, is.Reference)
		}
		// Closing it again is an applied no-op: the first close stands.
		again := commit(t, db, store.Project, memory.BucketIssues, memory.OpResolve, "pandas_blocker", memory.Payload{Reason: "again"}, none)
		if is2, _ := row(t, db, memory.BucketIssues, "pandas_blocker"); !again.Applied || is2.CloseReason != "pinned 2.1" || is2.EventID != ev.EventID {
			t.Fatalf("second resolve = %+v, row %+v", again, is2)
		}
		reopenedAt := db.Now.Now()
		commit(t, db, store.Project, memory.BucketIssues, memory.OpUpsert, "pandas_blocker", memory.Payload{Text: "pandas import fails again"},
			memory.SourceRef{NoteAt: reopenedAt})
		if is, _ = row(t, db, memory.BucketIssues, "pandas_blocker"); is.Status != memory.StatusOpen || is.ClosedAt != nil || len(is.Reference.Aliases) != 2 ||
			!is.NotedAt.Equal(reopenedAt) {
			t.Fatalf("reopened issue = %+v", is)
		}
		// Updating a live row keeps when it was first noted.
		commit(t, db, store.Project, memory.BucketIssues, memory.OpUpsert, "pandas_blocker", memory.Payload{Text: "pandas import fails on 2.2"},
			memory.SourceRef{NoteAt: db.Now.Now()})
		if is, _ = row(t, db, memory.BucketIssues, "pandas_blocker"); !is.NotedAt.Equal(reopenedAt) {
			t.Fatalf("updated issue noted at %v, want %v", is.NotedAt, reopenedAt)
		}
		// decisions: append, invalidate -> superseded; a second append on the same id fails.
		commit(t, db, store.Project, memory.BucketDecisions, memory.OpAppend, "use_sqlite", memory.Payload{Text: "use SQLite"}, none)
		dup := commit(t, db, store.Project, memory.BucketDecisions, memory.OpAppend, "use_sqlite", memory.Payload{Text: "use SQLite!"}, none)
		if dup.Applied || !strings.Contains(dup.ProjectionError, "append creates new rows") {
			t.Fatalf("append on an existing id applied: %+v", dup)
		}
		commit(t, db, store.Project, memory.BucketDecisions, memory.OpInvalidate, "use_sqlite", memory.Payload{}, none)
		if d, _ := row(t, db, memory.BucketDecisions, "use_sqlite"); d.Status != memory.StatusSuperseded {
			t.Fatalf("decision = %+v", d)
		}
		// constraints: a lifecycle write on a row that is not live does not apply.
		bad := commit(t, db, store.Project, memory.BucketConstraints, memory.OpInvalidate, "no_network", memory.Payload{}, none)
		if bad.Applied || !strings.Contains(bad.ProjectionError, `no active constraint "no_network" to invalidate`) {
			t.Fatalf("invalidate of a missing constraint = %+v", bad)
		}

		var c memory.StateContext
		db.View(ctx, func(tx *store.Tx) (err error) { c, err = tx.LoadContext(ctx, time.Time{}); return })
		if len(c.Rows) != 1 || c.Rows[0].ID != "pandas_blocker" {
			t.Fatalf("context = %+v", c.Rows)
		}
	})
}

// TestFailedProjectionKeepsTheEvent forces the projection to fail after it
// has written, and checks that its writes roll back alone: the ledger row and
// the rest of the transaction commit, and replay applies the event later.
func TestFailedProjectionKeepsTheEvent(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		failing := func(ctx context.Context, tx *store.Tx, ev *memory.Event) error {
			if err := store.Project(ctx, tx, ev); err != nil {
				return err
			}
			return errors.New("disk on fire")
		}
		ev := memory.Event{Bucket: memory.BucketIssues, Operation: memory.OpUpsert, TargetID: "flaky_test", Payload: memory.Payload{Text: "flaky test"},
			RawInput: "issue: flaky test", Agent: "sam", Run: "r", CreatedAt: db.Now.Now()}
		err := db.Update(ctx, func(tx *store.Tx) error {
			if err := tx.AppendEvent(ctx, &ev, failing); err != nil {
				return err
			}
			// Work after the failed projection in the same transaction still commits.
			return tx.RecordChange(ctx, "test", "after", ev.CreatedAt)
		})
		if err != nil {
			t.Fatal(err)
		}
		if ev.Applied || ev.ProjectionError != "disk on fire" {
			t.Fatalf("event = %+v", ev)
		}
		if _, ok := row(t, db, memory.BucketIssues, "flaky_test"); ok {
			t.Fatal("the failed projection's write survived")
		}
		evs, err := db.Events(ctx, 0, 10)
		if err != nil || len(evs) != 1 || evs[0].Applied || evs[0].ProjectionError != "disk on fire" || evs[0].RawInput != "issue: flaky test" {
			t.Fatalf("ledger = %+v, %v", evs, err)
		}
		changes, _ := db.ChangesSince(ctx, 0, 100)
		if last := changes[len(changes)-1]; last.Kind != "test" {
			t.Fatalf("the rest of the transaction was lost: %+v", changes)
		}

		rep, err := db.Replay(ctx, store.Project)
		if err != nil || rep.Events != 1 || rep.Applied != 1 || rep.Failed != 0 || len(rep.Flipped) != 1 || rep.Flipped[0].EventID != ev.EventID {
			t.Fatalf("replay = %+v, %v", rep, err)
		}
		if r, ok := row(t, db, memory.BucketIssues, "flaky_test"); !ok || r.Text != "flaky test" || !r.CreatedAt.Equal(ev.CreatedAt) {
			t.Fatalf("after replay = %+v %v", r, ok)
		}
		if evs, _ = db.Events(ctx, 0, 10); !evs[0].Applied || evs[0].ProjectionError != "" {
			t.Fatalf("event after replay = %+v", evs[0])
		}
	})
}

func TestReplayRebuildsIdenticalState(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		none := memory.SourceRef{}
		commit(t, db, store.Project, memory.BucketPlan, memory.OpUpsert, "main", memory.Payload{Text: "a"}, none)
		commit(t, db, store.Project, memory.BucketPlan, memory.OpUpsert, "main", memory.Payload{Text: "b"}, none)
		commit(t, db, store.Project, memory.BucketIssues, memory.OpUpsert, "x", memory.Payload{Text: "x fails"}, memory.SourceRef{CandidateAliases: []string{"blocker"}})
		commit(t, db, store.Project, memory.BucketIssues, memory.OpResolve, "x", memory.Payload{Reason: "done"}, memory.SourceRef{ReferenceText: "that blocker"})
		commit(t, db, store.Project, memory.BucketConstraints, memory.OpUpsert, "no_net", memory.Payload{Text: "no network"}, none)
		commit(t, db, store.Project, memory.BucketDecisions, memory.OpAppend, "use_go", memory.Payload{Text: "use Go"}, none)
		commit(t, db, store.Project, memory.BucketResults, memory.OpAppend, "", memory.Payload{Text: "r"}, none)
		commit(t, db, store.Project, memory.BucketLearnings, memory.OpAppend, "", memory.Payload{Text: "l"}, none)
		commit(t, db, store.Project, memory.BucketTaskState, memory.OpUpsert, "t", memory.Payload{State: "done"}, none)
		commit(t, db, store.Project, memory.BucketIssues, memory.OpResolve, "nope", memory.Payload{}, none) // fails, stays unapplied

		before, err := db.DumpState(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := db.Replay(ctx, store.Project)
		if err != nil || rep.Events != 10 || rep.Applied != 9 || rep.Failed != 1 || len(rep.Flipped) != 0 {
			t.Fatalf("replay = %+v, %v", rep, err)
		}
		after, _ := db.DumpState(ctx)
		if before != after {
			t.Fatalf("replay changed the shared state:\nbefore:\n%s\nafter:\n%s", before, after)
		}
		if !strings.Contains(before, "that blocker") || strings.Count(before, "\n") != 14 {
			t.Fatalf("dump is missing rows or columns:\n%s", before)
		}
	})
}

// TestIssueKind checks that an issue keeps the kind it was reported as: an
// upsert with the blocker alias records a blocker, an update of a live row
// keeps its kind either way, a reopening takes its new report's kind,
// lifecycle writes (whatever aliases they carry) change nothing, and replay
// gives the same.
func TestIssueKind(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		none, blocker := memory.SourceRef{}, memory.SourceRef{CandidateAliases: []string{"pandas", "Blocker"}}
		kind := func(id string) string {
			t.Helper()
			r, ok := row(t, db, memory.BucketIssues, id)
			if !ok {
				t.Fatalf("no issue %s", id)
			}
			return r.Kind
		}
		steps := []struct {
			op   memory.Operation
			id   string
			ref  memory.SourceRef
			want string
		}{
			{memory.OpUpsert, "a", blocker, memory.KindBlocker},
			{memory.OpUpsert, "b", none, memory.KindIssue},
			{memory.OpUpsert, "b", blocker, memory.KindIssue}, // restated as a blocker: notes written before knew an issue
			{memory.OpUpsert, "a", none, memory.KindBlocker},  // restated in other words: still blocking
			{memory.OpResolve, "a", blocker, memory.KindBlocker},
			{memory.OpUpsert, "a", none, memory.KindIssue}, // reopened as a plain issue
			{memory.OpResolve, "a", none, memory.KindIssue},
			{memory.OpUpsert, "a", blocker, memory.KindBlocker}, // reopened as a blocker
			{memory.OpUpsert, "c", memory.SourceRef{CandidateAliases: []string{"blockers", "deploy blocker"}}, memory.KindIssue},
		}
		for i, s := range steps {
			text := memory.Payload{Text: fmt.Sprintf("%s fails (%d)", s.id, i)}
			if s.op.Lifecycle() {
				text = memory.Payload{Reason: "done"}
			}
			if ev := commit(t, db, store.Project, memory.BucketIssues, s.op, s.id, text, s.ref); !ev.Applied {
				t.Fatalf("step %d: %s", i, ev.ProjectionError)
			}
			if got := kind(s.id); got != s.want {
				t.Fatalf("step %d: %s %s: kind %q, want %q", i, s.op, s.id, got, s.want)
			}
		}
		commit(t, db, store.Project, memory.BucketConstraints, memory.OpUpsert, "no_net", memory.Payload{Text: "no network"}, blocker)
		var c memory.StateContext
		db.View(ctx, func(tx *store.Tx) (err error) { c, err = tx.LoadContext(ctx, time.Time{}); return })
		var got []string
		for _, r := range c.Rows {
			got = append(got, r.ID+"="+r.Kind)
		}
		if strings.Join(got, " ") != "a=blocker b=issue c=issue no_net=" {
			t.Fatalf("context kinds = %v", got)
		}
		before, _ := db.DumpState(ctx)
		if rep, err := db.Replay(ctx, store.Project); err != nil || rep.Failed != 0 {
			t.Fatalf("replay = %+v, %v", rep, err)
		}
		if after, _ := db.DumpState(ctx); after != before || !strings.Contains(before, "| blocker |") {
			t.Fatalf("replay changed the kinds:\n%s\n---\n%s", before, after)
		}
	})
}

func TestLedgerIsImmutable(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		commit(t, db, store.Project, memory.BucketLearnings, memory.OpAppend, "", memory.Payload{Text: "l"}, memory.SourceRef{})
		for _, q := range []string{`UPDATE events_memory SET bucket = 'plan'`, `UPDATE events_memory SET raw_input = 'x'`, `DELETE FROM events_memory`} {
			err := db.Update(ctx, func(tx *store.Tx) error { _, err := tx.SQL().ExecContext(ctx, q); return err })
			if err == nil || !strings.Contains(err.Error(), "events_memory") {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
}

func TestLoadContextSince(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		none := memory.SourceRef{}
		commit(t, db, store.Project, memory.BucketIssues, memory.OpUpsert, "a", memory.Payload{Text: "a"}, none)
		commit(t, db, store.Project, memory.BucketIssues, memory.OpUpsert, "b", memory.Payload{Text: "b"}, none)
		commit(t, db, store.Project, memory.BucketIssues, memory.OpResolve, "a", memory.Payload{}, none)
		noteAt := db.Now.Now()
		commit(t, db, store.Project, memory.BucketIssues, memory.OpResolve, "b", memory.Payload{}, none)
		commit(t, db, store.Project, memory.BucketDecisions, memory.OpAppend, "d", memory.Payload{Text: "d"}, none)

		var c memory.StateContext
		db.View(ctx, func(tx *store.Tx) (err error) { c, err = tx.LoadContext(ctx, noteAt); return })
		var ids []string
		for _, r := range c.Rows {
			ids = append(ids, string(r.Bucket)+"/"+r.ID+"="+r.Status)
		}
		// a closed before the note and is out; b closed after it and is in.
		if strings.Join(ids, " ") != "issues/b=resolved decisions/d=active" {
			t.Fatalf("context since = %v", ids)
		}
	})
}

func TestSharedStateAndSummary(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		none := memory.SourceRef{}
		commit(t, db, store.Project, memory.BucketIssues, memory.OpUpsert, "a", memory.Payload{Text: "a fails"}, none)
		commit(t, db, store.Project, memory.BucketIssues, memory.OpUpsert, "b", memory.Payload{Text: "b fails"}, none)
		commit(t, db, store.Project, memory.BucketIssues, memory.OpResolve, "a", memory.Payload{}, none)
		commit(t, db, store.Project, memory.BucketPlan, memory.OpUpsert, "main", memory.Payload{Text: "the plan"}, none)
		commit(t, db, store.Project, memory.BucketTaskState, memory.OpUpsert, "t1", memory.Payload{State: "blocked"}, none)

		rows, err := db.State(ctx, memory.StateQuery{Bucket: memory.BucketIssues, Status: memory.StatusOpen, Limit: 10})
		if err != nil || len(rows) != 1 || rows[0].ID != "b" {
			t.Fatalf("open issues = %+v, %v", rows, err)
		}
		rows, _ = db.State(ctx, memory.StateQuery{Limit: 1})
		if len(rows) != 3 { // one per non-empty bucket: plan, issues, task_state
			t.Fatalf("all buckets, limit 1 = %+v", rows)
		}
		s, err := db.Summary(ctx)
		if err != nil || s.Plan == nil || len(s.OpenIssues) != 1 || len(s.Tasks) != 1 {
			t.Fatalf("summary = %+v, %v", s, err)
		}
		if s.Omitted != nil {
			t.Errorf("nothing was left out, yet: %v", s.Omitted)
		}
	})
}

// TestSummarySaysWhatItLeavesOut fills one list past the summary's bound.
func TestSummarySaysWhatItLeavesOut(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		err := db.Update(ctx, func(tx *store.Tx) error {
			for i := range memory.SummaryRows + 3 {
				ev := memory.Event{Bucket: memory.BucketIssues, Operation: memory.OpUpsert, TargetID: fmt.Sprintf("i%03d", i),
					Payload: memory.Payload{Text: "x"}, Agent: "a", Run: "r", CreatedAt: db.Now.Now()}
				if err := tx.AppendEvent(ctx, &ev, store.Project); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		s, err := db.Summary(ctx)
		if err != nil || len(s.OpenIssues) != memory.SummaryRows || s.Omitted[memory.BucketIssues] != 3 {
			t.Fatalf("summary: %d issues, omitted %v, %v", len(s.OpenIssues), s.Omitted, err)
		}
	})
}

// TestLedgerChecks: an id is taken by a row or by any event, and a target
// whose event did not apply is found until replay applies it.
func TestLedgerChecks(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		failing := func(context.Context, *store.Tx, *memory.Event) error { return errors.New("projector down") }
		commit(t, db, store.Project, memory.BucketIssues, memory.OpUpsert, "a", memory.Payload{Text: "a"}, memory.SourceRef{})
		bad := commit(t, db, failing, memory.BucketIssues, memory.OpUpsert, "b", memory.Payload{Text: "b"}, memory.SourceRef{})
		check := func(id string, taken, stuck bool) {
			t.Helper()
			db.View(ctx, func(tx *store.Tx) error {
				got, err := tx.IDTaken(ctx, memory.BucketIssues, id)
				ev, gotStuck, err2 := tx.UnappliedEvent(ctx, memory.BucketIssues, id)
				if err != nil || err2 != nil || got != taken || gotStuck != stuck || stuck && (ev.EventID != bad.EventID || ev.ProjectionError != "projector down") {
					t.Errorf("%s: taken %v stuck %v (%+v), %v %v", id, got, gotStuck, ev, err, err2)
				}
				return nil
			})
		}
		check("a", true, false)
		check("b", true, true) // no row, but the ledger holds an event for it
		check("c", false, false)
		if taken := func() (b bool) {
			db.View(ctx, func(tx *store.Tx) (err error) { b, err = tx.IDTaken(ctx, memory.BucketDecisions, "a"); return })
			return
		}(); taken {
			t.Error("an issue's id is taken in decisions")
		}
		if _, err := db.Replay(ctx, store.Project); err != nil {
			t.Fatal(err)
		}
		check("b", true, false)
	})
}
