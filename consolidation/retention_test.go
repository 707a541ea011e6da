package consolidation_test

import (
	"context"
	"slices"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

func stateOf(t *testing.T, f *fixture, who memory.Identity, ids ...string) map[string]memory.Entry {
	t.Helper()
	es, err := f.mem.Recall(as(who), ids)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]memory.Entry{}
	for _, e := range es {
		out[e.ID] = e
	}
	return out
}

// TestRetentionArchivesByCategory: memories older than their category's
// period (agent rule, then company rule, then defaults) are archived, not
// deleted, and restore brings them back.
func TestRetentionArchivesByCategory(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		f := newFixture(t)
		company, _ := memory.ParseRetentionRules("retention", "working=7d,episodic=90d")
		agents, _ := memory.ParseRetentionOverrides("retention-overrides", `{"ann": {"episodic": "14d"}}`)
		f.svc.Config.Retention = memory.Retention{Company: company, Agents: agents}
		scratch := f.remember(ann, memory.EntryWrite{Content: "Scratch: the build is red on main.", Category: memory.CategoryWorking})
		trip := f.remember(ann, memory.EntryWrite{Content: "Went to the Lisbon conference.", Category: memory.CategoryEpisodic})
		fact := f.remember(ann, memory.EntryWrite{Content: "The API gateway runs on port 8443.", Category: memory.CategorySemantic})
		bobTrip := f.remember(bob, memory.EntryWrite{Content: "Went to the Porto meetup.", Category: memory.CategoryEpisodic})
		f.clk.Advance(10 * 24 * time.Hour)

		rep, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
		if err != nil || rep.Retention != 1 {
			t.Fatalf("after 10 days: %+v %v, want the working memory archived", rep, err)
		}
		f.clk.Advance(5 * 24 * time.Hour) // 15 days: ann's episodic rule is 14 days, bob's the company's 90
		if rep, err = f.svc.Consolidate(as(ann), memory.ConsolidationRequest{}); err != nil || rep.Retention != 1 {
			t.Fatalf("after 15 days: %+v %v", rep, err)
		}
		if rep, err = f.svc.Consolidate(as(bob), memory.ConsolidationRequest{}); err != nil || rep.Retention != 0 {
			t.Fatalf("bob after 15 days: %+v %v", rep, err)
		}
		got := stateOf(t, f, ann, scratch.ID, trip.ID, fact.ID)
		for id, want := range map[string]bool{scratch.ID: true, trip.ID: true, fact.ID: false} {
			e := got[id]
			if archived := e.ArchiveReason == memory.ArchiveRetention && e.ArchivedAt != nil; archived != want {
				t.Errorf("%s (%s): archived %v, want %v (%+v)", id, e.Category, archived, want, e)
			}
		}
		if !stateOf(t, f, bob, bobTrip.ID)[bobTrip.ID].Active() {
			t.Errorf("bob's memory archived by ann's rule")
		}
		if ids := f.search(ann, memory.Query{Text: "Lisbon conference"}); slices.Contains(ids, trip.ID) {
			t.Errorf("an archived memory is in search: %v", ids)
		}
		if ids := f.search(ann, memory.Query{Text: "Lisbon conference", IncludeArchived: true}); !slices.Contains(ids, trip.ID) {
			t.Errorf("include_archived misses the archived memory: %v", ids)
		}
		back, err := f.mem.Restore(as(ann), "", trip.ID)
		if err != nil || !back.Active() || back.Content != trip.Content {
			t.Fatalf("restore: %+v %v", back, err)
		}
		stats, _ := f.mem.Stats(as(ann), "")
		if stats.Total.Active != 2 || stats.Total.Archived != 1 {
			t.Errorf("stats %+v", stats.Total)
		}
	})
}

