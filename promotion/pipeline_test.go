package promotion_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/promotion"
	"github.com/memory-mcp/memory-mcp/store"
)

// TestFailedProjectionIsRecordedAndReplayed forces the projector to fail for
// one commit: the note's outcome says so, the event is in the ledger with
// applied = 0, no shared row changed, no retry pass ran, and replay applies it.
func TestFailedProjectionIsRecordedAndReplayed(t *testing.T) {
	h := newHarness(t)
	h.note(agent, memory.NoteWrite{Text: "issue: flaky test in the auth module"}, true)
	h.note(agent, memory.NoteWrite{Text: "issue: flaky test in the billing module"}, true)
	h.note(agent, memory.NoteWrite{Text: "The flaky test is fixed."}, true)
	h.outs = nil

	h.p.Project = func(ctx context.Context, tx *store.Tx, ev *memory.Event) error {
		if err := store.Project(ctx, tx, ev); err != nil {
			return err
		}
		return errors.New("projector bug")
	}
	h.note(agent, memory.NoteWrite{Text: "decision: use SQLite"}, true)
	o := h.outs[0]
	if o.Status != memory.OutcomeCommitted || o.Applied || o.ProjectionError != "projector bug" || o.EventID == "" || len(h.retried) != 0 {
		t.Fatalf("outcome = %+v, retried %+v", o, h.retried)
	}
	if rows := h.rows(memory.BucketDecisions); len(rows) != 0 {
		t.Fatalf("the failed projection left rows: %+v", rows)
	}
	evs, _ := h.db.Events(context.Background(), 0, 100)
	last := evs[len(evs)-1]
	if last.EventID != o.EventID || last.Applied || last.RawInput != "decision: use SQLite" || last.SourceRef.NoteID != o.NoteID {
		t.Fatalf("ledger row = %+v", last)
	}
	var n memory.Note
	h.db.View(context.Background(), func(tx *store.Tx) (err error) { n, _, err = tx.GetNote(context.Background(), o.NoteID); return })
	if !n.Processed || n.Outcome == nil || n.Outcome.ProjectionError != "projector bug" {
		t.Fatalf("note = %+v", n)
	}
	if p, _, _ := h.db.ListPending(context.Background(), false, 100); len(p) != 1 || p[0].Attempts != 0 {
		t.Fatalf("a retry pass ran after a failed projection: %+v", p)
	}

	rep, err := h.db.Replay(context.Background(), store.Project)
	if err != nil || rep.Failed != 0 || rep.Applied != len(evs) {
		t.Fatalf("replay = %+v, %v", rep, err)
	}
	if rows := h.rows(memory.BucketDecisions); len(rows) != 1 || rows[0].ID != "use_sqlite" || rows[0].EventID != o.EventID {
		t.Fatalf("after replay = %+v", rows)
	}
}

func TestPromotionNeedsAnIdentity(t *testing.T) {
	h := newHarness(t)
	if _, err := h.p.WriteNote(context.Background(), memory.NoteWrite{Text: "issue: x"}); memory.ErrorCode(err) != memory.EFORBIDDEN {
		t.Fatalf("write without identity: %v", err)
	}
	if _, err := h.p.Promote(context.Background(), 0); memory.ErrorCode(err) != memory.EFORBIDDEN {
		t.Fatalf("promote without identity: %v", err)
	}
	if _, err := h.p.ResolvePending(as(agent), memory.PendingDecision{PendingID: 1, DropReason: "x"}); memory.ErrorCode(err) != memory.EFORBIDDEN {
		t.Fatalf("agent curating: %v", err)
	}
	if _, err := h.p.Promote(as(agent), 501); memory.ErrorCode(err) != memory.EINVALID {
		t.Fatalf("limit: %v", err)
	}
}

