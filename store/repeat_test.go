package store_test

import (
	"context"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// A pair the words tier answers "duplicate" (it folds articles and plural
// endings) that says two things: one pull request, or pull requests in
// general.
const (
	onePR = "Ann reviews the pull request."
	allPR = "Ann reviews pull requests."
)

func repeatsOf(t *testing.T, s *store.MemoryService, who memory.Identity, ids ...string) []memory.Repeat {
	t.Helper()
	reps, err := s.Repeats(as(who), memory.RepeatQuery{MemoryIDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	return reps
}

func TestFalseRepeatKeepsTheWords(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		// The same tags: a repeat that adds one is merged, which loses nothing.
		first := remember(t, s, ann, memory.EntryWrite{Content: onePR, Namespace: "team", Tags: []string{"review"}})
		w := memory.EntryWrite{Content: allPR, Namespace: "team", Tags: []string{"review"}, Source: "standup", Confidence: conf(0.8)}
		dup := rememberOutcome(t, s, ann, w)
		if dup.Outcome != memory.WriteOutcomeDuplicate || dup.ID != first.ID || dup.RepeatID == "" {
			t.Fatalf("second write: %+v, want a duplicate of %s with a repeat", dup, first.ID)
		}
		reps := repeatsOf(t, s, ann, first.ID)
		if len(reps) != 1 || reps[0].ID != dup.RepeatID || reps[0].Content != allPR || reps[0].Tool != "remember" ||
			reps[0].Tier != memory.DedupWords || reps[0].AgentID != ann.AgentID || reps[0].MemoryID != first.ID ||
			reps[0].Namespace != "team" || len(reps[0].Tags) != 1 || reps[0].StoredAs != "" {
			t.Fatalf("repeats of %s: %+v", first.ID, reps)
		}
		if got := repeatsOf(t, s, bob, first.ID); len(got) != 0 {
			t.Fatalf("bob reads ann's repeats: %+v", got)
		}
		if got := repeatsOf(t, s, human, first.ID); len(got) != 1 {
			t.Fatalf("a human reads %d repeats, want 1", len(got))
		}

		w.NotARepeatOf = first.ID
		own := rememberOutcome(t, s, ann, w)
		if own.Outcome != memory.WriteOutcomeStored || own.ID == first.ID || own.Content != allPR || own.Source != "standup" {
			t.Fatalf("stored after all: %+v", own)
		}
		if ids := search(t, s, ann, memory.Query{Text: "pull requests"}); len(ids) != 2 {
			t.Fatalf("search finds %v, want both memories", ids)
		}
		if reps := repeatsOf(t, s, ann, first.ID); len(reps) != 1 || reps[0].StoredAs != own.ID {
			t.Fatalf("the repeat after its words were stored: %+v, want stored_as %s", reps, own.ID)
		}
		// The override is for that one memory: the same words again repeat
		// the memory they are now.
		if again := rememberOutcome(t, s, ann, w); again.Outcome != memory.WriteOutcomeDuplicate || again.ID != own.ID {
			t.Fatalf("the same words once more: %+v, want a duplicate of %s", again, own.ID)
		}
	})
}

func TestNotARepeatOfNamesAMemoryTheCallerReads(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		bobs := remember(t, s, bob, memory.EntryWrite{Content: onePR})
		for name, c := range map[string]struct {
			id   string
			code string
		}{
			"unknown":             {"mem-000000000000", memory.ENOTFOUND},
			"another's personal":  {bobs.ID, memory.ENOTFOUND},
			"not an id":           {"mem 1", memory.EINVALID},
			"a control character": {"mem-\x01", memory.EINVALID},
		} {
			t.Run(name, func(t *testing.T) {
				_, err := s.Remember(as(ann), memory.EntryWrite{Content: allPR, NotARepeatOf: c.id})
				if memory.ErrorCode(err) != c.code {
					t.Fatalf("err = %v, want %s", err, c.code)
				}
				if _, err := s.PublishEntry(as(ann), memory.PublishWrite{ID: bobs.ID, NotARepeatOf: c.id}); err == nil {
					t.Fatal("publish accepted it")
				}
			})
		}
		if n := len(search(t, s, ann, memory.Query{Text: "pull requests"})); n != 0 {
			t.Fatalf("a refused write stored %d memories", n)
		}
	})
}