// TestCapArchivesTheLeastValuable: over the cap, the memories of lowest
// confidence (then the oldest) are archived; a dry run says how many and
// changes nothing.
func TestCapArchivesTheLeastValuable(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		f := newFixture(t)
		f.svc.Config.MaxMemories = 4
		confs := []float64{0.9, 0.3, 0.8, 0.3, 1, 0.5}
		var ids []string
		for i, c := range confs {
			ids = append(ids, f.remember(ann, memory.EntryWrite{Content: "Unrelated memory number " + string(rune('A'+i)), Confidence: &c}).ID)
		}
		before := f.changes()
		dry, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{DryRun: true})
		if err != nil || dry.OverCap != 2 || dry.ActiveAfter != 4 || f.changes() != before {
			t.Fatalf("dry run: %+v %v (changes %d -> %d)", dry, err, before, f.changes())
		}
		rep, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
		if err != nil || rep.OverCap != 2 || rep.ActiveAfter != 4 {
			t.Fatalf("run: %+v %v", rep, err)
		}
		got := stateOf(t, f, ann, ids...)
		for i, id := range ids {
			want := i == 1 || i == 3 // the two at 0.3
			if archived := got[id].ArchiveReason == memory.ArchiveOverCap; archived != want {
				t.Errorf("memory %d (confidence %v): archived over the cap %v, want %v", i, confs[i], archived, want)
			}
		}
		// At the cap, nothing more goes.
		if rep, err = f.svc.Consolidate(as(ann), memory.ConsolidationRequest{}); err != nil || rep.OverCap != 0 {
			t.Fatalf("second run: %+v %v", rep, err)
		}
	})
}

// TestExpiredMemoriesLeaveTheIndexes: a run archives expired memories as
// expired, which takes them out of the vector and full-text indexes.
func TestExpiredMemoriesLeaveTheIndexes(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		f := newFixture(t)
		soon := f.clk.Now().Add(time.Hour)
		gone := f.remember(ann, memory.EntryWrite{Content: "The deploy freeze lasts until noon.", ExpiresAt: soon})
		kept := f.remember(ann, memory.EntryWrite{Content: "Deploys need two approvals."})
		f.sync()
		inIndex := f.mem.Index.Len()
		f.clk.Advance(2 * time.Hour)
		rep, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
		if err != nil || rep.Expired != 1 {
			t.Fatalf("%+v %v", rep, err)
		}
		f.sync()
		if f.mem.Index.Len() != inIndex-1 {
			t.Errorf("vector index holds %d, want %d", f.mem.Index.Len(), inIndex-1)
		}
		got := stateOf(t, f, ann, gone.ID, kept.ID)
		if got[gone.ID].ArchiveReason != memory.ArchiveExpired || !got[kept.ID].Active() {
			t.Errorf("after the run: %+v", got)
		}
		if _, err := f.mem.Restore(as(ann), "", gone.ID); !isCode(err, memory.ECONFLICT) {
			t.Errorf("restoring an expired memory: %v, want ECONFLICT", err)
		}
		stats, _ := f.mem.Stats(as(ann), "")
		if stats.Total.Expired != 1 || stats.Total.Active != 1 {
			t.Errorf("stats %+v", stats.Total)
		}
	})
}

// TestCapKeepsSummariesAndRestoredMemories: over the cap, plain memories go
// before summaries (archiving a summary takes its whole group out of
// search) and before what the owner restored.
func TestCapKeepsSummariesAndRestoredMemories(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		f := newFixture(t)
		low := 0.2
		for _, c := range garden {
			f.remember(ann, memory.EntryWrite{Content: c, Confidence: &low})
		}
		f.clk.Advance(48 * time.Hour)
		rep, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
		if err != nil || len(rep.Groups) != 1 {
			t.Fatalf("%+v %v", rep, err)
		}
		g := rep.Groups[0]
		restored, err := f.mem.Restore(as(ann), "", g.Sources[0])
		if err != nil {
			t.Fatal(err)
		}
		var notes []string
		for i := range 3 {
			c := 0.9
			notes = append(notes, f.remember(ann, memory.EntryWrite{Content: "Unrelated note " + string(rune('A'+i)), Confidence: &c}).ID)
		}
		// Active: the kept memory, the summary, the restored source and 3 notes.
		f.svc.Config.MaxMemories = 4
		rep, err = f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
		if err != nil || rep.OverCap != 2 {
			t.Fatalf("%+v %v", rep, err)
		}
		got := stateOf(t, f, ann, append([]string{g.SummaryID, g.Kept, restored.ID}, notes...)...)
		if got[g.Kept].ArchiveReason != memory.ArchiveOverCap {
			t.Errorf("the kept memory, the least valuable plain one, is not archived: %+v", got[g.Kept])
		}
		if !got[g.SummaryID].Active() || !got[restored.ID].Active() {
			t.Errorf("the summary (%+v) or the restored memory (%+v) was archived before a plain memory", got[g.SummaryID], got[restored.ID])
		}
	})
}

