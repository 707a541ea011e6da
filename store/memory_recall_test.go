package store_test

import (
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// A shared memory its publisher retracted, or one that expired, is gone for
// every other agent: recall answers exactly as for an id that never existed.
// Its author still recalls it, marked.
func TestRecallHidesWithdrawnSharedMemories(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, clk := memoriesOn(t, openDB, nil)
		soon := clk.Peek().Add(time.Hour)
		retracted := remember(t, s, ann, memory.EntryWrite{Content: "the old deploy key is in the vault"})
		expiring := remember(t, s, ann, memory.EntryWrite{Content: "the freeze lasts until noon", ExpiresAt: soon})
		live := remember(t, s, ann, memory.EntryWrite{Content: "the build cache lives on NFS"})
		share := func(e memory.Entry) memory.Entry {
			sh, err := s.Publish(as(ann), e.ID)
			if err != nil {
				t.Fatal(err)
			}
			return sh.Entry
		}
		shRetracted, shExpiring, shLive := share(retracted), share(expiring), share(live)
		if _, err := s.Recall(as(bob), []string{shRetracted.ID, shExpiring.ID, shLive.ID}); err != nil {
			t.Fatalf("before: %v", err)
		}
		if _, err := s.Retract(as(ann), shRetracted.ID); err != nil {
			t.Fatal(err)
		}
		clk.Advance(2 * time.Hour)

		unknown := "mem-000000000000"
		_, missing := s.Recall(as(bob), []string{unknown})
		for _, id := range []string{shRetracted.ID, shExpiring.ID} {
			_, err := s.Recall(as(bob), []string{id})
			wantCode(t, err, memory.ENOTFOUND, id)
			if strings.ReplaceAll(err.Error(), id, "ID") != strings.ReplaceAll(missing.Error(), unknown, "ID") {
				t.Fatalf("withdrawn %s and unknown differ:\n%v\n%v", id, err, missing)
			}
			// Nor can it be acted on: it no longer exists for bob.
			_, err = s.Forget(as(bob), id, "")
			wantCode(t, err, memory.ENOTFOUND, id)
		}
		if got, err := s.Recall(as(bob), []string{shLive.ID}); err != nil || got[0].Expired || got[0].ForgottenAt != nil {
			t.Fatalf("live shared memory: %+v, %v", got, err)
		}

		// The author sees her own, marked.
		got, err := s.Recall(as(ann), []string{shRetracted.ID, shExpiring.ID, expiring.ID, live.ID})
		if err != nil {
			t.Fatal(err)
		}
		if got[0].ForgottenAt == nil || got[0].Expired {
			t.Errorf("own retracted copy: %+v", got[0])
		}
		if !got[1].Expired || !got[2].Expired || got[1].ForgottenAt != nil {
			t.Errorf("own expired memories not marked: %+v / %+v", got[1], got[2])
		}
		if got[3].Expired || got[3].ForgottenAt != nil {
			t.Errorf("own live memory marked: %+v", got[3])
		}
	})
}

func TestRecallRejectsRepeatedIDs(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		a := remember(t, s, ann, memory.EntryWrite{Content: "one"})
		_, err := s.Recall(as(ann), []string{a.ID, a.ID})
		wantCode(t, err, memory.EINVALID, `id "`+a.ID+`" is given twice`)
	})
}
