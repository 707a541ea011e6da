package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/text"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

func rememberOutcome(t *testing.T, s *store.MemoryService, who memory.Identity, w memory.EntryWrite) memory.Remembered {
	t.Helper()
	r, err := s.Remember(as(who), w)
	if err != nil {
		t.Fatalf("remember %q: %v", w.Content, err)
	}
	return r
}

func conf(c float64) *float64 { return &c }

func TestRememberARepeatStoresNothing(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		emb := hashEmbedder("hash-32", 32)
		s, _, _ := memoriesOn(t, openDB, &emb)
		first := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The staging database is Postgres 16.", Tags: []string{"db", "staging"}, Confidence: conf(0.6)})
		if first.Outcome != memory.WriteOutcomeStored || first.SeenCount != 1 || first.LastSeenAt != nil {
			t.Fatalf("first write: %+v", first)
		}
		exact := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "the staging  database is postgres 16.", Confidence: conf(0.9)})
		if exact.Outcome != memory.WriteOutcomeDuplicate || exact.Tier != "exact" || exact.ID != first.ID || exact.SeenCount != 2 ||
			exact.LastSeenAt == nil || exact.Confidence != 0.9 || exact.Content != first.Content {
			t.Fatalf("exact repeat: %+v", exact)
		}
		words := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Staging database: Postgres 16", Tags: []string{"db"}, Confidence: conf(0.5)})
		if words.Outcome != memory.WriteOutcomeDuplicate || words.Tier != "words" || words.ID != first.ID || words.SeenCount != 3 ||
			words.Confidence != 0.9 {
			t.Fatalf("a repeat in the same words: %+v (the confidence must stay the higher)", words)
		}
		if n := len(search(t, s, ann, memory.Query{Text: "staging database postgres"})); n != 1 {
			t.Fatalf("search finds %d memories, want the one", n)
		}
	})
}

func TestRememberWhatAddsSomethingIsStored(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		// Dedup alone: "in Porto" and "not in Lisbon" would supersede the first
		// memory, which later cases compare with.
		s.Contradictions = memory.ContradictionsOff
		base := memory.EntryWrite{Content: "The team offsite is in Lisbon.", Namespace: "travel", Tags: []string{"offsite"}}
		first := rememberOutcome(t, s, ann, base)
		at := func(d time.Duration) time.Time { return first.CreatedAt.Add(d) }
		cases := map[string]func(w *memory.EntryWrite){
			"another namespace":        func(w *memory.EntryWrite) { w.Namespace = "default" },
			"another category":         func(w *memory.EntryWrite) { w.Category = memory.CategorySocial },
			"an expiry":                func(w *memory.EntryWrite) { w.ExpiresAt = at(48 * time.Hour) },
			"a time it occurred":       func(w *memory.EntryWrite) { w.OccurredAt = at(-400 * 24 * time.Hour) },
			"other words":              func(w *memory.EntryWrite) { w.Content = "The team offsite is in Porto." },
			"a negation":               func(w *memory.EntryWrite) { w.Content = "The team offsite is not in Lisbon." },
			"a place of the same kind": func(w *memory.EntryWrite) { w.Content = "The team offsite is in the Lisbon office." },
		}
		for name, edit := range cases {
			w := base
			edit(&w)
			if r := rememberOutcome(t, s, ann, w); r.Outcome != memory.WriteOutcomeStored || r.ID == first.ID {
				t.Errorf("%s: %s (%s), want a new memory", name, r.Outcome, r.ID)
			}
		}
		// Another agent's memory and a forgotten one are never what a write
		// repeats (a shared copy carries no dedup keys).
		if r := rememberOutcome(t, s, bob, base); r.Outcome != memory.WriteOutcomeStored {
			t.Errorf("bob: %s", r.Outcome)
		}
		if _, err := s.Publish(as(ann), first.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Forget(as(ann), first.ID, "wrong"); err != nil {
			t.Fatal(err)
		}
		if r := rememberOutcome(t, s, ann, base); r.ID == first.ID || r.Outcome != memory.WriteOutcomeStored {
			t.Errorf("after forgetting the first: %s %s, want another memory", r.Outcome, r.ID)
		}
	})
}

