package store_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// gated returns a call of remember by who with an approval request of
// kind, and the context that carries it.
func gated(who memory.Identity, key string, kind memory.ApprovalKind, expires time.Time) (*store.Call, context.Context) {
	c := &store.Call{Principal: who.Principal(), Tool: "remember", Key: key, ArgsHash: "h", KeyTTL: time.Hour,
		Started: expires.Add(-time.Hour), Gates: map[string]time.Duration{},
		Approval: &store.ApprovalRequest{Kind: kind, Tier: memory.RiskHigh, Rule: "remember", Caller: who,
			Args: []byte(`{"content":"x"}`), Expires: expires}}
	return c, store.WithCall(as(who), c)
}

func activeMemories(t *testing.T, mem *store.MemoryService, who memory.Identity) int {
	t.Helper()
	st, err := mem.Stats(as(who), "")
	if err != nil {
		t.Fatal(err)
	}
	return st.Total.Active
}

func TestHeldWriteLeavesOnlyItsRequest(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		mem := store.NewMemoryService(db, nil)
		call, ctx := gated(senior, "k", memory.ApprovalHold, clk.Peek().Add(time.Hour))
		_, err := mem.Remember(ctx, memory.EntryWrite{Content: "The deploy window is Friday."})
		if !errors.Is(err, store.ErrHeld) {
			t.Fatalf("remember under a hold = %v, want ErrHeld", err)
		}
		id, held := call.Held()
		if !held || id == "" || !call.Committed() {
			t.Fatalf("held %v, id %q, committed %v", held, id, call.Committed())
		}
		if n := activeMemories(t, mem, senior); n != 0 {
			t.Fatalf("a held write left %d memories", n)
		}
		// Every later write of the call is refused too.
		if _, err := mem.Remember(ctx, memory.EntryWrite{Content: "Another."}); !errors.Is(err, store.ErrHeld) {
			t.Fatalf("a second write of a held call = %v", err)
		}
		a, err := db.Approval(context.Background(), id)
		if err != nil || a.Status != memory.ApprovalPending || a.Caller != senior || a.IdempotencyKey != "k" || a.Tool != "remember" {
			t.Fatalf("request = %+v, %v", a, err)
		}
		// The key is taken (the call's line says held), with no result yet.
		rec, ok, err := db.LookupKey(context.Background(), senior.Principal(), "k")
		if err != nil || !ok || rec.Result != nil {
			t.Fatalf("key = %+v %v %v", rec, ok, err)
		}
		log, err := db.WriteLog(context.Background(), time.Time{}, "")
		if err != nil || len(log) != 1 || log[0].Outcome != memory.WriteOutcomeHeld || log[0].Ref != id {
			t.Fatalf("write log = %+v, %v", log, err)
		}
	})
}

func TestReviewIsWrittenWithTheWrite(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		mem := store.NewMemoryService(db, nil)
		call, ctx := gated(senior, "", memory.ApprovalReview, clk.Peek())
		r, err := mem.Remember(ctx, memory.EntryWrite{Content: "The deploy window is Friday."})
		if err != nil {
			t.Fatal(err)
		}
		id := call.Queued()
		a, err := db.Approval(context.Background(), id)
		if err != nil || a.Kind != memory.ApprovalReview || a.Ref != r.ID || a.ExpiresAt != nil {
			t.Fatalf("review = %+v, %v", a, err)
		}
		// A verdict on a review changes nothing but the request.
		d, err := db.RecordVerdict(context.Background(), store.Verdict{ID: id, By: human.Principal(), Reason: "vague"})
		if err != nil || d.Status != memory.ApprovalRejected || d.DecidedBy != human.Principal() {
			t.Fatalf("verdict = %+v, %v", d, err)
		}
		if n := activeMemories(t, mem, senior); n != 1 {
			t.Fatalf("a rejected review left %d memories, want 1", n)
		}
		if _, err := db.RecordVerdict(context.Background(), store.Verdict{ID: id, By: human.Principal(), Approve: true, Reason: "ok"}); memory.ErrorCode(err) != memory.ECONFLICT {
			t.Fatalf("a second verdict = %v", err)
		}
	})
}