// TestCuratorBindsATakenDecisionIDToANewOne: a decision whose stated id is
// taken waits for a curator, who may give it a new id but not the taken one
// (decisions are append-only: the append would not apply).
func TestCuratorBindsATakenDecisionIDToANewOne(t *testing.T) {
	h := newHarness(t)
	h.note(agent, memory.NoteWrite{Text: "decision: keep sessions in Redis (session_store)"}, true)
	h.note(agent, memory.NoteWrite{Text: "decision: keep sessions in Postgres (session_store)"}, true)
	o := h.outs[1]
	if o.Status != memory.OutcomePending || !strings.Contains(o.Reason, `write "superseded: session_store"`) {
		t.Fatalf("taken id: %s", o.Summary())
	}
	_, err := h.p.ResolvePending(as(curator), memory.PendingDecision{PendingID: o.PendingID, TargetID: "session_store"})
	if memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "bind the item to a new id") {
		t.Fatalf("bind to the taken id: %v", err)
	}
	res, err := h.p.ResolvePending(as(curator), memory.PendingDecision{PendingID: o.PendingID, TargetID: "session_store_pg"})
	if err != nil || res.Outcome == nil || res.Outcome.Status != memory.OutcomeCommitted || !res.Outcome.Applied {
		t.Fatalf("bind to a new id: %+v, %v", res, err)
	}
	if rows := h.rows(memory.BucketDecisions); len(rows) != 2 {
		t.Fatalf("decisions = %+v", rows)
	}
}