// A repeat that only adds tags is merged (seed 003's merge): stored as a
// new memory with the tags of both, the higher confidence and the first's
// count of tellings, one more; the first leaves search, superseded by it.
func TestRememberMergesARepeatWithNewTags(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		first := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The team offsite is in Lisbon.", Tags: []string{"offsite"},
			Source: "kickoff call", Confidence: conf(0.6)})
		m := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "the team offsite is in Lisbon", Tags: []string{"travel", "offsite"},
			Confidence: conf(0.9)})
		if m.Outcome != memory.WriteOutcomeMerged || m.MergedFrom != first.ID || m.ID == first.ID || m.Tier != "words" ||
			!slices.Equal(m.Tags, []string{"offsite", "travel"}) || m.Confidence != 0.9 || m.Source != "kickoff call" ||
			m.SeenCount != 2 || !m.OccurredAt.Equal(first.OccurredAt) || len(m.Conflicts) != 0 {
			t.Fatalf("merge: %+v", m)
		}
		got, err := s.Recall(as(ann), []string{first.ID})
		if err != nil || got[0].ArchiveReason != memory.ArchiveMerged || got[0].SupersededBy != m.ID {
			t.Fatalf("the merged memory: %+v, %v", got, err)
		}
		if hits := search(t, s, ann, memory.Query{Text: "team offsite Lisbon"}); !slices.Equal(hits, []string{m.ID}) {
			t.Fatalf("search finds %v, want the merge %s alone", hits, m.ID)
		}
		// Its repeat in the tags it now has is a duplicate of the merge.
		if r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The team offsite is in Lisbon.", Tags: []string{"travel"}}); r.Outcome != memory.WriteOutcomeDuplicate || r.ID != m.ID {
			t.Fatalf("a repeat of the merge: %s %s", r.Outcome, r.ID)
		}
	})
}

func TestRememberEpisodesAreApartByTime(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, clk := memoriesOn(t, openDB, nil)
		run := memory.EntryWrite{Content: "Went for a 5 km run along the river.", Category: memory.CategoryEpisodic}
		first := rememberOutcome(t, s, ann, run)
		if r := rememberOutcome(t, s, ann, run); r.Outcome != memory.WriteOutcomeDuplicate || r.ID != first.ID {
			t.Fatalf("the same episode told again at once: %s", r.Outcome)
		}
		clk.Advance(26 * time.Hour)
		if r := rememberOutcome(t, s, ann, run); r.Outcome != memory.WriteOutcomeStored {
			t.Fatalf("the same words a day later: %s, want a second episode", r.Outcome)
		}
		// A lasting statement said again a day later is still one memory.
		pref := memory.EntryWrite{Content: "Prefers tea to coffee."}
		p1 := rememberOutcome(t, s, ann, pref)
		clk.Advance(26 * time.Hour)
		if r := rememberOutcome(t, s, ann, pref); r.Outcome != memory.WriteOutcomeDuplicate || r.ID != p1.ID {
			t.Fatalf("a preference said again: %s", r.Outcome)
		}
	})
}

// A passing statement and a lasting one in the same words are two
// memories, whichever comes first: the lasting one must not vanish when the
// passing one expires.
func TestRememberExpiryIsPartOfWhatIsSaid(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, clk := memoriesOn(t, openDB, nil)
		passing := memory.EntryWrite{Content: "The freeze ends Friday.", ExpiresAt: clk.Peek().Add(time.Hour)}
		lasting := memory.EntryWrite{Content: "The freeze ends Friday."}
		a := rememberOutcome(t, s, ann, passing)
		if b := rememberOutcome(t, s, ann, lasting); b.Outcome != memory.WriteOutcomeStored || b.ID == a.ID {
			t.Fatalf("a lasting statement after a passing one: %s %s", b.Outcome, b.ID)
		}
		c := rememberOutcome(t, s, bob, lasting)
		if d := rememberOutcome(t, s, bob, passing); d.Outcome != memory.WriteOutcomeStored || d.ID == c.ID {
			t.Fatalf("a passing statement after a lasting one: %s %s", d.Outcome, d.ID)
		}
		if e := rememberOutcome(t, s, ann, passing); e.Outcome != memory.WriteOutcomeDuplicate || e.ID != a.ID {
			t.Fatalf("the same expiry again: %s %s, want a duplicate of %s", e.Outcome, e.ID, a.ID)
		}
	})
}

