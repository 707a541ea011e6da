package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// consolidate stores a summary of sources for who, in one transaction.
func consolidate(t testing.TB, db *store.DB, who memory.Identity, content string, sources ...string) (memory.Entry, error) {
	t.Helper()
	var out memory.Entry
	ctx := context.Background()
	err := db.Update(ctx, func(tx *store.Tx) error {
		l, ok, err := tx.AcquireLease(ctx, store.LeaseMaintenance, "the test", time.Hour)
		if err != nil || !ok {
			t.Fatalf("acquire the lease: %+v %v", l, err)
		}
		out, err = tx.Consolidate(ctx, store.Summary{Agent: who.AgentID, Author: memory.AuthorOf(who),
			Namespace: memory.DefaultNamespace, Category: memory.CategoryEpisodic, Content: content, Confidence: 0.5,
			Source: "consolidation (test)", OccurredAt: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), Sources: sources, Lease: l})
		if err != nil {
			return err
		}
		return tx.ReleaseLease(ctx, l)
	})
	return out, err
}

// TestConsolidateArchivesIntoOneSummary: a summary replaces its sources in
// search in one step; the sources stay whole, listed by the summary, found
// with include_archived, and each restores exactly as it was.
func TestConsolidateArchivesIntoOneSummary(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		emb := wordvec.New()
		s, db, _ := memoriesOn(t, openDB, &emb)
		var src []memory.Entry
		for _, c := range []string{"Caroline went to the LGBTQ support group on Monday.",
			"The support group talked about coming out to family.", "Caroline felt welcomed by the support group."} {
			src = append(src, remember(t, s, ann, memory.EntryWrite{Content: c, Category: memory.CategoryEpisodic, Tags: []string{"group"}}))
		}
		other := remember(t, s, ann, memory.EntryWrite{Content: "Melanie painted a lake at sunrise."})
		ids := []string{src[0].ID, src[1].ID, src[2].ID}
		sum, err := consolidate(t, db, ann, "Caroline went to an LGBTQ support group on Monday; it talked about coming out and she felt welcomed.", ids...)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(sum.Sources, ids) || !sum.Active() {
			t.Fatalf("summary = %+v", sum)
		}
		if got := search(t, s, ann, memory.Query{Text: "support group"}); !slices.Equal(got, []string{sum.ID}) {
			t.Fatalf("search after consolidation = %v, want only the summary", got)
		}
		got := search(t, s, ann, memory.Query{Text: "support group coming out", IncludeArchived: true})
		for _, id := range append(ids, sum.ID) {
			if !slices.Contains(got, id) {
				t.Errorf("include_archived does not find %s: %v", id, got)
			}
		}
		recalled, err := s.Recall(as(ann), ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range recalled {
			if e.ArchiveReason != memory.ArchiveConsolidated || e.ConsolidatedInto != sum.ID || e.ArchivedAt == nil {
				t.Errorf("source after consolidation = %+v", e)
			}
		}

		// Restore: the same memory, back in search with its vector.
		back, err := s.Restore(as(ann), "", src[1].ID)
		if err != nil {
			t.Fatal(err)
		}
		if back.ID != src[1].ID || back.Content != src[1].Content || !slices.Equal(back.Tags, src[1].Tags) ||
			!back.CreatedAt.Equal(src[1].CreatedAt) || !back.OccurredAt.Equal(src[1].OccurredAt) ||
			!back.UpdatedAt.Equal(src[1].UpdatedAt) || back.Confidence != src[1].Confidence || back.Source != src[1].Source || !back.Active() {
			t.Fatalf("restored %+v, was %+v", back, src[1])
		}
		if got := search(t, s, ann, memory.Query{Text: "coming out to family"}); !slices.Contains(got, src[1].ID) {
			t.Fatalf("restored memory not found: %v", got)
		}
		s.Retrieval = configs()["vector"]
		if got := search(t, s, ann, memory.Query{Text: "coming out to family"}); !slices.Contains(got, src[1].ID) {
			t.Fatalf("restored memory not found by its vector: %v", got)
		}

		// Bad restores, and a source that is no longer active.
		ops := memory.Identity{AgentID: "ops", Human: true}
		for _, tc := range []struct {
			who   memory.Identity
			agent string
			id    string
			code  string
			want  string
		}{
			{ann, "", src[1].ID, memory.ECONFLICT, "is not archived"},
			{ann, "", "mem-000000000000", memory.ENOTFOUND, "list_memories with states [consolidated, archived]"},
			{bob, "", src[0].ID, memory.ENOTFOUND, `no memory of bob with id "` + src[0].ID},
			{bob, "ann", src[0].ID, memory.EFORBIDDEN, "only a human may restore the memories of another agent"},
			{ops, "anne", src[0].ID, memory.ENOTFOUND, `agent "anne" has no memories`},
			{ops, "", src[0].ID, memory.ENOTFOUND, "no memory of ops"},
		} {
			if _, err := s.Restore(as(tc.who), tc.agent, tc.id); memory.ErrorCode(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("restore %s of %q as %s = %v, want %s %q", tc.id, tc.agent, tc.who.AgentID, err, tc.code, tc.want)
			}
		}
		if _, err := consolidate(t, db, ann, "again", src[0].ID, other.ID); memory.ErrorCode(err) != memory.ECONFLICT {
			t.Fatalf("consolidating an archived memory = %v", err)
		}
		if got := search(t, s, ann, memory.Query{Text: "Melanie lake"}); !slices.Contains(got, other.ID) {
			t.Fatalf("a failed consolidation archived %s: %v", other.ID, got)
		}
		// A human restores an agent's memory for it.
		if e, err := s.Restore(as(ops), "ann", src[0].ID); err != nil || !e.Active() || e.RestoredAt == nil {
			t.Fatalf("a human restoring ann's memory: %+v %v", e, err)
		}

		// Forgetting a source forgets the summary that says what it said, and
		// its other sources come back to search.
		if _, err := s.Forget(as(ann), src[0].ID, "wrong day"); err != nil {
			t.Fatal(err)
		}
		st, _ := s.Recall(as(ann), []string{sum.ID, src[0].ID, src[2].ID})
		if st[0].ForgottenAt == nil || !strings.Contains(st[0].ForgetReason, src[0].ID) || st[1].ForgottenAt == nil || !st[2].Active() {
			t.Fatalf("after a source was forgotten: summary %+v, source %+v, other source %+v", st[0], st[1], st[2])
		}
		if got := search(t, s, ann, memory.Query{Text: "support group"}); slices.Contains(got, sum.ID) || slices.Contains(got, src[0].ID) ||
			!slices.Contains(got, src[2].ID) {
			t.Fatalf("search after a source was forgotten = %v", got)
		}
	})
}