func TestApprovalIsClaimedOnce(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		mem := store.NewMemoryService(db, nil)
		call, ctx := gated(senior, "", memory.ApprovalHold, clk.Peek().Add(time.Hour))
		mem.Remember(ctx, memory.EntryWrite{Content: "The deploy window is Friday."})
		id, _ := call.Held()
		apply := func() error {
			c := &store.Call{Principal: senior.Principal(), Tool: "remember", Started: clk.Peek(),
				Applies: &store.Verdict{ID: id, By: human.Principal(), Approve: true, Reason: "yes"}}
			_, err := mem.Remember(store.WithCall(as(senior), c), memory.EntryWrite{Content: "The deploy window is Friday."})
			return err
		}
		if err := apply(); err != nil {
			t.Fatal(err)
		}
		if err := apply(); !errors.Is(err, store.ErrDecided) {
			t.Fatalf("applying twice = %v, want ErrDecided", err)
		}
		if n := activeMemories(t, mem, senior); n != 1 {
			t.Fatalf("%d memories, want the one applied", n)
		}
		if a, _ := db.Approval(context.Background(), id); a.Status != memory.ApprovalApproved || a.DecidedBy != human.Principal() {
			t.Fatalf("request = %+v", a)
		}
	})
}

func TestExpiredHoldCannotBeApplied(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		mem := store.NewMemoryService(db, nil)
		call, ctx := gated(senior, "k", memory.ApprovalHold, clk.Peek().Add(time.Hour))
		mem.Remember(ctx, memory.EntryWrite{Content: "The deploy window is Friday."})
		id, _ := call.Held()
		// As the gates end a held call: its answer under its key, kept past the deadline.
		if err := db.FinishCall(context.Background(), call, store.Ending{Outcome: memory.WriteOutcomeHeld, Err: store.ErrHeld}); err != nil {
			t.Fatal(err)
		}
		if rec, _, _ := db.LookupKey(context.Background(), senior.Principal(), "k"); rec.Err == nil || rec.Err.Code != memory.EHELD {
			t.Fatalf("a repeat of the held call gets %+v", rec.Err)
		}
		if n, err := db.ExpireApprovals(context.Background()); err != nil || n != 0 {
			t.Fatalf("expired before the deadline: %d, %v", n, err)
		}
		clk.Advance(time.Hour)
		if a, _ := db.Approval(context.Background(), id); a.Status != memory.ApprovalExpired {
			t.Fatalf("past its deadline the request reads %s", a.Status)
		}
		c := &store.Call{Principal: senior.Principal(), Tool: "remember", Started: clk.Peek(),
			Applies: &store.Verdict{ID: id, By: human.Principal(), Approve: true, Reason: "late"}}
		if _, err := mem.Remember(store.WithCall(as(senior), c), memory.EntryWrite{Content: "The deploy window is Friday."}); !errors.Is(err, store.ErrDecided) {
			t.Fatalf("applying an expired hold = %v", err)
		}
		if n, err := db.ExpireApprovals(context.Background()); err != nil || n != 1 {
			t.Fatalf("expired %d, %v", n, err)
		}
		rec, _, _ := db.LookupKey(context.Background(), senior.Principal(), "k")
		if rec.Err == nil || rec.Err.Code != memory.ECONFLICT {
			t.Fatalf("a repeat of the expired call gets %+v", rec.Err)
		}
		if n := activeMemories(t, mem, senior); n != 0 {
			t.Fatalf("%d memories, want none", n)
		}
	})
}