// A recurring episode is told again the same day as its latest telling,
// however many earlier days there were.
func TestRememberRecurringEpisode(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, clk := memoriesOn(t, openDB, nil)
		standup := memory.EntryWrite{Content: "Daily standup held.", Category: memory.CategoryEpisodic}
		var last memory.Remembered
		for range 10 {
			last = rememberOutcome(t, s, ann, standup)
			if last.Outcome != memory.WriteOutcomeStored {
				t.Fatalf("a new day's standup: %s", last.Outcome)
			}
			clk.Advance(24 * time.Hour)
		}
		clk.Advance(-24 * time.Hour)
		if r := rememberOutcome(t, s, ann, standup); r.Outcome != memory.WriteOutcomeDuplicate || r.ID != last.ID {
			t.Fatalf("the latest standup told again: %s %s, want a duplicate of %s", r.Outcome, r.ID, last.ID)
		}
	})
}

func TestRememberDedupOff(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		s.Dedup = false
		a := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Same."})
		b := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Same."})
		if a.ID == b.ID || b.Outcome != memory.WriteOutcomeStored {
			t.Fatal("with dedup off every write is stored")
		}
	})
}

// Memories written before dedup existed get their keys when the database is
// upgraded, so that a repeat of one of them is found.
func TestDedupMigrationKeysEarlierMemories(t *testing.T) {
	db := upgraded(t, "0009", func(old *store.DB) {
		exec(t, old, `INSERT INTO memories (id, agent_id, namespace, category, content, tags, confidence, shared,
			created_at, updated_at, occurred_at, filters) VALUES ('mem-old', 'ann', 'default', 'semantic', 'Prefers dark mode.', '[]', 1, 0, 1, 1, 1, '')`)
	})
	r := rememberOutcome(t, store.NewMemoryService(db, nil), ann, memory.EntryWrite{Content: "prefers dark mode"})
	if r.Outcome != memory.WriteOutcomeDuplicate || r.ID != "mem-old" || r.SeenCount != 2 {
		t.Fatalf("a repeat of a memory from before the upgrade: %s %s seen %d", r.Outcome, r.ID, r.SeenCount)
	}
}

// What a merge must not do: replace a human's memory by an agent's (or
// the other way round), split a memory from its shared copy, or decide a
// conflict anew. A merge carries the first memory's conflicts, decisions
// included.
func TestRememberMergesOnlyWhatItMay(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		human := memory.Identity{AgentID: "ann", Human: true}
		theirs := rememberOutcome(t, s, human, memory.EntryWrite{Content: "The flight is on Tuesday.", Tags: []string{"travel"}})
		if r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The flight is on Tuesday.", Tags: []string{"travel", "q3"}}); r.Outcome != memory.WriteOutcomeStored {
			t.Fatalf("an agent repeating a human's memory with a new tag: %s, want a memory of its own", r.Outcome)
		}
		if got, _ := s.Recall(as(ann), []string{theirs.ID}); got[0].ArchivedAt != nil {
			t.Fatalf("the human's memory was replaced: %+v", got[0])
		}

		published := rememberOutcome(t, s, bob, memory.EntryWrite{Content: "The wiki lives on Confluence.", Tags: []string{"docs"}})
		if _, err := s.Publish(as(bob), published.ID); err != nil {
			t.Fatal(err)
		}
		if r := rememberOutcome(t, s, bob, memory.EntryWrite{Content: "The wiki lives on Confluence.", Tags: []string{"docs", "wiki"}}); r.Outcome != memory.WriteOutcomeStored {
			t.Fatalf("a repeat of a shared memory with a new tag: %s, want a memory of its own", r.Outcome)
		}

		a := rememberOutcome(t, s, cy, memory.EntryWrite{Content: "Standup is on Tuesday.", Tags: []string{"team"}})
		b := rememberOutcome(t, s, cy, memory.EntryWrite{Content: "Standup is on Wednesday.", Tags: []string{"team"}})
		if _, err := s.ResolveConflict(as(cy), b.Conflicts[0].ID, memory.ConflictBothHold, "two standups"); err != nil {
			t.Fatal(err)
		}
		m := rememberOutcome(t, s, cy, memory.EntryWrite{Content: "Standup is on Tuesday.", Tags: []string{"team", "daily"}})
		if m.Outcome != memory.WriteOutcomeMerged || m.MergedFrom != a.ID || len(m.Conflicts) != 0 {
			t.Fatalf("merge: %+v", m)
		}
		cs, err := s.Conflicts(as(cy), memory.ConflictQuery{Resolutions: memory.ConflictResolutions})
		if err != nil || len(cs) != 1 || cs[0].OlderID != m.ID || cs[0].NewerID != b.ID || cs[0].Resolution != memory.ConflictBothHold {
			t.Fatalf("conflicts after the merge: %+v, %v", cs, err)
		}
		if got := search(t, s, cy, memory.Query{Text: "standup"}); len(got) != 2 {
			t.Fatalf("search after the merge finds %v, want the merge and Wednesday", got)
		}
	})
}

