package consolidation_test

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

// other opens the fixture's database a second time, as another process
// would, on the fixture's clock.
func (f *fixture) other() *store.DB {
	f.t.Helper()
	return f.open()
}

func take(t testing.TB, db *store.DB, holder string) store.Lease {
	t.Helper()
	var l store.Lease
	var ok bool
	err := db.Update(context.Background(), func(tx *store.Tx) (err error) {
		l, ok, err = tx.AcquireLease(context.Background(), store.LeaseMaintenance, holder, time.Hour)
		return err
	})
	if err != nil || !ok {
		t.Fatalf("take the lease: %+v %v %v", l, ok, err)
	}
	return l
}

// TestRunSkipsWhileLeaseHeld: while another process holds the maintenance
// lease a run writes nothing and says who holds it until when; a dry run,
// which writes nothing, still answers; once released, the run goes ahead.
func TestRunSkipsWhileLeaseHeld(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		f := newFixture(t)
		writeTopics(f, ann)
		f.clk.Advance(48 * time.Hour)
		other := f.other()
		l := take(t, other, "memory-mcp consolidate, pid 4242 on elsewhere")
		before := f.changes()
		rep, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
		if err != nil || len(rep.Groups) != 0 || rep.AgentID != "ann" {
			t.Fatalf("run while held: %+v %v", rep, err)
		}
		if !strings.Contains(rep.Skipped, "pid 4242 on elsewhere") || !strings.Contains(rep.Skipped, l.ExpiresAt.Format(time.RFC3339)) {
			t.Fatalf("skipped = %q, want the holder and until when", rep.Skipped)
		}
		if f.changes() != before {
			t.Fatal("a skipped run wrote")
		}
		if dry, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{DryRun: true}); err != nil || len(dry.Groups) != 2 || dry.Skipped != "" {
			t.Fatalf("dry run while held: %+v %v", dry, err)
		}
		if err := other.Update(context.Background(), func(tx *store.Tx) error { return tx.ReleaseLease(context.Background(), l) }); err != nil {
			t.Fatal(err)
		}
		if rep, err = f.svc.Consolidate(as(ann), memory.ConsolidationRequest{}); err != nil || len(rep.Groups) != 2 || rep.Skipped != "" {
			t.Fatalf("run after release: %+v %v", rep, err)
		}
		// The run released the lease when it ended.
		take(t, other, "next")
	})
}

// TestRunStopsWhenLeaseTakenOver: a run that stalls past its lease (here:
// the clock jumps while it works) and is taken over by another process
// stops at its next write with a clear error; what it stored stays, the
// rest stays active for a later run.
func TestRunStopsWhenLeaseTakenOver(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		f := newFixture(t)
		for day := range 3 {
			for i := range 3 {
				f.remember(ann, memory.EntryWrite{Content: fmt.Sprintf("Day %d: watered the garden tomatoes, round %d.", day, i)})
			}
			f.clk.Advance(30 * time.Hour) // a group per day
		}
		f.clk.Advance(48 * time.Hour)
		other := f.other()
		f.svc.Config.Lease = time.Minute
		f.svc.Holder = "the stalled run"
		f.svc.Progress = func(done, total int) {
			if done == 1 {
				f.clk.Advance(2 * time.Minute)
				take(t, other, "the run that took over")
			}
		}
		rep, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
		var lost *store.LeaseLostError
		if !errors.As(err, &lost) || !isCode(err, memory.ECONFLICT) || !strings.Contains(err.Error(), "the run that took over") {
			t.Fatalf("err = %v, want the lease lost", err)
		}
		if len(rep.Groups) != 1 || rep.Groups[0].SummaryID == "" {
			t.Fatalf("report = %+v, want the one group stored before the takeover", rep)
		}
		stats, err := f.mem.Stats(as(ann), "")
		if err != nil || stats.Total.Consolidated != 2 || stats.Total.Active != 8 {
			t.Fatalf("after the takeover: %+v %v, want 2 archived into 1 summary, 7 untouched", stats.Total, err)
		}
	})
}

