package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// These tests force PostgreSQL to run a gated write's transaction again
// (failFirstCommit) and hold what the call keeps of it to the run that
// committed: its approval, its review's ledger events, its write log line,
// its idempotency key.

// logLines returns the write log, failing t on an error.
func logLines(t *testing.T, db *store.DB) []memory.WriteRecord {
	t.Helper()
	lines, err := db.WriteLog(context.Background(), time.Time{}, "")
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// A review of the ledger events a call commits, whose transactions each ran
// twice: the request the first run inserted went with its rollback, so the
// run again inserts it, and each event is listed once.
func TestLedgerReviewRunAgain(t *testing.T) {
	db, clk := openPostgresDB(t)
	call, appendEvents := ledgerReviewed(t, db, clk)
	commits := failFirstCommit(t, db, "approvals")
	first := appendEvents("the vendor answers mornings", "the vendor is closed Fridays")
	if n := commits(); n != 2 {
		t.Fatalf("the trigger saw %d commits, want 2: the failed one and the one run again", n)
	}
	id := call.Queued()
	if id == "" {
		t.Fatal("no review queued")
	}
	commits = failFirstCommit(t, db, "events_memory")
	later := appendEvents("the vendor's number changed")
	if n := commits(); n != 2 {
		t.Fatalf("the trigger saw %d event commits, want 2", n)
	}
	a, err := db.Approval(context.Background(), id)
	if err != nil || a.Kind != memory.ApprovalReview || a.Status != memory.ApprovalPending || a.Ref != first[0].EventID {
		t.Fatalf("review %s = %+v, %v; want the pending review of %s", id, a, err, first[0].EventID)
	}
	var got []int64
	for _, w := range a.Wrote {
		got = append(got, w.Seq)
	}
	if want := []int64{first[0].Seq, first[1].Seq, later[0].Seq}; !slices.Equal(got, want) {
		t.Fatalf("review lists %v, want the events committed %v", got, want)
	}
}

// A held write and a reviewed one, each run twice: the request the call
// answers with is the one stored, and its one log line names it.
func TestApprovalRunAgain(t *testing.T) {
	for _, kind := range []memory.ApprovalKind{memory.ApprovalHold, memory.ApprovalReview} {
		t.Run(string(kind), func(t *testing.T) {
			db, clk := openPostgresDB(t)
			mem := store.NewMemoryService(db, nil)
			call, ctx := gated(senior, "k", kind, clk.Peek().Add(time.Hour))
			commits := failFirstCommit(t, db, "write_log")
			_, err := mem.Remember(ctx, memory.EntryWrite{Content: "The deploy window is Friday."})
			if n := commits(); n != 2 {
				t.Fatalf("the trigger saw %d commits, want 2", n)
			}
			id, held := call.Held()
			if kind == memory.ApprovalHold {
				if !errors.Is(err, store.ErrHeld) || !held {
					t.Fatalf("held write = %v (held %v), want ErrHeld", err, held)
				}
				if err := db.FinishCall(context.Background(), call, store.Ending{Outcome: memory.WriteOutcomeHeld, Err: store.ErrHeld}); err != nil {
					t.Fatal(err)
				}
			} else if err != nil || held || call.Queued() != id {
				t.Fatalf("reviewed write = %v (held %v, queued %q of %q)", err, held, call.Queued(), id)
			}
			a, err := db.Approval(context.Background(), id)
			if err != nil || a.Kind != kind || a.Status != memory.ApprovalPending {
				t.Fatalf("request %q = %+v, %v; want it pending", id, a, err)
			}
			lines := logLines(t, db)
			if len(lines) != 1 {
				t.Fatalf("write log %+v, want one line", lines)
			}
			if kind == memory.ApprovalHold && (lines[0].Outcome != memory.WriteOutcomeHeld || lines[0].Ref != id) {
				t.Fatalf("the line %+v, want held as %s", lines[0], id)
			}
			if rec, ok, err := db.LookupKey(context.Background(), senior.Principal(), "k"); err != nil || !ok ||
				(kind == memory.ApprovalHold && (rec.Err == nil || rec.Err.Code != memory.EHELD)) {
				t.Fatalf("key = %+v, %v, %v", rec, ok, err)
			}
		})
	}
}

// A keyed call whose first write ran twice: its key replays the result the
// call finished with, and one that failed after writing marks its one log
// line rejected (the line of the run that committed, not of the one gone).
func TestKeyedCallRunAgain(t *testing.T) {
	db, clk := openPostgresDB(t)
	mem := store.NewMemoryService(db, nil)
	ctx := context.Background()
	keyed := func(key, content string) *store.Call {
		t.Helper()
		call := &store.Call{Principal: senior.Principal(), Tool: "remember", Key: key, ArgsHash: "h" + key, KeyTTL: time.Hour,
			Started: clk.Peek(), Gates: map[string]time.Duration{}}
		e, err := mem.Remember(store.WithCall(as(senior), call), memory.EntryWrite{Content: content})
		if err != nil {
			t.Fatal(err)
		}
		if call.Ref != e.ID || !call.Committed() {
			t.Fatalf("call ref %q, committed %v; want %s", call.Ref, call.Committed(), e.ID)
		}
		return call
	}
	commits := failFirstCommit(t, db, "idempotency_keys")
	ok := keyed("k1", "The deploy window is Friday.")
	if n := commits(); n != 2 {
		t.Fatalf("the trigger saw %d commits, want 2", n)
	}
	if err := db.FinishCall(ctx, ok, store.Ending{Result: []byte(`{"id":"` + ok.Ref + `"}`), Text: "stored"}); err != nil {
		t.Fatal(err)
	}
	rec, found, err := db.LookupKey(ctx, senior.Principal(), "k1")
	if err != nil || !found || string(rec.Result) != `{"id":"`+ok.Ref+`"}` || rec.Ref != ok.Ref {
		t.Fatalf("key k1 = %+v, %v, %v", rec, found, err)
	}

	if _, err := db.SQL().Exec(`ALTER SEQUENCE test_commits_idempotency_keys RESTART`); err != nil {
		t.Fatal(err)
	}
	failed := keyed("k2", "The office closes at six.")
	if err := db.FinishCall(ctx, failed, store.Ending{Gate: "service", Err: memory.Errorf(memory.EINVALID, "failed after writing")}); err != nil {
		t.Fatal(err)
	}
	lines := logLines(t, db)
	if len(lines) != 2 || lines[0].Outcome != memory.WriteOutcomeStored || lines[1].Outcome != memory.WriteOutcomeRejected ||
		lines[1].Reason != memory.EINVALID || lines[1].Ref != failed.Ref {
		t.Fatalf("write log %+v, want k1 stored and k2 rejected", lines)
	}
	if rec, _, _ := db.LookupKey(ctx, senior.Principal(), "k2"); rec.Err == nil || rec.Err.Code != memory.EINVALID {
		t.Fatalf("a repeat of k2 gets %+v", rec.Err)
	}
}

// A publish whose first run found the fact unchanged, run again after
// another writer changed it: the answer is the version the run again
// stored, not the rolled-back run's unchanged.
func TestPublishRunAgain(t *testing.T) {
	db, clk := openPostgresDB(t)
	facts := store.NewFactService(db)
	write := func(content string) memory.FactWrite {
		return memory.FactWrite{FactID: "deploys", Content: content, Category: memory.FactConvention}
	}
	if _, err := facts.Publish(as(senior), write("Deploys wait for a review.")); err != nil {
		t.Fatal(err)
	}
	failFirstCommit(t, db, "write_log")
	db.BeforeRerun(func() {
		if _, err := facts.Publish(as(human), write("Deploys wait for two reviews.")); err != nil {
			t.Error(err)
		}
	})
	call := &store.Call{Principal: senior.Principal(), Tool: "publish_fact", Started: clk.Peek(), Gates: map[string]time.Duration{}}
	got, err := facts.Publish(store.WithCall(as(senior), call), write("Deploys wait for a review."))
	if err != nil || got.Outcome != memory.WriteOutcomeStored || got.Fact.Version != 3 || call.Outcome != "" {
		t.Fatalf("publish run again = %s v%d (call %q), %v; want version 3 stored", got.Outcome, got.Fact.Version, call.Outcome, err)
	}
	if lines := logLines(t, db); len(lines) != 1 || lines[0].Outcome != memory.WriteOutcomeStored {
		t.Fatalf("write log %+v, want one line, stored", lines)
	}
}

// A held write whose first run found a duplicate (nothing to hold), run
// again after the duplicate was forgotten: the run again stores, so it is
// held, as the call's tier says; the rolled-back run's dropping of the hold
// went with it.
func TestHeldDuplicateRunAgain(t *testing.T) {
	db, clk := openPostgresDB(t)
	mem := store.NewMemoryService(db, nil)
	first := remember(t, mem, senior, memory.EntryWrite{Content: "The deploy window is Friday."})
	commits := failFirstCommit(t, db, "write_log")
	db.BeforeRerun(func() {
		if _, err := mem.Forget(as(senior), first.ID, "wrong"); err != nil {
			t.Error(err)
		}
	})
	call, ctx := gated(senior, "", memory.ApprovalHold, clk.Peek().Add(time.Hour))
	_, err := mem.Remember(ctx, memory.EntryWrite{Content: "The deploy window is Friday."})
	if n := commits(); n != 2 {
		t.Fatalf("the trigger saw %d commits, want 2", n)
	}
	id, held := call.Held()
	if !errors.Is(err, store.ErrHeld) || !held || id == "" {
		t.Fatalf("remember run again = %v (held %v, request %q), want it held", err, held, id)
	}
	if n := activeMemories(t, mem, senior); n != 0 {
		t.Fatalf("%d active memories, want none: the write waits for a human", n)
	}
}