// An erase of either a merged memory or its merge takes both (each holds
// the other's words), and gc of a forgotten merge takes what it merged.
// SQLite only until erase runs on PostgreSQL (issue 24, the erasure work).
func TestEraseAndCollectFollowMerges(t *testing.T) {
	s, db, clock := memories(t, nil)
	pin := func(tag string) memory.Remembered {
		first := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "My bank PIN is 4711 " + tag + ".", Tags: []string{"bank"}})
		m := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "My bank PIN is 4711 " + tag + ".", Tags: []string{"bank", "pin"}})
		if m.Outcome != memory.WriteOutcomeMerged || m.MergedFrom != first.ID {
			t.Fatalf("merge: %+v", m)
		}
		return m
	}
	count := func() int {
		var n int
		if err := db.SQL().QueryRow(`SELECT count(*) FROM memories WHERE content LIKE 'My bank PIN%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	one := pin("one")
	if rep, err := s.Erase(as(alice), memory.ErasureRequest{IDs: []string{one.MergedFrom}, Reason: "pin"}); err != nil || rep.Counts[memory.ErasedMemories] != 2 {
		t.Fatalf("erasing the merged memory: %+v, %v", rep, err)
	}
	two := pin("two")
	if rep, err := s.Erase(as(alice), memory.ErasureRequest{IDs: []string{two.ID}, Reason: "pin"}); err != nil || rep.Counts[memory.ErasedMemories] != 2 {
		t.Fatalf("erasing the merge: %+v, %v", rep, err)
	}
	three := pin("three")
	if _, err := s.Forget(as(ann), three.ID, "changed"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(48 * time.Hour)
	err := db.Update(context.Background(), func(tx *store.Tx) error {
		_, err := tx.Collect(context.Background(), alice, store.Collection{Before: clock.Peek().Add(-time.Hour), Grace: time.Hour, Limit: 500})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d memories hold the PIN after erasing and collecting every one", n)
	}
}

// What review found of merges: a conflict decided after a merge reaches the
// memory it concerns; a merged memory is not restored beside its merge; a
// repeat that names the memory it merges as the one it supersedes is the
// merge; a merge past the limit of tags is a memory of its own; the merge
// keeps both sources and the first telling's time of writing.
func TestMergesAfterReview(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, clock := memoriesOn(t, openDB, nil)
		x := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The retro is on Monday.", Source: "calendar"})
		a := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The retro is on Friday.", Tags: []string{"team"}})
		clock.Advance(time.Hour)
		m := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The retro is on Friday.", Tags: []string{"team", "agile"}, Source: "standup"})
		if m.Outcome != memory.WriteOutcomeMerged || !m.CreatedAt.Equal(a.CreatedAt) {
			t.Fatalf("merge: %+v", m)
		}
		c, err := s.ResolveConflict(as(ann), a.Conflicts[0].ID, memory.ConflictOlderWins, "it is Monday")
		if err != nil || c.OlderID != x.ID || c.NewerID != m.ID {
			t.Fatalf("deciding the carried conflict: %+v, %v", c, err)
		}
		if got := search(t, s, ann, memory.Query{Text: "retro"}); !slices.Equal(got, []string{x.ID}) {
			t.Fatalf("search after keeping the older finds %v, want %s", got, x.ID)
		}
		if _, err := s.Restore(as(ann), "", a.ID); memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), m.ID) {
			t.Fatalf("restoring a merged memory: %v", err)
		}

		first := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Backups run at midnight.", Tags: []string{"ops"}, Source: "runbook"})
		named := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Backups run at midnight.", Tags: []string{"ops", "db"},
			Source: "oncall", Supersedes: first.ID})
		if named.Outcome != memory.WriteOutcomeMerged || named.MergedFrom != first.ID || named.Source != "runbook; oncall" {
			t.Fatalf("a merge naming what it merges: %+v", named)
		}

		many := make([]string, memory.MaxTags)
		for i := range many {
			many[i] = fmt.Sprintf("t%02d", i)
		}
		full := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The pager rota is weekly.", Tags: many})
		if r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The pager rota is weekly.", Tags: []string{"extra"}}); r.Outcome != memory.WriteOutcomeStored || r.ID == full.ID {
			t.Fatalf("a merge past the limit of tags: %s", r.Outcome)
		}
	})
}

// The semantic tier: the same content words in another order or form are
// a repeat, held to the other tiers' conditions; a word of the same kind
// (the vectors' nearest neighbour) is something new.
func TestRememberARestatementIsSemanticDuplicate(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		s := store.NewMemoryService(db, nil)
		s.Contradictions = memory.ContradictionsOff
		first := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Alice manages the platform team.", Tags: []string{"org"}})
		call := &store.Call{Principal: ann.Principal(), Tool: "remember", Started: clk.Peek(), Gates: map[string]time.Duration{}}
		r, err := s.Remember(store.WithCall(as(ann), call), memory.EntryWrite{Content: "The platform team is managed by Alice."})
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != memory.WriteOutcomeDuplicate || r.Tier != memory.DedupSemantic || r.ID != first.ID || r.SeenCount != 2 {
			t.Fatalf("a restatement: %s tier %q %s seen %d, want a semantic duplicate of %s", r.Outcome, r.Tier, r.ID, r.SeenCount, first.ID)
		}
		if call.Outcome != memory.WriteOutcomeDuplicate || call.Reason != memory.DedupSemantic || call.Ref != first.ID {
			t.Fatalf("the write log would record %s %q %s", call.Outcome, call.Reason, call.Ref)
		}
		m := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The platform team is managed by Alice.", Tags: []string{"org", "q3"}})
		if m.Outcome != memory.WriteOutcomeMerged || m.Tier != memory.DedupSemantic || m.MergedFrom != first.ID || !slices.Equal(m.Tags, []string{"org", "q3"}) {
			t.Fatalf("a restatement with a new tag: %+v, want a merge", m)
		}
		for name, w := range map[string]memory.EntryWrite{
			"a word of the same kind": {Content: "Alice manages the data team."},
			"the roles swapped":       {Content: "The platform team manages Alice."},
			"another category":        {Content: "The platform team is managed by Alice.", Category: memory.CategorySocial},
			"another namespace":       {Content: "The platform team is managed by Alice.", Namespace: "work"},
			"an expiry":               {Content: "The platform team is managed by Alice.", ExpiresAt: clk.Peek().Add(48 * time.Hour)},
		} {
			if r := rememberOutcome(t, s, ann, w); r.Outcome != memory.WriteOutcomeStored {
				t.Errorf("%s: %s (%s tier %q), want a new memory", name, r.Outcome, r.ID, r.Tier)
			}
		}
		if r := rememberOutcome(t, s, bob, memory.EntryWrite{Content: "The platform team is managed by Alice."}); r.Outcome != memory.WriteOutcomeStored {
			t.Errorf("another agent: %s", r.Outcome)
		}
		s.Dedup = false
		if r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Alice is who manages the platform team."}); r.Outcome != memory.WriteOutcomeStored {
			t.Errorf("dedup off: %s", r.Outcome)
		}
	})
}

// Memories written before the semantic tier get their meaning keys when the
// database is upgraded, so that a restatement of one of them is found.
func TestMeaningKeyMigrationKeysEarlierMemories(t *testing.T) {
	db := upgraded(t, "0018", func(old *store.DB) {
		exec(t, old, `INSERT INTO memories (id, agent_id, namespace, category, content, tags, confidence, shared,
			created_at, updated_at, occurred_at, filters) VALUES ('mem-old', 'ann', 'default', 'semantic', 'The user prefers dark mode.', '[]', 1, 0, 1, 1, 1, '')`)
	})
	r := rememberOutcome(t, store.NewMemoryService(db, nil), ann, memory.EntryWrite{Content: "Dark mode is what the user prefers."})
	if r.Outcome != memory.WriteOutcomeDuplicate || r.Tier != memory.DedupSemantic || r.ID != "mem-old" {
		t.Fatalf("a restatement of a memory from before the upgrade: %s %s tier %q", r.Outcome, r.ID, r.Tier)
	}
}

// The repro: a memory that differs from an earlier one by a word
// sharing its first five letters says something else. remember stores it,
// search finds it by that word, and publish_memory shares it beside the
// other's shared copy.
func TestNearStemWordIsNotARepeat(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, db, _ := memoriesOn(t, openDB, nil)
		first := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Ann works on the internal API."})
		second := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Ann works on the international API."})
		if first.Outcome != memory.WriteOutcomeStored || second.Outcome != memory.WriteOutcomeStored || second.ID == first.ID {
			t.Fatalf("second memory: %s (tier %q), want stored apart from %s", second.Outcome, second.Tier, first.ID)
		}
		// Search reads wider than dedup writes: the full-text index's Porter
		// stemmer takes "internal" for "international" too, which finds one
		// memory more rather than loses one.
		if hits := search(t, s, ann, memory.Query{Text: "international"}); !slices.Contains(hits, second.ID) {
			t.Fatalf("search international: %v, want the second memory %s among them", hits, second.ID)
		}
		for _, p := range [][2]string{
			{"Grandpa's memory service is on Sunday.", "Grandpa's memorial service is on Sunday."},
			{"The contract team signs off on releases.", "The control team signs off on releases."},
			{"Lena wants a custom report every Friday.", "Lena wants a customer report every Friday."},
		} {
			a := publishOf(t, s, bob, memory.EntryWrite{Content: p[0]})
			b := publishOf(t, s, bob, memory.EntryWrite{Content: p[1]})
			if a.Outcome != memory.WriteOutcomeStored || b.Outcome != memory.WriteOutcomeStored || a.ID == b.ID {
				t.Errorf("publish %q after %q: %s (tier %q), want a shared copy of its own", p[1], p[0], b.Outcome, b.Tier)
			}
		}
		if n := activeShared(t, db); n != 6 {
			t.Errorf("%d shared memories, want 6", n)
		}
		// A true repeat is still one: the same words in another form.
		again := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Ann is working on the international API."})
		if again.Outcome != memory.WriteOutcomeDuplicate || again.ID != second.ID {
			t.Errorf("a restatement: %s of %s, want a duplicate of %s", again.Outcome, again.ID, second.ID)
		}
	})
}

// Memories and their claims from before the text rules changed are keyed
// again when the database is upgraded: a repeat of one is found by the
// new rules' keys, and a contradiction of one by its claims, a shared
// copy's under the shared space.
func TestTextRulesMigrationRekeysEarlierMemories(t *testing.T) {
	db := upgraded(t, "0022", func(old *store.DB) {
		exec(t, old, `INSERT INTO memories (id, agent_id, namespace, category, content, tags, confidence, shared,
			created_at, updated_at, occurred_at, filters, exact_key, words_key, meaning_key, published_from) VALUES
			('mem-colour', 'ann', 'default', 'semantic', 'The user''s favourite colour is green.', '[]', 1, 0, 1, 1, 1, '', 'old', 'old', 'old', NULL),
			('mem-flight', 'ann', 'default', 'semantic', 'The flight is on Tuesday.', '[]', 1, 0, 1, 1, 1, '', 'old', 'old', 'old', NULL),
			('mem-shared', 'bob', 'default', 'semantic', 'The deploy window is on Friday.', '[]', 1, 1, 1, 1, 1, '', 'old', 'old', 'old', 'mem-colour')`)
	})
	for id, content := range map[string]string{"mem-colour": "The user's favourite colour is green.", "mem-shared": "The deploy window is on Friday."} {
		exact, words := text.DedupKeys(content)
		var e, w, m string
		if err := db.SQL().QueryRow(`SELECT exact_key, words_key, meaning_key FROM memories WHERE id = ?`, id).Scan(&e, &w, &m); err != nil ||
			e != exact || w != words || m != text.MeaningKey(content) {
			t.Errorf("%s: keys %q %q %q (%v), want them derived again", id, e, w, m, err)
		}
	}
	s := store.NewMemoryService(db, nil)
	if r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The user's favorite color is green."}); r.Outcome != memory.WriteOutcomeDuplicate || r.ID != "mem-colour" {
		t.Errorf("a repeat of a memory from before the upgrade: %s %s tier %q", r.Outcome, r.ID, r.Tier)
	}
	r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The flight is on Wednesday."})
	if len(r.Conflicts) != 1 || r.Conflicts[0].OlderID != "mem-flight" {
		t.Errorf("a contradiction of a memory from before the upgrade: %+v", r.Conflicts)
	}
	var shared int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM memory_claims c JOIN memories m ON m.pk = c.memory_pk
		WHERE m.id = 'mem-shared' AND c.agent_id = '*shared'`).Scan(&shared); err != nil || shared == 0 {
		t.Errorf("the shared copy's claims: %d (%v), want them under the shared space", shared, err)
	}
}