// TestHeldCallOnBothEngines holds the approval queue, the idempotency keys
// and the write log to the same rules on either engine, through a write
// that runs on both (publish_fact): a held call leaves only its request,
// and its repeat is told it is held for as long as a decision may come;
// applied, it writes once, and a second apply is refused; an expired hold
// cannot be applied, and its repeat is told so.
func TestHeldCallOnBothEngines(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		ctx := context.Background()
		facts := store.NewFactService(db)
		write := func(id string) memory.FactWrite {
			return memory.FactWrite{FactID: id, Content: "Deploys wait for " + id + ".", Category: memory.FactConvention}
		}
		hold := func(key, id string) string {
			t.Helper()
			call, cctx := gated(senior, key, memory.ApprovalHold, clk.Peek().Add(time.Hour))
			call.Tool = "publish_fact"
			if _, err := facts.Publish(cctx, write(id)); !errors.Is(err, store.ErrHeld) {
				t.Fatalf("publish under a hold = %v, want ErrHeld", err)
			}
			apr, held := call.Held()
			if !held || apr == "" {
				t.Fatalf("held = %v, request %q", held, apr)
			}
			// As the gates end a held call: its answer under its key.
			if err := db.FinishCall(ctx, call, store.Ending{Outcome: memory.WriteOutcomeHeld, Err: store.ErrHeld}); err != nil {
				t.Fatal(err)
			}
			return apr
		}
		unwritten := func(id string) {
			t.Helper()
			if f, err := facts.Get(as(senior), id); memory.ErrorCode(err) != memory.ENOTFOUND {
				t.Fatalf("fact %s = %+v, %v; want none", id, f, err)
			}
		}
		apply := func(apr, id string) error {
			c := &store.Call{Principal: senior.Principal(), Tool: "publish_fact", Started: clk.Peek(),
				Applies: &store.Verdict{ID: apr, By: human.Principal(), Approve: true, Reason: "yes"}}
			_, err := facts.Publish(store.WithCall(as(senior), c), write(id))
			return err
		}

		first := hold("k1", "review")
		unwritten("review")
		if rec, _, _ := db.LookupKey(ctx, senior.Principal(), "k1"); rec.Err == nil || rec.Err.Code != memory.EHELD {
			t.Fatalf("a repeat of the held call gets %+v", rec.Err)
		}
		log, err := db.WriteLog(ctx, time.Time{}, "")
		if err != nil || len(log) != 1 || log[0].Outcome != memory.WriteOutcomeHeld || log[0].Ref != first || log[0].Tool != "publish_fact" {
			t.Fatalf("write log = %+v, %v", log, err)
		}
		if err := apply(first, "review"); err != nil {
			t.Fatal(err)
		}
		if err := apply(first, "review"); !errors.Is(err, store.ErrDecided) {
			t.Fatalf("applying twice = %v, want ErrDecided", err)
		}
		if f, err := facts.Get(as(senior), "review"); err != nil || f.Version != 1 {
			t.Fatalf("the applied fact = %+v, %v", f, err)
		}
		if a, _ := db.Approval(ctx, first); a.Status != memory.ApprovalApproved || a.DecidedBy != human.Principal() {
			t.Fatalf("request = %+v", a)
		}

		second := hold("k2", "freeze")
		if n, err := db.ExpireApprovals(ctx); err != nil || n != 0 {
			t.Fatalf("expired before the deadline: %d, %v", n, err)
		}
		clk.Advance(time.Hour)
		if a, _ := db.Approval(ctx, second); a.Status != memory.ApprovalExpired {
			t.Fatalf("past its deadline the request reads %s", a.Status)
		}
		if err := apply(second, "freeze"); !errors.Is(err, store.ErrDecided) {
			t.Fatalf("applying an expired hold = %v", err)
		}
		if n, err := db.ExpireApprovals(ctx); err != nil || n != 1 {
			t.Fatalf("expired %d, %v", n, err)
		}
		if rec, _, _ := db.LookupKey(ctx, senior.Principal(), "k2"); rec.Err == nil || rec.Err.Code != memory.ECONFLICT {
			t.Fatalf("a repeat of the expired call gets %+v", rec.Err)
		}
		unwritten("freeze")
	})
}

