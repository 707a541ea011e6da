package store_test

import (
	"slices"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// TestStoryTellsWhatAMemoryReplaced: a human reads any agent's memory in any
// state with what it superseded and the conflicts naming it; an agent reads
// no other agent's personal memory that way.
func TestStoryTellsWhatAMemoryReplaced(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		emb := hashEmbedder("hash-32", 32)
		s, _, _ := memoriesOn(t, openDB, &emb)
		old := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The flight to Oslo is on Tuesday."})
		nw := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The flight to Oslo is on Wednesday."})

		st, err := s.Story(as(human), nw.ID)
		if err != nil {
			t.Fatal(err)
		}
		if st.Entry.ID != nw.ID || st.Entry.Provenance == nil || len(st.Replaced) != 1 || st.Replaced[0].ID != old.ID ||
			st.Stamp != memory.StampNoKey || len(st.Writes) != 0 {
			t.Fatalf("story of the newer = %+v", st)
		}
		st, err = s.Story(as(human), old.ID)
		if err != nil || st.Entry.SupersededBy != nw.ID || len(st.Replaced) != 0 {
			t.Fatalf("story of the superseded = %+v, %v", st, err)
		}
		cs, err := s.Conflicts(as(human), memory.ConflictQuery{MemoryID: old.ID, Resolutions: memory.ConflictResolutions})
		if err != nil || len(cs) != 1 || cs[0].OlderID != old.ID {
			t.Fatalf("conflicts of %s = %+v, %v", old.ID, cs, err)
		}
		other := remember(t, s, ann, memory.EntryWrite{Content: "The hotel in Oslo is on Karl Johans gate."})
		if cs, err := s.Conflicts(as(human), memory.ConflictQuery{MemoryID: other.ID, Resolutions: memory.ConflictResolutions}); err != nil || len(cs) != 0 {
			t.Fatalf("conflicts of an unrelated memory = %+v, %v", cs, err)
		}
		if _, err := s.Story(as(bob), old.ID); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("bob reading ann's story: %v", err)
		}
		wantCode(t, nil2(s.Story(as(human), "mem-000000000000")), memory.ENOTFOUND, "erased")
		wantCode(t, nil2(s.Story(as(human), "no such\x00id")), memory.EINVALID, "")
	})
}

func nil2[T any](_ T, err error) error { return err }

// TestHumanSearchesListsAndForgetsAnAgentsMemories: the review page's
// reads and its forget act on the agent named, and the forget is recorded
// as the human's.
func TestHumanSearchesListsAndForgetsAnAgentsMemories(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		humanActsOnAgents(t, store.NewMemoryService(db, nil))
	})
}

func humanActsOnAgents(t *testing.T, s *store.MemoryService) {
	a := remember(t, s, ann, memory.EntryWrite{Content: "ann likes green tea in the morning"})
	remember(t, s, bob, memory.EntryWrite{Content: "bob likes black tea in the evening"})
	if got := search(t, s, human, memory.Query{Text: "tea", AgentID: "ann", Scope: memory.ScopePersonal}); !slices.Equal(got, []string{a.ID}) {
		t.Fatalf("a human searching ann's memories = %v", got)
	}
	if _, err := s.Search(as(bob), memory.Query{Text: "tea", AgentID: "ann"}); memory.ErrorCode(err) != memory.EFORBIDDEN {
		t.Fatalf("bob searching ann's memories: %v", err)
	}
	if _, err := s.Search(as(human), memory.Query{Text: "tea", AgentID: "nobody"}); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Fatalf("searching an unknown agent's memories: %v", err)
	}
	if _, err := s.Publish(as(ann), a.ID); err != nil {
		t.Fatal(err)
	}
	page, err := s.List(as(human), memory.ListQuery{Shared: true})
	if err != nil || page.Total != 1 || !page.Memories[0].Shared || page.AgentID != "" {
		t.Fatalf("the shared space = %+v, %v", page, err)
	}
	if _, err := s.ForgetOf(as(bob), "ann", a.ID, "no"); memory.ErrorCode(err) != memory.EFORBIDDEN {
		t.Fatalf("bob forgetting ann's memory: %v", err)
	}
	e, err := s.ForgetOf(as(human), "ann", a.ID, "wrong about the tea")
	if err != nil || e.ForgottenAt == nil || e.ForgetReason != "wrong about the tea" || e.AgentID != "ann" {
		t.Fatalf("a human forgetting ann's memory = %+v, %v", e, err)
	}
	if got := search(t, s, ann, memory.Query{Text: "green tea", Scope: memory.ScopePersonal}); len(got) != 0 {
		t.Fatalf("ann still finds %v", got)
	}
}

// TestHumanListsAgents: the agents page's counts, on both engines.
func TestHumanListsAgents(t *testing.T) {
	onEngines(t, func(t *testing.T, open opener) {
		db, _ := open(t)
		s := store.NewMemoryService(db, nil)
		remember(t, s, ann, memory.EntryWrite{Content: "ann keeps the release checklist in the wiki"})
		remember(t, s, ann, memory.EntryWrite{Content: "ann prefers reviews before noon"})
		remember(t, s, bob, memory.EntryWrite{Content: "bob rotates the staging keys monthly"})
		got, err := s.Agents(as(human))
		want := []memory.AgentMemories{{AgentID: "ann", Personal: 2}, {AgentID: "bob", Personal: 1}}
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("agents = %+v, %v; want %+v", got, err, want)
		}
		if _, err := s.Agents(as(ann)); memory.ErrorCode(err) != memory.EFORBIDDEN {
			t.Fatalf("an agent listing the agents: %v", err)
		}
	})
}

// TestHumanRetractsSharedCopies: a curator retracts an agent's shared
// copy, named by the copy or by its original; the agents' counts follow.
func TestHumanRetractsSharedCopies(t *testing.T) {
	db, _ := openDB(t)
	s := store.NewMemoryService(db, nil)
	a := remember(t, s, ann, memory.EntryWrite{Content: "ann keeps the release checklist in the wiki"})
	b := remember(t, s, bob, memory.EntryWrite{Content: "bob rotates the staging keys monthly"})
	pub, err := s.Publish(as(ann), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	// An agent whose only memory is forgotten stays listed, with none active.
	if _, err := s.Forget(as(bob), b.ID, "rotated weekly now"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Agents(as(human)); len(got) != 2 || got[0] != (memory.AgentMemories{AgentID: "ann", Personal: 1, Shared: 1}) ||
		got[1] != (memory.AgentMemories{AgentID: "bob"}) {
		t.Fatalf("agents = %+v", got)
	}
	if _, err := s.RetractOf(as(bob), "ann", pub.Entry.ID); memory.ErrorCode(err) != memory.EFORBIDDEN {
		t.Fatalf("bob retracting ann's copy: %v", err)
	}
	if _, err := s.RetractOf(as(human), "bob", pub.Entry.ID); memory.ErrorCode(err) != memory.EFORBIDDEN {
		t.Fatalf("a human retracting ann's copy as bob's: %v", err)
	}
	e, err := s.RetractOf(as(human), "ann", a.ID) // by the original, as retract_memory allows
	if err != nil || e.ID != pub.Entry.ID || e.ForgottenAt == nil || !strings.Contains(e.ForgetReason, "alice") {
		t.Fatalf("a human retracting ann's copy = %+v, %v", e, err)
	}
	if got, _ := s.Agents(as(human)); got[0] != (memory.AgentMemories{AgentID: "ann", Personal: 1}) {
		t.Fatalf("agents after the retraction = %+v", got)
	}
}