// Memories and facts keyed before case, a number's separators,
// identifiers and -s nouns of their own told memories apart are keyed
// again on upgrade (migration 0043), on both engines: each key is the
// rules' as they now are, a repeat of an earlier memory is still found,
// and a memory that differs from it only in what the old keys folded is
// stored apart.
func TestDedupRekeyMigration(t *testing.T) {
	const it, budget = "IT handles it.", "The budget is $1,000."
	ids := map[string]string{}
	setup := func(t *testing.T, old *store.DB) {
		s := store.NewMemoryService(old, nil)
		ids[it] = remember(t, s, ann, memory.EntryWrite{Content: it}).ID
		ids[budget] = remember(t, s, ann, memory.EntryWrite{Content: budget}).ID
		if _, err := store.NewFactService(old).Publish(as(senior), memory.FactWrite{FactID: "news",
			Content: "The news team owns the homepage.", Category: memory.FactConvention}); err != nil {
			t.Fatal(err)
		}
		// As the earlier rules keyed them: case and every s folded.
		exec(t, old, `UPDATE memories SET exact_key = 'old', words_key = 'old', meaning_key = 'old'`,
			`UPDATE snapshot SET words_key = 'old'`)
	}
	check := func(t *testing.T, db *store.DB) {
		checkRekeyed(t, db, ids)
		var fw string
		if _, words := text.DedupKeys("The news team owns the homepage."); db.SQL().QueryRow(`SELECT words_key FROM snapshot WHERE fact_id = 'news'`).Scan(&fw) != nil || fw != words {
			t.Errorf("the fact's words key %q, want it derived again", fw)
		}
		s := store.NewMemoryService(db, nil)
		if r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The budget is $1000."}); r.Outcome != memory.WriteOutcomeDuplicate {
			t.Errorf("a repeat of a memory from before the upgrade: %s (tier %q)", r.Outcome, r.Tier)
		}
		if r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "it handles it."}); r.Outcome != memory.WriteOutcomeStored {
			t.Errorf("a different memory after one from before the upgrade: %s (tier %q)", r.Outcome, r.Tier)
		}
	}
	onUpgrade(t, "0043", setup, check)
}

