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

// TestSearchFindsARepeatsWordsEndToEnd: words remember answered as a
// duplicate are searched with their author's searches, through the
// checking client.
func TestSearchFindsARepeatsWordsEndToEnd(t *testing.T) {
	s := startIn(t, options{args: []string{"--agent-id", "ann"}})
	var first, again memoryResult
	s.ok("remember", map[string]any{"content": "The color of the logo is blue."}, &first)
	s.ok("remember", map[string]any{"content": "The colour of the logo is blue."}, &again)
	if again.ID != first.ID {
		t.Fatalf("the British spelling was stored as %s, not answered a repeat of %s: the test asks nothing", again.ID, first.ID)
	}
	var sr searchResult
	s.ok("search_memory", map[string]any{"query": "colour"}, &sr)
	if !slices.Equal(sr.ids(), []string{first.ID}) {
		t.Errorf("search_memory colour found %v, want %s, which the repeat was folded into", sr.ids(), first.ID)
	}
}
