package store_test

import (
	"slices"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// Near-stem words are different words to a search (issue 22): the full-text
// index folds inflection (plurals, tenses) and nothing else, on both
// engines. The Porter stemmer FTS5 indexed with before made "international"
// find "internal".
func TestSearchKeepsNearStemWordsApart(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		ids := map[string]string{}
		for _, w := range []string{"internal", "international", "memory", "memorial", "account", "accounting", "server", "deploy"} {
			ids[w] = remember(t, s, ann, memory.EntryWrite{Content: "Ann wrote about the " + w + " on Tuesday"}).ID
		}
		finds := func(query string) []string { return search(t, s, ann, memory.Query{Text: query}) }
		for _, pair := range [][2]string{{"internal", "international"}, {"memory", "memorial"}, {"account", "accounting"}} {
			for i, w := range pair {
				other := pair[1-i]
				got := finds(w)
				if !slices.Contains(got, ids[w]) || slices.Contains(got, ids[other]) {
					t.Errorf("search %q found %v: want %s (%s) without %s (%s)", w, got, ids[w], w, ids[other], other)
				}
			}
		}
		for query, w := range map[string]string{"servers": "server", "deployed": "deploy", "memories": "memory", "accounts": "account"} {
			if got := finds(query); !slices.Equal(got, []string{ids[w]}) {
				t.Errorf("search %q found %v: want only %s (%s)", query, got, ids[w], w)
			}
		}
	})
}

// What a query holds besides words (quotes, backslashes, tsquery and FTS5
// operators, column filters, a word longer than any term) is never read as
// syntax by either engine's index.
func TestSearchReadsOperatorsAsText(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, db, _ := memoriesOn(t, openDB, nil)
		long := strings.Repeat("z", 3000)
		want := remember(t, s, ann, memory.EntryWrite{Content: "O'Brien's back\\slash note: a&b | !c (d) <-> e:* " + long}).ID
		for _, q := range []string{`O'Brien`, `back\slash`, `a&b`, `| !c`, `(d) <-> e:*`, `"unbalanced NEAR( content:* OR`, long, `obrien's`} {
			hits, err := s.Search(as(ann), memory.Query{Text: q})
			if err != nil {
				t.Errorf("search %q: %v", q, err)
				continue
			}
			finds := q != `obrien's` && !strings.Contains(q, "unbalanced")
			if finds && (len(hits) != 1 || hits[0].ID != want) {
				t.Errorf("search %q found %d hits, want %s", q, len(hits), want)
			}
		}
		facts := store.NewFactService(db)
		if _, err := facts.Publish(as(senior), memory.FactWrite{FactID: "quote", Content: "O'Brien's a&b note", Category: memory.FactConvention}); err != nil {
			t.Fatal(err)
		}
		if got, err := facts.Query(as(senior), memory.FactQuery{Text: `O'Brien's | !a&b (`}); err != nil || len(got) != 1 {
			t.Errorf("fact query: %d found, %v", len(got), err)
		}
	})
}

// The archive is its own index on both engines: an archived memory leaves
// the active one and is found only when the search includes the archive.
func TestSearchFindsTheArchiveOnlyWhenAsked(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, db, _ := memoriesOn(t, openDB, nil)
		kept := remember(t, s, ann, memory.EntryWrite{Content: "the quarterly accounting close"}).ID
		old := remember(t, s, ann, memory.EntryWrite{Content: "last year's accounting close, archived"}).ID
		if _, err := db.SQL().Exec(`UPDATE memories SET archived_at = 1, archive_reason = 'expired' WHERE id = '` + old + `'`); err != nil {
			t.Fatal(err)
		}
		if got := search(t, s, ann, memory.Query{Text: "accounting close"}); !slices.Equal(got, []string{kept}) {
			t.Errorf("without the archive: %v, want %s", got, kept)
		}
		got := search(t, s, ann, memory.Query{Text: "accounting close archived", IncludeArchived: true})
		if len(got) != 2 || got[0] != old {
			t.Errorf("with the archive: %v, want %s first, then %s", got, old, kept)
		}
	})
}