// A human on the review page stores an agent's repeat as the agent's own
// memory, as the agent would have with not_a_repeat_of.
func TestStoreRepeat(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		first := remember(t, s, ann, memory.EntryWrite{Content: onePR, Tags: []string{"review"}})
		dup := rememberOutcome(t, s, ann, memory.EntryWrite{Content: allPR, Tags: []string{"review"}})
		if _, err := s.StoreRepeat(as(bob), dup.RepeatID); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("bob stores ann's repeat: %v, want ENOTFOUND", err)
		}
		r, err := s.StoreRepeat(as(human), dup.RepeatID)
		if err != nil || r.Outcome != memory.WriteOutcomeStored || r.AgentID != ann.AgentID || r.Content != allPR ||
			r.Provenance.Author.Seniority != ann.Seniority || r.Provenance.Author.Human || len(r.Tags) != 1 {
			t.Fatalf("stored: %+v %v, want ann's memory in her words", r, err)
		}
		if _, err := s.StoreRepeat(as(human), dup.RepeatID); memory.ErrorCode(err) != memory.ECONFLICT {
			t.Fatalf("stored twice: %v, want ECONFLICT", err)
		}
		if _, err := s.StoreRepeat(as(human), "rep-000000000000"); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("unknown repeat: %v", err)
		}
		if reps := repeatsOf(t, s, ann, first.ID); len(reps) != 1 || reps[0].StoredAs != r.ID {
			t.Fatalf("repeats: %+v", reps)
		}
		open, err := s.Repeats(as(human), memory.RepeatQuery{Open: true})
		if err != nil || len(open) != 0 {
			t.Fatalf("open repeats: %+v %v", open, err)
		}
	})
}

// A publish answered "duplicate" keeps its words too, and is shared as its
// own copy after all with not_a_repeat_of (or by StoreRepeat).
func TestPublishFalseRepeat(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		anns := remember(t, s, ann, memory.EntryWrite{Content: onePR})
		shared, err := s.Publish(as(ann), anns.ID)
		if err != nil {
			t.Fatal(err)
		}
		bobs := remember(t, s, bob, memory.EntryWrite{Content: allPR})
		p, err := s.Publish(as(bob), bobs.ID)
		if err != nil || p.Outcome != memory.WriteOutcomeDuplicate || p.ID != shared.ID || p.RepeatID == "" {
			t.Fatalf("bob's publish: %+v %v", p, err)
		}
		reps := repeatsOf(t, s, bob, shared.ID)
		if len(reps) != 1 || reps[0].Tool != "publish_memory" || reps[0].From != bobs.ID || reps[0].Content != allPR {
			t.Fatalf("bob's repeats: %+v", reps)
		}
		if got := repeatsOf(t, s, ann, shared.ID); len(got) != 0 {
			t.Fatalf("ann reads bob's repeat: %+v", got)
		}
		own, err := s.PublishEntry(as(bob), memory.PublishWrite{ID: bobs.ID, NotARepeatOf: shared.ID})
		if err != nil || own.Outcome != memory.WriteOutcomeStored || own.ID == shared.ID || !own.Shared {
			t.Fatalf("shared after all: %+v %v", own, err)
		}
		if reps := repeatsOf(t, s, bob, shared.ID); reps[0].StoredAs != own.ID {
			t.Fatalf("repeat: %+v, want stored_as %s", reps[0], own.ID)
		}
	})
}

