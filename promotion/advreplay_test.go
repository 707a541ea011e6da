package promotion_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// TestAdvReplayAfterFailedProjection (from the review): a resolve whose
// projection fails, then the same resolve again. The second must wait (its
// target has an unapplied event), so that replay, which applies the first,
// never fails on the second, and replaying again changes nothing.
func TestAdvReplayAfterFailedProjection(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	h.note(agent, memory.NoteWrite{Text: "issue: db_timeout: database calls time out"}, true)
	fail := true
	h.p.Project = func(ctx context.Context, tx *store.Tx, ev *memory.Event) error {
		if fail && ev.Operation == memory.OpResolve {
			return errors.New("transient projector failure")
		}
		return store.Project(ctx, tx, ev)
	}
	h.note(agent, memory.NoteWrite{Text: "fixed: db_timeout"}, true)
	fail = false
	h.note(agent, memory.NoteWrite{Text: "fixed: db_timeout pinned driver"}, true)
	if o := h.outs[2]; o.Status != memory.OutcomePending || !strings.Contains(o.Reason, "is recorded but not applied (transient projector failure)") {
		t.Fatalf("a write on top of an unapplied event: %s", o.Summary())
	}
	// Other targets are not held up.
	h.note(agent, memory.NoteWrite{Text: "issue: disk_full: runner disk is full"}, true)
	if o := h.outs[3]; o.Status != memory.OutcomeCommitted || !o.Applied {
		t.Fatalf("another target: %s", o.Summary())
	}
	rep, err := h.db.Replay(ctx, store.Project)
	if err != nil || rep.Failed != 0 || rep.Applied != 3 || len(rep.Flipped) != 1 || rep.Flipped[0].Operation != memory.OpResolve {
		t.Fatalf("replay %+v err=%v", rep, err)
	}
	if r := h.rows(memory.BucketIssues); r[0].ID != "db_timeout" && r[1].ID != "db_timeout" {
		t.Fatalf("rows = %+v", r)
	}
	state, _ := h.db.DumpState(ctx)
	if !strings.Contains(state, "db_timeout | database calls time out | database calls time out | resolved") {
		t.Fatalf("replay did not apply the failed resolve:\n%s", state)
	}
	rep, err = h.db.Replay(ctx, store.Project)
	again, _ := h.db.DumpState(ctx)
	if err != nil || rep.Failed != 0 || len(rep.Flipped) != 0 || again != state {
		t.Fatalf("second replay %+v err=%v changed the state: %v", rep, err, again != state)
	}
	// The waiting write is retried when its bucket next changes: the issue is
	// resolved by now, so it leaves the queue as a duplicate.
	h.retried = nil
	h.note(agent, memory.NoteWrite{Text: "issue: cache_cold: cache is cold after deploys"}, true)
	if len(h.retried) != 1 || h.retried[0].Status != memory.OutcomeIgnored || !strings.Contains(h.retried[0].Reason, "already resolved") {
		t.Fatalf("retry = %+v", h.retried)
	}
}