// Migration 0048 runs the re-key again for paths, units, amounts and code
// marks, on both engines: the keys are the rules' as they now are, a
// repeat told with other spacing of its unit is found, and a path swapped
// is stored apart.
func TestDedupRekeyPathsUnitsMigration(t *testing.T) {
	const limit, scripts = "The upload limit is 10 MB.", "Deploy scripts live in scripts/deploy/."
	ids := map[string]string{}
	setup := func(t *testing.T, old *store.DB) {
		s := store.NewMemoryService(old, nil)
		for _, c := range []string{limit, scripts} {
			ids[c] = remember(t, s, ann, memory.EntryWrite{Content: c}).ID
		}
		exec(t, old, `UPDATE memories SET exact_key = 'old', words_key = 'old', meaning_key = 'old'`)
	}
	check := func(t *testing.T, db *store.DB) {
		checkRekeyed(t, db, ids)
		s := store.NewMemoryService(db, nil)
		if r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The upload limit is 10MB."}); r.Outcome != memory.WriteOutcomeDuplicate {
			t.Errorf("a repeat of a memory from before the upgrade: %s (tier %q)", r.Outcome, r.Tier)
		}
		if r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Deploy scripts live in deploy/scripts/."}); r.Outcome != memory.WriteOutcomeStored {
			t.Errorf("a different memory after one from before the upgrade: %s (tier %q)", r.Outcome, r.Tier)
		}
	}
	onUpgrade(t, "0048", setup, check)
}