// TestReplayEquivalenceOnAWorkload promotes a generated workload of every
// kind of note and checks that the ledger alone rebuilds the same state.
func TestReplayEquivalenceOnAWorkload(t *testing.T) {
	h := newHarness(t)
	for _, text := range workload(rand.New(rand.NewPCG(1, 2)), 300) {
		if _, err := h.p.WriteNote(as(agent), memory.NoteWrite{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := h.p.Promote(as(agent), 500)
	if err != nil || len(rep.Outcomes) != 300 {
		t.Fatalf("promote: %d outcomes, %v", len(rep.Outcomes), err)
	}
	counts := map[memory.OutcomeStatus]int{}
	for _, o := range rep.Outcomes {
		counts[o.Status]++
	}
	for _, s := range []memory.OutcomeStatus{memory.OutcomeCommitted, memory.OutcomePending, memory.OutcomeIgnored, memory.OutcomeRejected} {
		if counts[s] == 0 {
			t.Errorf("the workload produced no %s outcome: %v", s, counts)
		}
	}
	before, _ := h.db.DumpState(context.Background())
	r, err := h.db.Replay(context.Background(), store.Project)
	if err != nil || r.Failed != 0 {
		t.Fatalf("replay = %+v, %v", r, err)
	}
	if after, _ := h.db.DumpState(context.Background()); after != before {
		t.Fatal("replay changed the state")
	}
	if strings.Count(before, "\n") < 50 {
		t.Fatalf("the workload left little state:\n%s", before)
	}
}

// workload generates n notes over a small world of subjects so that notes
// refer back to earlier ones: new issues, fixes (exact, vague and
// ambiguous), decisions and their reversal, constraints, plans, task
// states, results, learnings, duplicates, rule breaks and noise.
func workload(rng *rand.Rand, n int) []string {
	subjects := []string{"pandas import", "flaky auth test", "flaky billing test", "redis timeout", "disk full on runner",
		"slow report query", "slow export query", "stale cache entries", "broken login redirect", "missing staging credentials"}
	forms := []func(s string, i int) string{
		func(s string, i int) string { return "issue: " + s + " fails" },
		func(s string, i int) string { return "blocker: " + s },
		func(s string, i int) string { return "fixed: " + s },
		func(s string, i int) string { return "The " + s + " is fixed." },
		func(s string, i int) string { return "The earlier blocker is resolved." },
		func(s string, i int) string { return "decision: handle " + s + " in the worker" },
		func(s string, i int) string { return "reverted decision: handle " + s + " in the worker" },
		func(s string, i int) string { return "constraint: never touch " + s + " on Fridays" },
		func(s string, i int) string { return fmt.Sprintf("plan: fix %s first, then ship v%d", s, i%3) },
		func(s string, i int) string {
			return fmt.Sprintf("task T-%d: %s", i%7, []string{"running", "blocked", "done"}[i%3])
		},
		func(s string, i int) string { return fmt.Sprintf("result: %s takes %dms", s, 10+i%5) },
		func(s string, i int) string { return "learned: " + s + " needs a retry" },
		func(s string, i int) string { return "[gossip/append] " + s },
		func(s string, i int) string { return "let me look at " + s },
		func(s string, i int) string { return "Is " + s + " fixed?" },
	}
	out := make([]string, n)
	for i := range out {
		out[i] = forms[rng.IntN(len(forms))](subjects[rng.IntN(len(subjects))], i)
	}
	return out
}

// TestConcurrentPassReportsTheStoredOutcome: when another pass promotes a
// note between this pass reading it and judging it, this pass reports what
// the other decided, and does not promote it again.
func TestConcurrentPassReportsTheStoredOutcome(t *testing.T) {
	h := newHarness(t)
	h.note(agent, memory.NoteWrite{Text: "issue: disk_full: runner disk is full"}, false)
	interpret := h.p.Interpret
	h.p.Interpret = func(ctx context.Context, n memory.Note, c memory.StateContext) promotion.Interpretation {
		other := promotion.New(h.db, "run1") // the other pass, in the same run
		if rep, err := other.Promote(as(agent), 0); err != nil || len(rep.Outcomes) != 1 {
			t.Fatalf("other pass: %+v, %v", rep, err)
		}
		return interpret(ctx, n, c)
	}
	h.promote(agent)
	if len(h.outs) != 1 || h.outs[0].Status != memory.OutcomeCommitted || h.outs[0].TargetID != "disk_full" || h.outs[0].EventID == "" {
		t.Fatalf("outcome = %+v", h.outs)
	}
	if evs, _ := h.db.Events(context.Background(), 0, 10); len(evs) != 1 {
		t.Fatalf("the note was promoted twice: %+v", evs)
	}
}

// TestAutonomyFollowsTheNote: a note records its author's autonomy, and so
// does every ledger event and pending item made from it, whoever's call
// commits it: a retry triggered by another agent, or a curator's bind.
func TestAutonomyFollowsTheNote(t *testing.T) {
	h := newHarness(t)
	full := memory.Identity{AgentID: "fay", Seniority: memory.SenioritySenior, Autonomy: memory.AutonomyFull}
	h.note(agent, memory.NoteWrite{Text: "issue: flaky test in the auth module"}, true)
	h.note(agent, memory.NoteWrite{Text: "issue: flaky test in the billing module"}, true)
	h.note(agent, memory.NoteWrite{Text: "issue: pandas_import: pandas fails to import"}, false)
	n, err := h.p.WriteNote(as(full), memory.NoteWrite{Text: "fixed: pandas_import"})
	if err != nil || n.Autonomy != memory.AutonomyFull {
		t.Fatalf("note = %+v, %v", n, err)
	}
	h.note(full, memory.NoteWrite{Text: "The flaky login test is fixed."}, true)
	pending, _, _ := h.db.ListPending(context.Background(), false, 10)
	if len(pending) != 2 || pending[0].Autonomy != memory.AutonomyFull || pending[1].Autonomy != memory.AutonomyFull {
		t.Fatalf("pending = %+v", pending)
	}
	// agent (semi) promotes its issue note; the retry its commit runs commits
	// fay's fix, as fay's. A curator binds fay's other note.
	h.promote(agent)
	if len(h.retried) == 0 || h.retried[0].Status != memory.OutcomeCommitted {
		t.Fatalf("retried = %+v", h.retried)
	}
	if _, err := h.p.ResolvePending(as(curator), memory.PendingDecision{PendingID: pending[1].ID, TargetID: "flaky_test_in_auth_module"}); err != nil {
		t.Fatal(err)
	}
	evs, _ := h.db.Events(context.Background(), 0, 100)
	want := map[string]memory.Autonomy{"flaky_test_in_auth_module/upsert": memory.AutonomySemi, "flaky_test_in_billing_module/upsert": memory.AutonomySemi,
		"pandas_import/upsert": memory.AutonomySemi, "pandas_import/resolve": memory.AutonomyFull, "flaky_test_in_auth_module/resolve": memory.AutonomyFull}
	for _, ev := range evs {
		key := ev.TargetID + "/" + string(ev.Operation)
		if w, ok := want[key]; !ok || ev.Autonomy != w {
			t.Errorf("event %s by %s: autonomy %q, want %q", key, ev.Agent, ev.Autonomy, w)
		}
		delete(want, key)
	}
	if len(want) != 0 {
		t.Fatalf("events missing: %v", want)
	}
	// A human's note records no autonomy: autonomy is an agent's.
	if n, err := h.p.WriteNote(as(curator), memory.NoteWrite{Text: "learned: pin pandas"}); err != nil || n.Autonomy != "" {
		t.Fatalf("human note = %+v, %v", n, err)
	}
	rep, err := h.db.Replay(context.Background(), store.Project)
	if err != nil || len(rep.Flipped) != 0 {
		t.Fatalf("replay = %+v, %v", rep, err)
	}
	again, _ := h.db.Events(context.Background(), 0, 100)
	for i := range again {
		if again[i].Autonomy != evs[i].Autonomy {
			t.Fatalf("replay changed event %d's autonomy: %q -> %q", i, evs[i].Autonomy, again[i].Autonomy)
		}
	}
}
