package store_test

import (
	"slices"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
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
