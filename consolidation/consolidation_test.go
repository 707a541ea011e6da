package consolidation_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/consolidation"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

var (
	ann   = memory.Identity{AgentID: "ann", Seniority: memory.SeniorityMid, Autonomy: memory.AutonomySemi}
	bob   = memory.Identity{AgentID: "bob", Seniority: memory.SenioritySenior, Autonomy: memory.AutonomySemi}
	human = memory.Identity{AgentID: "ops", Human: true}
)

func as(who memory.Identity) context.Context { return memory.WithIdentity(context.Background(), who) }

// fixture is a real store, a SQLite file in a temporary directory or a
// fresh PostgreSQL database (see onEngines), with the offline embedder, the
// memory service and the consolidation service over it.
type fixture struct {
	db  *store.DB
	mem *store.MemoryService
	svc *consolidation.Service
	clk *storetest.Clock
	dir string
	url string // the PostgreSQL database's, or "" on SQLite
	emb memory.Embedder
	t   testing.TB
}

// newFixture opens a fixture on SQLite.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	return newFixtureOn(t, "")
}

// newFixtureOn opens a fixture on a fresh PostgreSQL database of the test
// server when engine is "postgres", else on SQLite.
func newFixtureOn(t testing.TB, engine string) *fixture {
	t.Helper()
	f := &fixture{dir: t.TempDir(), emb: wordvec.New(), t: t}
	if engine == "postgres" {
		f.url = storetest.PostgresURL(t)
	}
	f.clk = storetest.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), time.Millisecond)
	f.db = f.open()
	f.mem = store.NewMemoryService(f.db, &f.emb)
	if _, err := f.mem.Index.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.svc = consolidation.New(f.db, &f.emb)
	f.svc.Config.Strategy = memory.ConsolidateSimple
	return f
}

// open opens the fixture's database, a handle of its own on the fixture's
// clock, closed when the test ends.
func (f *fixture) open() *store.DB {
	f.t.Helper()
	var db *store.DB
	var err error
	if f.url != "" {
		db, err = store.OpenPostgres(context.Background(), f.url)
	} else {
		db, err = store.Open(context.Background(), filepath.Join(f.dir, store.FileName))
	}
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { db.Close() })
	db.Now = f.clk.Now
	return db
}

// name is the fixture's database as storetest opens it: its file, or its
// PostgreSQL URL.
func (f *fixture) name() string {
	if f.url != "" {
		return f.url
	}
	return filepath.Join(f.dir, store.FileName)
}

// onEngines runs test once per store engine, as subtests named after them,
// each opening its fixtures through the newFixture it is given (its
// parameter is named newFixture, shadowing the SQLite-only function); a
// subtest that never called it fails, since it ran on SQLite twice.
func onEngines(t *testing.T, test func(t *testing.T, newFixture func(testing.TB) *fixture)) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			opened := false
			test(t, func(tb testing.TB) *fixture {
				opened = true
				return newFixtureOn(tb, engine)
			})
			if !opened && !t.Skipped() {
				t.Errorf("the test never opened a fixture through its %s newFixture", engine)
			}
		})
	}
}

// sync catches the fixture's vector index up with what was written.
func (f *fixture) sync() {
	f.t.Helper()
	if err := f.mem.Index.Sync(context.Background()); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) remember(who memory.Identity, w memory.EntryWrite) memory.Entry {
	f.t.Helper()
	if w.OccurredAt.IsZero() {
		w.OccurredAt = f.clk.Now()
	}
	e, err := f.mem.Remember(as(who), w)
	if err != nil {
		f.t.Fatalf("remember %q: %v", w.Content, err)
	}
	return e.Entry
}