// TestRunDue: an operator's scheduler pass runs every agent with memories,
// records the run, and passes over agents run within the interval,
// whichever process ran them (a run over part of an agent's memories does
// not count); while another run holds the lease it stops. An agent's
// process maintains only that agent. A summary's author is its agent,
// never the operator who ran it; the source says who.
func TestRunDue(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		f := newFixture(t)
		writeTopics(f, ann)
		writeTopics(f, bob)
		f.clk.Advance(48 * time.Hour)
		f.svc.Config.Interval = 24 * time.Hour
		// A run over part of ann's memories is not her maintenance.
		if _, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{Namespaces: []string{"elsewhere"}}); err != nil {
			t.Fatal(err)
		}
		// bob's own process maintains bob alone.
		own := f.svc.RunDue(context.Background(), bob)
		if len(own) != 1 || own[0].AgentID != "bob" || len(own[0].Groups) != 2 {
			t.Fatalf("bob's pass: %+v", own)
		}
		recalled, err := f.mem.Recall(as(bob), []string{own[0].Groups[0].SummaryID})
		if err != nil || recalled[0].Provenance.Author.AgentID != "bob" || recalled[0].Provenance.Author.Human ||
			recalled[0].Provenance.Author.Seniority != bob.Seniority {
			t.Fatalf("summary author: %+v %v, want bob", recalled[0].Provenance, err)
		}
		reps := f.svc.RunDue(context.Background(), human)
		if len(reps) != 1 || reps[0].AgentID != "ann" || len(reps[0].Groups) != 2 {
			t.Fatalf("the operator's pass: %+v", reps)
		}
		recalled, err = f.mem.Recall(as(ann), []string{reps[0].Groups[0].SummaryID})
		if a := recalled[0].Provenance.Author; err != nil || a.AgentID != "ann" || a.Human || a.Seniority != "" ||
			!strings.Contains(recalled[0].Source, `by human "maintenance"`) {
			t.Fatalf("summary of the operator's run: %+v (source %q) %v, want ann as author and the operator in the source",
				recalled[0].Provenance, recalled[0].Source, err)
		}
		if again := f.svc.RunDue(context.Background(), human); len(again) != 0 {
			t.Fatalf("a pass within the interval ran %+v", again)
		}
		f.clk.Advance(25 * time.Hour)
		take(t, f.other(), "someone else")
		if held := f.svc.RunDue(context.Background(), human); len(held) != 1 || !strings.Contains(held[0].Skipped, "someone else") {
			t.Fatalf("a pass while the lease is held: %+v", held)
		}
	})
}

// TestLeaseKeptWhileWaitingOnTheModel: a run waiting on a slow model keeps
// its lease between writes, so no other process takes it over (and the
// model's work is not thrown away).
func TestLeaseKeptWhileWaitingOnTheModel(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		f := newFixture(t)
		for _, c := range garden {
			f.remember(ann, memory.EntryWrite{Content: c})
		}
		f.db.Now = time.Now // the lease runs on the wall clock here
		release := make(chan struct{})
		srv := newFakeLLM(t, func(int, chat) answer {
			<-release
			return summary("The garden: tomatoes, basil, aphids.")
		})
		f.useLLM(srv, 10*time.Second)
		// Long enough that a renewal delayed by a loaded machine (a third of
		// the lease apart) still comes before the lease runs out.
		f.svc.Config.Lease = 1500 * time.Millisecond
		ran := make(chan error, 1)
		go func() {
			_, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
			ran <- err
		}()
		other := f.other()
		other.Now = time.Now
		peek := func() (store.Lease, bool) {
			var l store.Lease
			var ok bool
			if err := other.Update(context.Background(), func(tx *store.Tx) (err error) {
				l, ok, err = tx.AcquireLease(context.Background(), store.LeaseMaintenance, "a peek", time.Millisecond)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return l, ok
		}
		var first store.Lease
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			l, ok := peek()
			switch {
			case ok:
				close(release)
				t.Fatalf("another process took the lease of a run waiting on its model")
			case first.Token == 0 && l.Holder != "":
				first = l
			case l.Token == first.Token && l.ExpiresAt.After(first.ExpiresAt.Add(f.svc.Config.Lease)):
				// Renewed past where its first lease would have ended, with
				// no write of the run in between.
				close(release)
				if err := <-ran; err != nil {
					t.Fatal(err)
				}
				return
			}
			if time.Now().After(deadline) {
				close(release)
				t.Fatalf("the lease was not renewed while the run waited: %+v, first %+v", l, first)
			}
		}
	})
}