// TestListAndStats: listing pages through one agent's memories by state,
// and the counts agree with it; another agent's are counted only for a human.
func TestListAndStats(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) { listAndStats(t, openDB) })
}

// listAndStats holds listing and counting memories on the store open opens:
// by state, category, tag and page; the counts per state; who may count
// whose; an agent no memory names; one memory forgotten.
func listAndStats(t *testing.T, open opener) {
	s, db, clk := memoriesOn(t, open, nil)
	var ids []string
	for i, c := range []string{"alpha note one", "beta note two", "gamma note three", "delta note four", "epsilon note five"} {
		cat := memory.CategorySemantic
		if i%2 == 0 {
			cat = memory.CategoryEpisodic
		}
		ids = append(ids, remember(t, s, ann, memory.EntryWrite{Content: c, Category: cat, Tags: []string{"n"}}).ID)
	}
	remember(t, s, ann, memory.EntryWrite{Content: "soon gone", ExpiresAt: clk.Now().Add(time.Hour)})
	sum, err := consolidate(t, db, ann, "alpha, gamma and epsilon", ids[0], ids[2], ids[4])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Forget(as(ann), ids[1], "obsolete"); err != nil {
		t.Fatal(err)
	}
	active, forgotten := 2, 1
	clk.Advance(2 * time.Hour) // "soon gone" expires
	remember(t, s, bob, memory.EntryWrite{Content: "bob's own"})

	page, err := s.List(as(ann), memory.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != active || len(page.Memories) != active || page.Memories[0].ID != sum.ID || !slices.Equal(page.Memories[0].Sources, []string{ids[0], ids[2], ids[4]}) {
		t.Fatalf("active = %+v", page)
	}
	page, _ = s.List(as(ann), memory.ListQuery{States: []memory.MemoryState{memory.StateConsolidated, memory.StateForgotten}, Limit: 2})
	if page.Total != 3+forgotten || len(page.Memories) != 2 {
		t.Fatalf("consolidated and forgotten = %d of %d", len(page.Memories), page.Total)
	}
	// The next page, keyed by the last one's memory, holds the rest, none
	// of them again (the memories share their creation time: ties go by id).
	first, last := page.Memories[0], page.Memories[1]
	next, err := s.List(as(ann), memory.ListQuery{States: []memory.MemoryState{memory.StateConsolidated, memory.StateForgotten}, Limit: 2,
		Before: last.CreatedAt, BeforeID: last.ID})
	if err != nil || next.Total != 3+forgotten || len(next.Memories) != 1+forgotten ||
		slices.ContainsFunc(next.Memories, func(e memory.Entry) bool { return e.ID == first.ID || e.ID == last.ID }) {
		t.Fatalf("the page after %s = %+v, %v", last.ID, next, err)
	}
	if _, err := s.List(as(ann), memory.ListQuery{BeforeID: last.ID}); memory.ErrorCode(err) != memory.EINVALID {
		t.Fatalf("a key without its time: %v", err)
	}
	page, _ = s.List(as(ann), memory.ListQuery{States: []memory.MemoryState{memory.StateExpired}})
	if page.Total != 1 || !page.Memories[0].Expired {
		t.Fatalf("expired = %+v", page)
	}
	page, _ = s.List(as(ann), memory.ListQuery{Categories: []memory.Category{memory.CategoryEpisodic},
		States: []memory.MemoryState{memory.StateConsolidated}, Tags: []string{"n"}, Offset: 1})
	if page.Total != 3 || len(page.Memories) != 2 {
		t.Fatalf("episodic consolidated tagged n, from 1 = %d of %d", len(page.Memories), page.Total)
	}
	page, _ = s.List(as(ann), memory.ListQuery{Tags: []string{"n", "other"}})
	if page.Total != 0 {
		t.Fatalf("tagged n and other = %+v", page)
	}

	st, err := s.Stats(as(ann), "")
	if err != nil {
		t.Fatal(err)
	}
	want := memory.StateCounts{Active: active, Summaries: 1, Consolidated: 3, Expired: 1, Forgotten: forgotten}
	if st.AgentID != "ann" || st.Total != want {
		t.Fatalf("stats = %+v, want total %+v", st, want)
	}
	if _, err := s.Stats(as(ann), "bob"); memory.ErrorCode(err) != memory.EFORBIDDEN {
		t.Fatalf("an agent counting another's memories: %v", err)
	}
	if st, err := s.Stats(as(human), "bob"); err != nil || st.Total.Active != 1 {
		t.Fatalf("a human counting bob's = %+v, %v", st, err)
	}
	if _, err := s.Stats(as(human), "nobody"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Fatalf("a human counting an agent with no memories: %v", err)
	}
	if _, err := s.List(as(ann), memory.ListQuery{States: []memory.MemoryState{"lost"}}); memory.ErrorCode(err) != memory.EINVALID {
		t.Fatalf("unknown state: %v", err)
	}
}