// Migration 0050 runs the re-key again for camel case and capitals after
// a determiner, on both engines: a repeat of a memory from before the
// upgrade is found, and a name told apart by its case is stored.
func TestDedupRekeyCamelCaseMigration(t *testing.T) {
	const helper, gate = "The helper is named getURL.", "The NOT gate feeds the latch."
	ids := map[string]string{}
	setup := func(t *testing.T, old *store.DB) {
		s := store.NewMemoryService(old, nil)
		for _, c := range []string{helper, gate} {
			ids[c] = remember(t, s, ann, memory.EntryWrite{Content: c}).ID
		}
		// As the earlier rules keyed them: "getURL" and "NOT" folded.
		for _, c := range []string{helper, gate} {
			exact, words := text.DedupKeys(strings.ToLower(c))
			exec(t, old, `UPDATE memories SET exact_key = '`+exact+`', words_key = '`+words+`', meaning_key = 'old' WHERE id = '`+ids[c]+`'`)
		}
	}
	check := func(t *testing.T, db *store.DB) {
		checkRekeyed(t, db, ids)
		s := store.NewMemoryService(db, nil)
		for content, want := range map[string]memory.WriteOutcome{
			"The helper is named getURL!":   memory.WriteOutcomeDuplicate,
			"The helper is named getUrl.":   memory.WriteOutcomeStored,
			"The not gate feeds the latch.": memory.WriteOutcomeStored,
			"the NOT gate feeds the latch.": memory.WriteOutcomeDuplicate,
		} {
			if r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: content}); r.Outcome != want {
				t.Errorf("%q after the upgrade: %s (tier %q), want %s", content, r.Outcome, r.Tier, want)
			}
		}
	}
	onUpgrade(t, "0050", setup, check)
}

