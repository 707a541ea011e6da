package main

import (
	"slices"
	"testing"
)

// TestSearchSignedNamesAndJapaneseEndToEnd: through the checking client,
// "C#" and "C++" are two memories (dedup stores both) and a search for one
// finds only it; a Japanese sentence, written without spaces, is found by
// a word inside it.
func TestSearchSignedNamesAndJapaneseEndToEnd(t *testing.T) {
	s := startIn(t, options{args: []string{"--agent-id", "ann"}})
	ids := map[string]string{}
	for _, c := range []string{"I write C++ at work.", "I write C# at work.", "昨日は東京タワーに行きました。"} {
		var r memoryResult
		s.ok("remember", map[string]any{"content": c}, &r)
		for other, id := range ids {
			if id == r.ID {
				t.Fatalf("remember %q answered %s, the memory of %q: a different memory must be stored", c, id, other)
			}
		}
		ids[c] = r.ID
	}
	for q, want := range map[string]string{"C#": "I write C# at work.", "C++": "I write C++ at work.", "東京": "昨日は東京タワーに行きました。",
		"タワー": "昨日は東京タワーに行きました。"} {
		var sr searchResult
		s.ok("search_memory", map[string]any{"query": q}, &sr)
		if !slices.Equal(sr.ids(), []string{ids[want]}) {
			t.Errorf("search_memory %q found %v, want only %s (%q)", q, sr.ids(), ids[want], want)
		}
	}
}