func (f *fixture) search(who memory.Identity, q memory.Query) []string {
	f.t.Helper()
	if err := f.mem.Index.Sync(context.Background()); err != nil {
		f.t.Fatal(err)
	}
	hits, err := f.mem.Search(as(who), q)
	if err != nil {
		f.t.Fatal(err)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	return ids
}

func (f *fixture) changes() int64 {
	f.t.Helper()
	n, err := f.db.LastChange(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	return n
}

// garden and trip are two topics an agent wrote about on one day.
var (
	garden = []string{
		"Planted tomatoes and basil in the raised garden bed behind the house.",
		"The garden bed needs watering every morning while the tomatoes fruit.",
		"Aphids appeared on the basil in the garden; sprayed the plants with soapy water.",
		"Harvested the first ripe tomatoes from the garden bed today.",
	}
	trip = []string{
		"Booked train tickets to Lisbon for the conference in May.",
		"The Lisbon conference hotel is near the train station, five minutes on foot.",
		"Packed the passport and the conference badge for the Lisbon trip.",
	}
)

func writeTopics(f *fixture, who memory.Identity) (gardenIDs, tripIDs []string) {
	for i := range max(len(garden), len(trip)) {
		if i < len(garden) {
			gardenIDs = append(gardenIDs, f.remember(who, memory.EntryWrite{Content: garden[i], Tags: []string{"garden"}}).ID)
		}
		if i < len(trip) {
			tripIDs = append(tripIDs, f.remember(who, memory.EntryWrite{Content: trip[i], Tags: []string{"travel"}}).ID)
		}
	}
	return gardenIDs, tripIDs
}

// TestConsolidateGroupsByTopic: memories interleaved in time are grouped by
// what they are about; each group keeps its most valuable memory and the
// rest become one summary listing them, archived and restorable.
func TestConsolidateGroupsByTopic(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		f := newFixture(t)
		gardenIDs, tripIDs := writeTopics(f, ann)
		f.clk.Advance(48 * time.Hour)

		rep, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Groups) != 2 {
			t.Fatalf("groups = %+v, want the garden and the trip", rep.Groups)
		}
		for _, g := range rep.Groups {
			all := append([]string{g.Kept}, g.Sources...)
			slices.Sort(all)
			var want []string
			if slices.Contains(gardenIDs, g.Kept) {
				want = slices.Clone(gardenIDs)
			} else {
				want = slices.Clone(tripIDs)
			}
			slices.Sort(want)
			if !slices.Equal(all, want) {
				t.Errorf("group %v + %v, want one topic %v", g.Kept, g.Sources, want)
			}
			if g.SummaryID == "" || g.Mode != "concatenation" || strings.Count(g.Summary, "- ") != len(g.Sources) {
				t.Errorf("group report %+v", g)
			}
		}
		tokens := rep.TokensBefore
		for _, g := range rep.Groups {
			tokens += g.Tokens - g.TokensIn
		}
		if rep.ActiveBefore != 7 || rep.ActiveAfter != 4 || rep.Consolidated != 5 || rep.TokensAfter != tokens || tokens == rep.TokensBefore {
			t.Errorf("report counts %+v", rep)
		}

		// The summaries replace their sources in search; include_archived
		// finds the sources too.
		got := f.search(ann, memory.Query{Text: "tomatoes garden bed", Limit: 20})
		for _, g := range rep.Groups {
			for _, src := range g.Sources {
				if slices.Contains(got, src) {
					t.Errorf("archived %s still in default search: %v", src, got)
				}
			}
		}
		recalled, err := f.mem.Recall(as(ann), []string{rep.Groups[0].SummaryID})
		if err != nil {
			t.Fatal(err)
		}
		sum := recalled[0]
		if !slices.Equal(sum.Sources, rep.Groups[0].Sources) || sum.Source == "" {
			t.Errorf("summary %+v", sum)
		}
		// include_archived finds the garden's archived sources, and never
		// another agent's archived memories.
		bobGarden, _ := writeTopics(f, bob)
		f.clk.Advance(48 * time.Hour)
		if r, err := f.svc.Consolidate(as(bob), memory.ConsolidationRequest{}); err != nil || r.Consolidated != 5 {
			t.Fatalf("bob's run: %+v %v", r, err)
		}
		wide := f.search(ann, memory.Query{Text: "tomatoes garden bed", Limit: 20, IncludeArchived: true})
		for _, g := range rep.Groups {
			if slices.Contains(gardenIDs, g.Kept) {
				for _, src := range g.Sources {
					if !slices.Contains(wide, src) {
						t.Errorf("include_archived misses the archived %s: %v", src, wide)
					}
				}
			}
		}
		for _, id := range bobGarden {
			if slices.Contains(wide, id) {
				t.Errorf("ann's include_archived search found bob's memory %s", id)
			}
		}

		// Nothing left to do: a second run changes nothing.
		before := f.changes()
		again, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
		if err != nil || len(again.Groups) != 0 || f.changes() != before {
			t.Fatalf("second run: %+v, %v; changes %d -> %d", again, err, before, f.changes())
		}
	})
}

