package finetune

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSentences(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"One. Two! Three? Four", []string{"One.", "Two!", "Three?", "Four"}},
		{"version 1.2 ships. Then 2.0", []string{"version 1.2 ships.", "Then 2.0"}},
		{"line one\nline two", []string{"line one", "line two"}},
		{"  spaced.   out.  ", []string{"spaced.", "out."}},
		{"", nil},
		{"...", []string{"..."}},
	}
	for _, tt := range tests {
		if got := sentences(tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("sentences(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestICTPairs(t *testing.T) {
	docs := []Doc{
		{ID: "a", Text: "Melanie went to the lake with her kids. They painted the sunrise together in the morning."},
		{ID: "b", Text: "Thanks Mel!"}, // one sentence: no pair
		// "Ok." is too short to be a query, and the positive left if the
		// other sentence were the query.
		{ID: "c", Text: "Ok. Caroline joined a support group for trans people last week."},
		{ID: "d", Text: "Ok, so here we are. Caroline joined a support group last week."},
	}
	pairs := ICTPairs(docs, rand.New(rand.NewPCG(1, 2)))
	if len(pairs) != 2 {
		t.Fatalf("%d pairs, want 2 (of a and d): %+v", len(pairs), pairs)
	}
	for _, p := range pairs {
		d := docs[p.Doc]
		if p.Source != SourceICT || p.From != p.Doc {
			t.Errorf("pair %+v: want an ICT pair from its own document", p)
		}
		if strings.Contains(p.Positive, p.Query) || !strings.Contains(d.Text, p.Query) {
			t.Errorf("pair %+v: the query must be a sentence of the document, left out of the positive", p)
		}
		if wordCount(p.Query) < ictMinWords || wordCount(p.Positive) < ictMinWords {
			t.Errorf("pair %+v: query or positive under %d words", p, ictMinWords)
		}
	}
	if pairs[0].Doc != 0 || pairs[1].Doc != 3 {
		t.Errorf("pairs of documents %d and %d, want 0 and 3", pairs[0].Doc, pairs[1].Doc)
	}
	again := ICTPairs(docs, rand.New(rand.NewPCG(1, 2)))
	if !reflect.DeepEqual(pairs, again) {
		t.Error("the same seed chose other sentences")
	}
}

func TestNeighbourPairs(t *testing.T) {
	at := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	text := func(s string) string { return s + " said something worth a memory" }
	docs := []Doc{
		{ID: "1", Agent: "x", Text: text("one"), At: at},
		{ID: "2", Agent: "x", Text: text("two"), At: at.Add(time.Minute)},
		{ID: "3", Agent: "y", Text: text("other agent"), At: at.Add(2 * time.Minute)},
		{ID: "4", Agent: "x", Text: text("next day"), At: at.Add(24 * time.Hour)}, // another episode
		{ID: "5", Agent: "x", Text: text("fact"), At: at, Fact: true},             // facts have no episodes
		{ID: "6", Agent: "x", Namespace: "work", Text: text("other namespace"), At: at},
		{ID: "7", Agent: "x", Text: "too short", At: at.Add(2 * time.Minute)},
		{ID: "8", Agent: "x", Text: text("same time as one"), At: at},
	}
	got := NeighbourPairs(docs)
	type edge struct{ from, to string }
	var edges []edge
	for _, p := range got {
		if p.Source != SourceNeighbour || p.Query != docs[p.From].Text {
			t.Errorf("pair %+v: want a neighbour pair whose query is its From document", p)
		}
		edges = append(edges, edge{docs[p.From].ID, docs[p.Doc].ID})
	}
	// In order of occurrence, then of storage: 1, 8, 2.
	want := []edge{{"1", "8"}, {"8", "1"}, {"8", "2"}, {"2", "8"}}
	if !reflect.DeepEqual(edges, want) {
		t.Errorf("neighbour edges %v, want %v", edges, want)
	}
}

func TestCapTokens(t *testing.T) {
	short := "a short text"
	if got, cut := capTokens(short, 10); got != short || cut {
		t.Errorf("capTokens(short) = %q, %v", got, cut)
	}
	long := strings.Repeat("word ", 200) // 1000 bytes, about 250 tokens
	got, cut := capTokens(long, 128)
	if !cut || len(got) > 128*4 || len(got) < 100*4 || strings.HasSuffix(got, "wor") {
		t.Errorf("capTokens(long, 128) = %d bytes, cut %v: want at most 512 bytes ending at a word", len(got), cut)
	}
	wide := strings.Repeat("語", 300)
	if got, cut := capTokens(wide, 100); !cut || len([]rune(got)) != 100 {
		t.Errorf("capTokens(300 CJK characters, 100) kept %d characters, want 100", len([]rune(got)))
	}
}