// checkRekeyed checks that each memory of ids (by content) has the exact,
// words and meaning keys the rules now derive from its content.
func checkRekeyed(t *testing.T, db *store.DB, ids map[string]string) {
	t.Helper()
	for content, id := range ids {
		exact, words := text.DedupKeys(content)
		var e, w, m string
		if err := db.SQL().QueryRow(`SELECT exact_key, words_key, meaning_key FROM memories WHERE id = '`+id+`'`).Scan(&e, &w, &m); err != nil ||
			e != exact || w != words || m != text.MeaningKey(content) {
			t.Errorf("%q: keys %q %q %q (%v), want them derived again", content, e, w, m, err)
		}
	}
}

// onUpgrade runs setup on a store migrated up to before migration, on
// each engine, and check on it once opened by the current binary.
func onUpgrade(t *testing.T, migration string, setup, check func(*testing.T, *store.DB)) {
	t.Run("sqlite", func(t *testing.T) {
		check(t, upgraded(t, migration, func(old *store.DB) { setup(t, old) }))
	})
	t.Run("postgres", func(t *testing.T) {
		ctx := context.Background()
		url := storetest.PostgresURL(t)
		old, err := store.OpenPostgresWith(ctx, url, postgresMigrationsBefore(migration))
		if err != nil {
			t.Fatal(err)
		}
		setup(t, old)
		old.Close()
		db, err := store.OpenPostgres(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		check(t, db)
	})
}