// TestRestoredMemoryStaysRestored: the next run measures a restored
// memory's age from its restoring, so it neither archives it again by
// retention nor consolidates it again at once.
func TestRestoredMemoryStaysRestored(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		f := newFixture(t)
		rules, _ := memory.ParseRetentionRules("retention", "episodic=7d")
		f.svc.Config.Retention = memory.Retention{Company: rules}
		for _, c := range garden {
			f.remember(ann, memory.EntryWrite{Content: c, Category: memory.CategoryEpisodic})
		}
		f.clk.Advance(2 * 24 * time.Hour)
		rep, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
		if err != nil || len(rep.Groups) != 1 {
			t.Fatalf("%+v %v", rep, err)
		}
		src := rep.Groups[0].Sources[0]
		if _, err := f.mem.Restore(as(ann), "", src); err != nil {
			t.Fatal(err)
		}
		f.clk.Advance(6 * 24 * time.Hour) // 8 days after writing, 6 after restoring
		rep, err = f.svc.Consolidate(as(ann), memory.ConsolidationRequest{OlderThan: new(7 * 24 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		e := stateOf(t, f, ann, src)[src]
		if !e.Active() {
			t.Fatalf("a memory restored 6 days ago was archived again (%s) by a 7-day rule: %+v", e.ArchiveReason, rep)
		}
		f.clk.Advance(2 * 24 * time.Hour)
		if _, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{}); err != nil {
			t.Fatal(err)
		}
		if e := stateOf(t, f, ann, src)[src]; e.ArchiveReason != memory.ArchiveRetention {
			t.Errorf("8 days after its restoring, a 7-day rule keeps it: %+v", e)
		}
	})
}

// TestTaskRecordsAreNotConsolidated: distillation records stay whole: they
// are the context the llm strategy shows the model.
func TestTaskRecordsAreNotConsolidated(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		f := newFixture(t)
		for i := range 4 {
			rec := memory.Distillation{TaskID: "T-" + string(rune('1'+i)), Outcome: memory.TaskOutcomeCompleted, Summary: "Watered the garden tomatoes.", Turns: 3}
			w, err := rec.EntryWrite()
			if err != nil {
				t.Fatal(err)
			}
			f.remember(ann, w)
		}
		f.clk.Advance(48 * time.Hour)
		rep, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
		if err != nil || len(rep.Groups) != 0 {
			t.Fatalf("task records consolidated: %+v %v", rep, err)
		}
	})
}

// TestExpiredSharedCopiesLeaveTheIndexes: the agent's expired shared copies
// are archived as expired too.
func TestExpiredSharedCopiesLeaveTheIndexes(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		f := newFixture(t)
		e := f.remember(ann, memory.EntryWrite{Content: "The staging freeze lasts until noon.", ExpiresAt: f.clk.Now().Add(time.Hour)})
		shared, err := f.mem.Publish(as(ann), e.ID)
		if err != nil {
			t.Fatal(err)
		}
		f.clk.Advance(2 * time.Hour)
		rep, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
		if err != nil || rep.Expired != 2 {
			t.Fatalf("%+v %v", rep, err)
		}
		if got := stateOf(t, f, ann, shared.ID)[shared.ID]; got.ArchiveReason != memory.ArchiveExpired {
			t.Errorf("shared copy after the run: %+v", got)
		}
		if miscounted, _, err := storetest.SpaceCounts(context.Background(), f.name()); err != nil || miscounted != 0 {
			t.Errorf("%d memory spaces miscounted (%v)", miscounted, err)
		}
	})
}