// TestSummaryNeverRaisesTrust: a summary's confidence is the lowest of its
// sources', its time the earliest, its tags their union.
func TestSummaryNeverRaisesTrust(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		f := newFixture(t)
		conf := []float64{0.9, 0.4, 0.7, 0.95}
		for i, c := range garden {
			f.remember(ann, memory.EntryWrite{Content: c, Confidence: &conf[i], Tags: []string{"garden", "day" + string(rune('a'+i))}})
		}
		f.clk.Advance(48 * time.Hour)
		rep, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
		if err != nil || len(rep.Groups) != 1 {
			t.Fatalf("%+v %v", rep, err)
		}
		g := rep.Groups[0]
		recalled, err := f.mem.Recall(as(ann), append([]string{g.SummaryID, g.Kept}, g.Sources...))
		if err != nil {
			t.Fatal(err)
		}
		sum, kept, srcs := recalled[0], recalled[1], recalled[2:]
		if kept.Confidence != 0.95 {
			t.Errorf("kept %v (confidence %v), want the most trusted", kept.ID, kept.Confidence)
		}
		lowest, earliest := 1.0, srcs[0].OccurredAt
		for _, s := range srcs {
			lowest = min(lowest, s.Confidence)
			if s.OccurredAt.Before(earliest) {
				earliest = s.OccurredAt
			}
			for _, tag := range s.Tags {
				if !slices.Contains(sum.Tags, tag) {
					t.Errorf("summary tags %v miss %q", sum.Tags, tag)
				}
			}
			if s.Active() || s.ConsolidatedInto != sum.ID {
				t.Errorf("source %+v", s)
			}
		}
		if sum.Confidence != lowest || !sum.OccurredAt.Equal(earliest) {
			t.Errorf("summary confidence %v at %v, want %v at %v", sum.Confidence, sum.OccurredAt, lowest, earliest)
		}
	})
}

// TestDryRunWritesNothing: a dry run reports the groups and changes nothing.
func TestDryRunWritesNothing(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		f := newFixture(t)
		writeTopics(f, ann)
		f.clk.Advance(48 * time.Hour)
		before := f.changes()
		rep, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Groups) != 2 || rep.Groups[0].SummaryID != "" || !rep.DryRun || rep.ActiveAfter != 4 {
			t.Fatalf("dry run = %+v", rep)
		}
		if f.changes() != before {
			t.Fatalf("a dry run wrote: changes %d -> %d", before, f.changes())
		}
	})
}

