package store_test

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// scored is one search result as a ranking shows it.
type scored struct {
	ID    string
	Score float64
}

func ranking(t testing.TB, s *store.MemoryService, who memory.Identity, q memory.Query) []scored {
	t.Helper()
	hits, err := s.Search(as(who), q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	out := make([]scored, len(hits))
	for i, h := range hits {
		out[i] = scored{h.ID, h.Score}
	}
	return out
}

// One agent's private memories never move another agent's ranking or
// scores: document frequencies, N, mean length, the match budget and the
// soft list's IDF are all counted inside the spaces the searcher reads.
func TestSearchStatisticsArePerSpace(t *testing.T) {
	defer store.SetMatchBudget(40)()
	emb := wordvec.New()
	s, _, _ := memories(t, &emb)
	s.Words = store.NewWordVectors(wordvec.New())
	carol := memory.Identity{AgentID: "carol"}
	for _, c := range []string{"note about kumquat", "note about quince", "quince jam recipe from grandma"} {
		remember(t, s, bob, memory.EntryWrite{Content: c})
	}
	for i := range 5 {
		remember(t, s, bob, memory.EntryWrite{Content: fmt.Sprintf("filler memory number %d about the weather", i)})
	}
	// A shared memory, so that scope all and shared read more than bob's own.
	pub := remember(t, s, carol, memory.EntryWrite{Content: "kumquat trees need sun"})
	if _, err := s.Publish(as(carol), pub.ID); err != nil {
		t.Fatal(err)
	}
	snapshot := func() map[string][]scored {
		out := map[string][]scored{}
		for _, q := range []string{"kumquat quince", "quince", "note about kumquat", "kumquat recipes"} {
			for _, sc := range []memory.Scope{memory.ScopePersonal, memory.ScopeAll, memory.ScopeShared} {
				out[q+"/"+string(sc)] = ranking(t, s, bob, memory.Query{Text: q, Scope: sc})
			}
		}
		return out
	}
	before := snapshot()
	if len(before["kumquat quince/personal"]) < 2 || len(before["kumquat quince/all"]) < 3 {
		t.Fatalf("setup: %v", before)
	}
	// Ann writes many private memories with bob's words: the global counts
	// of "kumquat" and "quince" grow far past the match budget.
	for i := range 30 {
		remember(t, s, ann, memory.EntryWrite{Content: fmt.Sprintf("private: kumquat shipment %d", i)})
	}
	for i := range 60 {
		remember(t, s, ann, memory.EntryWrite{Content: fmt.Sprintf("private: quince order %d, note about the weather", i)})
	}
	if after := snapshot(); !reflect.DeepEqual(before, after) {
		for k := range before {
			if !reflect.DeepEqual(before[k], after[k]) {
				t.Errorf("%s: before %v, after %v", k, before[k], after[k])
			}
		}
	}
}

// The token counts kept per space are the full-text index's own, so the
// mean length BM25 uses is exact; forgetting takes a memory's share out.
func TestSpaceTokensMatchTheIndex(t *testing.T) {
	s, db, _ := memories(t, nil)
	for _, w := range []memory.EntryWrite{
		{Content: "Deploy v2.3 to staging; the API's p99 is 120ms", Tags: []string{"deploy", "api-latency"}},
		{Content: "Ünïcödé ✓ 部署 naïve café — done", Tags: []string{"i18n"}},
		{Content: "snake_case_identifier and CamelCase", Tags: nil},
	} {
		remember(t, s, ann, w)
	}
	gone := remember(t, s, ann, memory.EntryWrite{Content: "to be forgotten soon"})
	if _, err := s.Forget(as(ann), gone.ID, ""); err != nil {
		t.Fatal(err)
	}
	sql := db.SQL()
	if _, err := sql.Exec(`CREATE VIRTUAL TABLE temp.memory_terms USING fts5vocab(main, memory_fts, 'instance')`); err != nil {
		t.Fatal(err)
	}
	var indexed, kept, rows int
	if err := sql.QueryRow(`SELECT count(*) FROM temp.memory_terms WHERE col IN ('content', 'tags')`).Scan(&indexed); err != nil {
		t.Fatal(err)
	}
	if err := sql.QueryRow(`SELECT tokens, rows FROM memory_spaces WHERE agent_id = 'ann' AND shared = 0`).Scan(&kept, &rows); err != nil {
		t.Fatal(err)
	}
	if indexed != kept || rows != 3 {
		t.Fatalf("index holds %d tokens, memory_spaces %d over %d rows (want 3)", indexed, kept, rows)
	}
}

// A database made before migration 0005 keeps its memories' statistics:
// the migration counts every existing memory's tokens (as the index does)
// and every live memory into its space.
// migrationsBefore are the migrations whose names sort before name: the
// schema a database had before that one, for upgrade tests.
func migrationsBefore(name string) fstest.MapFS {
	before := fstest.MapFS{}
	names, _ := fs.Glob(store.MigrationFS, "*.sql")
	for _, n := range names {
		if n < name {
			b, _ := fs.ReadFile(store.MigrationFS, n)
			before[n] = &fstest.MapFile{Data: b}
		}
	}
	return before
}

// postgresMigrationsBefore are the PostgreSQL migrations whose names sort
// before name, as migrationsBefore are SQLite's.
func postgresMigrationsBefore(name string) fstest.MapFS {
	before := fstest.MapFS{}
	names, _ := fs.Glob(store.PostgresMigrations, "*.sql")
	for _, n := range names {
		if n < name {
			b, _ := fs.ReadFile(store.PostgresMigrations, n)
			before[n] = &fstest.MapFile{Data: b}
		}
	}
	return before
}

// upgraded opens a database with the migrations before name, lets setup
// write into it as the build of that schema would, then reopens it with
// every migration: a database upgraded from before name.
func upgraded(t *testing.T, name string, setup func(old *store.DB)) *store.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), store.FileName)
	old, err := store.OpenWith(context.Background(), path, migrationsBefore(name))
	if err != nil {
		t.Fatal(err)
	}
	setup(old)
	old.Close()
	db, err := store.OpenWith(context.Background(), path, store.MigrationFS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// exec runs statements on db, failing the test on the first error.
func exec(t *testing.T, db *store.DB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := db.SQL().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func TestSpacesMigrationCountsEarlierMemories(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	old, err := store.OpenWith(context.Background(), path, migrationsBefore("0005"))
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range []struct {
		id, agent, content, tags string
		shared, forgotten        bool
	}{
		{"mem-a1", "ann", "Deploy v2.3 to staging; the API's p99 is 120ms", `["deploy","api-latency"]`, false, false},
		{"mem-a2", "ann", "Ünïcödé ✓ 部署 naïve café — done", `["i18n"]`, false, false},
		{"mem-a3", "ann", "forgotten before the upgrade", `[]`, false, true},
		{"mem-b1", "bob", "bob's only memory", `[]`, false, false},
		{"mem-b2", "bob", "bob's only memory", `[]`, true, false},
	} {
		var from any
		if m.shared {
			from = "mem-b1"
		}
		var forgotten any
		if m.forgotten {
			forgotten = int64(i + 1)
		}
		_, err := old.SQL().Exec(`INSERT INTO memories (id, agent_id, namespace, category, content, tags, confidence, shared,
			created_at, updated_at, occurred_at, published_from, forgotten_at, filters)
			VALUES (?, ?, 'default', 'semantic', ?, ?, 1, ?, 1, 1, 1, ?, ?, '')`, m.id, m.agent, m.content, m.tags, m.shared, from, forgotten)
		if err != nil {
			t.Fatal(err)
		}
	}
	old.Close()

	db, err := store.OpenWith(context.Background(), path, store.MigrationFS)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := map[string][2]int{}
	rows, err := db.SQL().Query(`SELECT agent_id, shared, rows, tokens FROM memory_spaces`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var agent string
		var shared, n, tokens int
		rows.Scan(&agent, &shared, &n, &tokens)
		got[fmt.Sprintf("%s/%d", agent, shared)] = [2]int{n, tokens}
	}
	// ann: 10 + 3 tag tokens ("API's" and "api-latency" are two each,
	// "v2.3" one since 0044 counts again), then 5 + 1 (✓ and — are no
	// tokens, 部署 one pair); bob: 4 each ("bob's"). ann's forgotten memory
	// counts nowhere.
	want := map[string][2]int{"ann/0": {2, 10 + 3 + 5 + 1}, "bob/0": {1, 4}, "bob/1": {1, 4}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("memory_spaces after the upgrade = %v, want %v", got, want)
	}
}