// TestWriteLogOnBothEngines: each gated call's line in the write log, its
// key's result, the log read per caller, and the pruning of lines older
// than 90 days, on either engine.
func TestWriteLogOnBothEngines(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		ctx := context.Background()
		facts := store.NewFactService(db)
		publish := func(who memory.Identity, key, id string) {
			t.Helper()
			call := &store.Call{Principal: who.Principal(), Tool: "publish_fact", Key: key, ArgsHash: "h" + id, KeyTTL: time.Hour,
				Started: clk.Peek(), Gates: map[string]time.Duration{"limits": time.Millisecond}}
			if _, err := facts.Publish(store.WithCall(as(who), call), memory.FactWrite{FactID: id, Content: "Rule " + id + ".",
				Category: memory.FactConvention}); err != nil {
				t.Fatal(err)
			}
			if err := db.FinishCall(ctx, call, store.Ending{Result: []byte(`{"fact_id":"` + id + `"}`), Text: "published " + id}); err != nil {
				t.Fatal(err)
			}
		}
		publish(human, "old", "old") // the log's first line, then 91 days pass
		clk.Advance(91 * 24 * time.Hour)
		start := clk.Peek()
		for i := range 64 { // the 64th line after the first prunes what is older than 90 days
			who := senior
			if i%4 == 0 {
				who = human
			}
			publish(who, "k"+strconv.Itoa(i), "f"+strconv.Itoa(i))
		}
		all, err := db.WriteLog(ctx, time.Time{}, "")
		if err != nil || len(all) != 64 {
			t.Fatalf("write log after pruning: %d lines, %v; want the 64 recent ones", len(all), err)
		}
		for _, r := range all {
			if r.At.Before(start) || r.Tool != "publish_fact" || r.Outcome != memory.WriteOutcomeStored || r.Gates["limits"] != time.Millisecond {
				t.Fatalf("line %+v", r)
			}
		}
		mine, err := db.WriteLog(ctx, start, human.Principal())
		if err != nil || len(mine) != 16 {
			t.Fatalf("the human's lines: %d, %v; want 16", len(mine), err)
		}
		rec, ok, err := db.LookupKey(ctx, senior.Principal(), "k1")
		if err != nil || !ok || rec.Err != nil || string(rec.Result) != `{"fact_id":"f1"}` || rec.Text != "published f1" {
			t.Fatalf("key k1 = %+v, %v, %v", rec, ok, err)
		}
		if _, ok, _ := db.LookupKey(ctx, senior.Principal(), "k0"); ok {
			t.Fatal("k0 was the human's key, not the senior agent's")
		}
	})
}

// TestLedgerReviewOnBothEngines: a review of what a call commits to the
// shared state is queued with the first transaction that appends ledger
// events, refers to the first of them, and lists every event the call
// appends, across its transactions; a transaction appending none queues
// nothing. On either engine.
func TestLedgerReviewOnBothEngines(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		call, appendEvents := ledgerReviewed(t, db, clk)
		appendEvents() // no event: no review
		if id := call.Queued(); id != "" {
			t.Fatalf("a transaction without events queued review %s", id)
		}
		first := appendEvents("the vendor answers mornings", "the vendor is closed Fridays")
		id := call.Queued()
		if id == "" {
			t.Fatal("no review queued")
		}
		later := appendEvents("the vendor's number changed")
		a, err := db.Approval(context.Background(), id)
		if err != nil || a.Kind != memory.ApprovalReview || a.Status != memory.ApprovalPending || a.Ref != first[0].EventID {
			t.Fatalf("review = %+v, %v", a, err)
		}
		var got []int64
		for _, w := range a.Wrote {
			got = append(got, w.Seq)
		}
		if want := []int64{first[0].Seq, first[1].Seq, later[0].Seq}; !slices.Equal(got, want) || a.Wrote[2].RawInput != "learned: the vendor's number changed" {
			t.Fatalf("review lists %v (%+v), want the events %v", got, a.Wrote, want)
		}
	})
}

// ledgerReviewed returns a write_note call whose review is of the ledger
// events it commits, and appendEvents, which appends one event per text in
// one of its write transactions and returns them.
func ledgerReviewed(t *testing.T, db *store.DB, clk *storetest.Clock) (*store.Call, func(texts ...string) []memory.Event) {
	call := &store.Call{Principal: senior.Principal(), Tool: "write_note", Started: clk.Peek(), Gates: map[string]time.Duration{},
		Approval: &store.ApprovalRequest{Kind: memory.ApprovalReview, OnLedger: true, Tier: memory.RiskHigh, Rule: "promote",
			Caller: senior, Args: []byte(`{"text":"x"}`)}}
	ctx := store.WithCall(as(senior), call)
	return call, func(texts ...string) []memory.Event {
		t.Helper()
		var evs []memory.Event
		err := db.Update(ctx, func(tx *store.Tx) error {
			evs = nil
			for _, text := range texts {
				ev := memory.Event{Bucket: memory.BucketLearnings, Operation: memory.OpAppend, Payload: memory.Payload{Text: text},
					RawInput: "learned: " + text, Agent: senior.AgentID, Run: "r", CreatedAt: db.Now()}
				if err := tx.AppendEvent(ctx, &ev, store.Project); err != nil {
					return err
				}
				evs = append(evs, ev)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return evs
	}
}