// A publish answered a repeat of a shared copy that a human's decision of a
// conflict retracted since (no repeat takes its place then) is still
// shared after all by its repeat.
func TestStoreRepeatOfARetractedCopy(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		shared, err := s.Publish(as(ann), remember(t, s, ann, memory.EntryWrite{Content: onePR}).ID)
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.Publish(as(bob), remember(t, s, bob, memory.EntryWrite{Content: allPR}).ID)
		if err != nil || p.Outcome != memory.WriteOutcomeDuplicate || p.ID != shared.ID {
			t.Fatalf("bob's publish: %+v %v", p, err)
		}
		denial, err := s.Publish(as(senior), remember(t, s, senior, memory.EntryWrite{Content: "Ann does not review the pull request."}).ID)
		if err != nil || len(denial.Conflicts) != 1 {
			t.Fatalf("the denial: %+v %v, want a conflict with %s", denial, err, shared.ID)
		}
		if _, err := s.ResolveConflict(as(human), denial.Conflicts[0].ID, memory.ConflictNewerWins, "Ann stopped"); err != nil {
			t.Fatal(err)
		}
		r, err := s.StoreRepeat(as(human), p.RepeatID)
		if err != nil || r.Outcome != memory.WriteOutcomeStored || !r.Shared || r.AgentID != bob.AgentID {
			t.Fatalf("storing the repeat of a retracted copy: %+v %v", r, err)
		}
	})
}

// A repeat's words go with the memory they were taken to repeat: erased
// with it, purged by gc with it, and found by an erase's text.
// SQLite only until erase runs on PostgreSQL (issue 24, the erasure work).
func TestRepeatsAreErasedWithTheirMemory(t *testing.T) {
	s, db, clk := memories(t, nil)
	first := remember(t, s, ann, memory.EntryWrite{Content: onePR})
	rememberOutcome(t, s, ann, memory.EntryWrite{Content: allPR})
	other := remember(t, s, ann, memory.EntryWrite{Content: "The build uses the cache."})
	rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The builds use a cache."})
	count := func() int {
		var n int
		if err := db.SQL().QueryRow(`SELECT count(*) FROM memory_repeats`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 2 {
		t.Fatalf("%d repeats, want 2", n)
	}
	rep, err := s.Erase(as(human), memory.ErasureRequest{IDs: []string{first.ID}, Reason: "request 3"})
	if err != nil || rep.Counts[memory.ErasedRepeats] != 1 || count() != 1 {
		t.Fatalf("erase: %+v %v; %d repeats left, want 1", rep, err, count())
	}
	// By text: what only the repeat holds takes it, and leaves its memory.
	kept := remember(t, s, bob, memory.EntryWrite{Content: "Deploys need two approvals."})
	rememberOutcome(t, s, bob, memory.EntryWrite{Content: "Deploys need two approvals.", Source: "told by Quxzorblat"})
	if _, err := db.SQL().Exec(`DELETE FROM memory_repeats`); err == nil {
		t.Fatal("a repeat was deleted outside erase and gc")
	}
	rep, err = s.Erase(as(human), memory.ErasureRequest{Contains: "quxzorblat", Reason: "request 4"})
	if err != nil || rep.Counts[memory.ErasedRepeats] != 1 || rep.Counts[memory.ErasedMemories] != 0 || count() != 1 {
		t.Fatalf("erase by text: %+v %v; %d repeats left, want 1", rep, err, count())
	}
	if _, err := s.Recall(as(bob), []string{kept.ID}); err != nil {
		t.Fatalf("the memory went with its repeat's words: %v", err)
	}
	// gc purges a forgotten memory's repeats with it.
	if _, err := s.Forget(as(ann), other.ID, "wrong"); err != nil {
		t.Fatal(err)
	}
	clk.Advance(48 * time.Hour)
	err = db.Update(context.Background(), func(tx *store.Tx) error {
		_, err := tx.Collect(context.Background(), human, store.Collection{Before: clk.Peek().Add(-time.Hour), Grace: time.Hour, Limit: 500})
		return err
	})
	if err != nil || count() != 0 {
		t.Fatalf("gc: %v; %d repeats left, want 0", err, count())
	}
}
