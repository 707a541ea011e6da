package store_test

import (
	"slices"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

// TestSearchKeepsSignedNamesApart: "C#" is not "C++", nor "C", nor "F#";
// ".NET" and "Node.js" are names, on both engines, in the index, the
// query and dedup alike.
func TestSearchKeepsSignedNamesApart(t *testing.T) {
	onEngines(t, func(t *testing.T, open opener) {
		s, _, _ := memoriesOn(t, open, nil)
		texts := []string{"I write C++ at work.", "I write C# at work.", "I write C at work.", "I write F# at work.",
			"Our services run on .NET at work.", "The web tier runs Node.js at work.", "The net at work is slow."}
		ids := map[string]string{}
		for _, c := range texts {
			r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: c})
			if r.Outcome != memory.WriteOutcomeStored {
				t.Fatalf("remember %q: %s (%s) of %s, want stored: a different language is a different memory", c, r.Outcome, r.Tier, r.ID)
			}
			ids[r.ID] = c
		}
		for q, want := range map[string]string{"C#": "I write C# at work.", "c++": "I write C++ at work.", "F#": "I write F# at work.",
			".NET": "Our services run on .NET at work.", "node.js": "The web tier runs Node.js at work.", "who knows C# well?": "I write C# at work."} {
			var got []string
			for _, id := range search(t, s, ann, memory.Query{Text: q}) {
				got = append(got, ids[id])
			}
			if !slices.Equal(got, []string{want}) {
				t.Errorf("search %q found %q, want only %q", q, got, want)
			}
		}
	})
}

// TestSearchFindsWordsInsideCJK: Japanese and Chinese are written without
// spaces; a word inside a sentence is found by its pairs of characters, on
// both engines.
func TestSearchFindsWordsInsideCJK(t *testing.T) {
	onEngines(t, func(t *testing.T, open opener) {
		s, _, _ := memoriesOn(t, open, nil)
		texts := []string{"昨日は東京タワーに行きました。", "大阪で寿司を食べた", "我们明天去北京开会", "Ann moved to 京都 last year"}
		ids := map[string]string{}
		for _, c := range texts {
			ids[remember(t, s, ann, memory.EntryWrite{Content: c}).ID] = c
		}
		for q, want := range map[string][]string{
			"東京":       {"昨日は東京タワーに行きました。"},
			"タワー":      {"昨日は東京タワーに行きました。"},
			"寿司":       {"大阪で寿司を食べた"},
			"北京":       {"我们明天去北京开会"},
			"京都に住んでいる": {"Ann moved to 京都 last year"},
			"京":        nil, // a character alone is a term of its own, not a part of a pair
		} {
			var got []string
			for _, id := range search(t, s, ann, memory.Query{Text: q}) {
				got = append(got, ids[id])
			}
			if !slices.Equal(got, want) {
				t.Errorf("search %q found %q, want %q", q, got, want)
			}
		}
	})
}

// TestSearchFindsARepeatsWords: a write answered "duplicate" is kept as a
// repeat; a search by its author for a word only the repeat holds finds
// the memory it was folded into, on both engines. Another agent's search
// does not (they are the author's words), and once the words are stored
// as their own memory after all, the search finds that memory instead.
func TestSearchFindsARepeatsWords(t *testing.T) {
	onEngines(t, func(t *testing.T, open opener) {
		s, _, _ := memoriesOn(t, open, nil)
		first := remember(t, s, ann, memory.EntryWrite{Content: "The color of the logo is blue."})
		remember(t, s, ann, memory.EntryWrite{Content: "Our invoices go out on Mondays."})
		r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The colour of the logo is blue."})
		if r.Outcome != memory.WriteOutcomeDuplicate || r.ID != first.ID {
			t.Fatalf("the British spelling was %s (%s) of %s, want a duplicate of %s: the test asks nothing", r.Outcome, r.Tier, r.ID, first.ID)
		}
		if got := search(t, s, ann, memory.Query{Text: "colour"}); !slices.Equal(got, []string{first.ID}) {
			t.Errorf("search colour found %v, want %s, which the repeat was folded into", got, first.ID)
		}
		if got := search(t, s, ann, memory.Query{Text: "logo colour", Categories: []memory.Category{memory.CategoryEpisodic}}); len(got) != 0 {
			t.Errorf("search colour in another category found %v", got)
		}
		if got := search(t, s, bob, memory.Query{Text: "colour"}); len(got) != 0 {
			t.Errorf("bob's search colour found %v: the repeat's words are ann's", got)
		}
		own := remember(t, s, ann, memory.EntryWrite{Content: "The colour of the logo is blue.", NotARepeatOf: first.ID})
		if got := search(t, s, ann, memory.Query{Text: "colour"}); !slices.Equal(got, []string{own.ID}) {
			t.Errorf("after the words were stored as %s, search colour found %v", own.ID, got)
		}
	})
}