// TestOnlyOldMemoriesAndOwnAgent: the age threshold, the namespace and
// category filters and the caller's identity bound a run.
func TestOnlyOldMemoriesAndOwnAgent(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		f := newFixture(t)
		writeTopics(f, ann)
		writeTopics(f, bob)
		// Young memories are left alone.
		rep, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
		if err != nil || len(rep.Groups) != 0 {
			t.Fatalf("young memories consolidated: %+v %v", rep, err)
		}
		f.clk.Advance(48 * time.Hour)
		if rep, err = f.svc.Consolidate(as(ann), memory.ConsolidationRequest{Namespaces: []string{"elsewhere"}}); err != nil || len(rep.Groups) != 0 {
			t.Fatalf("another namespace: %+v %v", rep, err)
		}
		if rep, err = f.svc.Consolidate(as(ann), memory.ConsolidationRequest{Categories: []memory.Category{memory.CategoryProcedural}}); err != nil || len(rep.Groups) != 0 {
			t.Fatalf("another category: %+v %v", rep, err)
		}
		// An agent may not consolidate another's memories; a human may.
		_, err = f.svc.Consolidate(as(ann), memory.ConsolidationRequest{AgentID: "bob"})
		if !isCode(err, memory.EFORBIDDEN) || !strings.Contains(err.Error(), "only a human") {
			t.Fatalf("ann consolidating bob: %v", err)
		}
		if _, err = f.svc.Consolidate(as(human), memory.ConsolidationRequest{AgentID: "bobb"}); !isCode(err, memory.ENOTFOUND) ||
			!strings.Contains(err.Error(), `agent "bobb" has no memories`) {
			t.Fatalf("human consolidating a misspelt agent: %v", err)
		}
		rep, err = f.svc.Consolidate(as(human), memory.ConsolidationRequest{AgentID: "bob"})
		if err != nil || len(rep.Groups) != 2 || rep.AgentID != "bob" {
			t.Fatalf("human consolidating bob: %+v %v", rep, err)
		}
		// ann's memories are untouched.
		stats, err := f.mem.Stats(as(ann), "")
		if err != nil || stats.Total.Active != 7 || stats.Total.Consolidated != 0 {
			t.Fatalf("ann after bob's run: %+v %v", stats, err)
		}
		_, err = f.svc.Consolidate(as(ann), memory.ConsolidationRequest{Strategy: "magic"})
		if !isCode(err, memory.EINVALID) {
			t.Fatalf("unknown strategy: %v", err)
		}
	})
}

// TestForgettingKeepsSummariesTrue: forgetting a source forgets the summary
// made from it (it says what is no longer remembered) and gives its other
// sources back to search at once; the next run consolidates them again
// without the forgotten one. Forgetting a summary gives its sources back.
func TestForgettingKeepsSummariesTrue(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		f := newFixture(t)
		for _, c := range garden {
			f.remember(ann, memory.EntryWrite{Content: c})
		}
		f.clk.Advance(48 * time.Hour)
		rep, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
		if err != nil || len(rep.Groups) != 1 || len(rep.Groups[0].Sources) != 3 {
			t.Fatal(rep, err)
		}
		g := rep.Groups[0]
		gone := g.Sources[1]
		if _, err := f.mem.Forget(as(ann), gone, "it was wrong"); err != nil {
			t.Fatal(err)
		}
		got := stateOf(t, f, ann, append([]string{g.SummaryID}, g.Sources...)...)
		if got[g.SummaryID].ForgottenAt == nil {
			t.Fatalf("summary of a forgotten memory still remembered: %+v", got[g.SummaryID])
		}
		for _, src := range g.Sources {
			if src != gone && !got[src].Active() {
				t.Errorf("source %s not back in search: %+v", src, got[src])
			}
		}
		if ids := f.search(ann, memory.Query{Text: "aphids soapy water basil", Limit: 20}); slices.Contains(ids, gone) || slices.Contains(ids, g.SummaryID) {
			t.Errorf("the forgotten memory's words are still found: %v", ids)
		}

		rep, err = f.svc.Consolidate(as(ann), memory.ConsolidationRequest{})
		if err != nil || len(rep.Groups) != 1 {
			t.Fatalf("next run: %+v %v", rep, err)
		}
		again := rep.Groups[0]
		if slices.Contains(again.Sources, gone) || again.Kept == gone || len(again.Sources) != 2 {
			t.Fatalf("the next summary includes the forgotten memory: %+v", again)
		}

		// Forgetting the summary itself gives its sources back.
		if _, err := f.mem.Forget(as(ann), again.SummaryID, "too vague"); err != nil {
			t.Fatal(err)
		}
		for id, e := range stateOf(t, f, ann, again.Sources...) {
			if !e.Active() {
				t.Errorf("source %s of a forgotten summary not back in search: %+v", id, e)
			}
		}
	})
}

func isCode(err error, code string) bool {
	var e *memory.Error
	return errors.As(err, &e) && e.Code == code
}
