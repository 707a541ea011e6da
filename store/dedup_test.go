package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
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
	emb := hashEmbedder("hash-32", 32)
	s, _, _ := memories(t, &emb)
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
}

func TestRememberWhatAddsSomethingIsStored(t *testing.T) {
	s, _, _ := memories(t, nil)
	base := memory.EntryWrite{Content: "The team offsite is in Lisbon.", Namespace: "travel", Tags: []string{"offsite"}}
	first := rememberOutcome(t, s, ann, base)
	at := func(d time.Duration) time.Time { return first.CreatedAt.Add(d) }
	cases := map[string]func(w *memory.EntryWrite){
		"another namespace":         func(w *memory.EntryWrite) { w.Namespace = "default" },
		"another category":          func(w *memory.EntryWrite) { w.Category = memory.CategorySocial },
		"a new tag":                 func(w *memory.EntryWrite) { w.Tags = []string{"offsite", "2026"} },
		"an expiry":                 func(w *memory.EntryWrite) { w.ExpiresAt = at(48 * time.Hour) },
		"a time it occurred":        func(w *memory.EntryWrite) { w.OccurredAt = at(-400 * 24 * time.Hour) },
		"other words":               func(w *memory.EntryWrite) { w.Content = "The team offsite is in Porto." },
		"a negation":                func(w *memory.EntryWrite) { w.Content = "The team offsite is not in Lisbon." },
		"the same words, reordered": func(w *memory.EntryWrite) { w.Content = "In Lisbon is the team offsite." },
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
	// (The memory with the extra tag says all base says: that one counts.)
	if r := rememberOutcome(t, s, ann, base); r.ID == first.ID {
		t.Errorf("after forgetting the first: %s %s, want another memory", r.Outcome, r.ID)
	}
}

func TestRememberEpisodesAreApartByTime(t *testing.T) {
	s, _, clk := memories(t, nil)
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
}

// A passing statement and a lasting one in the same words are two
// memories, whichever comes first: the lasting one must not vanish when the
// passing one expires.
func TestRememberExpiryIsPartOfWhatIsSaid(t *testing.T) {
	s, _, clk := memories(t, nil)
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
}

// A recurring episode is told again the same day as its latest telling,
// however many earlier days there were.
func TestRememberRecurringEpisode(t *testing.T) {
	s, _, clk := memories(t, nil)
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
}

func TestRememberDedupOff(t *testing.T) {
	s, _, _ := memories(t, nil)
	s.Dedup = false
	a := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Same."})
	b := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Same."})
	if a.ID == b.ID || b.Outcome != memory.WriteOutcomeStored {
		t.Fatal("with dedup off every write is stored")
	}
}

// Memories written before dedup existed get their keys when the database is
// upgraded, so that a repeat of one of them is found.
func TestDedupMigrationKeysEarlierMemories(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	old, err := store.OpenWith(context.Background(), path, migrationsBefore("0009"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = old.SQL().Exec(`INSERT INTO memories (id, agent_id, namespace, category, content, tags, confidence, shared,
		created_at, updated_at, occurred_at, filters) VALUES ('mem-old', 'ann', 'default', 'semantic', 'Prefers dark mode.', '[]', 1, 0, 1, 1, 1, '')`)
	if err != nil {
		t.Fatal(err)
	}
	old.Close()
	db, err := store.OpenWith(context.Background(), path, store.MigrationFS)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := rememberOutcome(t, store.NewMemoryService(db, nil), ann, memory.EntryWrite{Content: "prefers dark mode"})
	if r.Outcome != memory.WriteOutcomeDuplicate || r.ID != "mem-old" || r.SeenCount != 2 {
		t.Fatalf("a repeat of a memory from before the upgrade: %s %s seen %d", r.Outcome, r.ID, r.SeenCount)
	}
}
