package consolidation

import (
	"fmt"
	"strings"
	"testing"
)

// gardenTalk is a conversation about a garden, with one member that says
// something no other does.
var gardenTalk = []string{
	"Ann: We planted tomatoes and basil in the raised bed behind the house this spring.",
	"Bob: Nice! How are the tomatoes doing? Any trouble with pests?",
	"Ann: Aphids got onto the basil, so I sprayed the plants with soapy water and they recovered.",
	"Bob: Good call. I read that marigolds keep aphids away from tomatoes too.",
	"Ann: The first ripe tomatoes came in today, and my neighbour Ingrid brought a jar of homemade pesto from Genoa.",
	"Bob: Thanks for sharing, that sounds great!",
}

// everyday are words an agent's memories use all the time.
var everyday = strings.Fields("nice got onto call read keep away doing trouble work weather home team day week plans water")

// vocabOf is the word statistics of a run over texts and the agent's other
// memories, which use the speakers' names and everyday words a lot.
func vocabOf(texts []string) *vocabulary {
	v := &vocabulary{df: map[string]int{}}
	add := func(text string) {
		v.docs++
		for w := range wordsOf(text) {
			v.df[w]++
		}
	}
	for _, t := range texts {
		add(t)
	}
	for i := range 40 {
		add(fmt.Sprintf("Ann: Bob, %s and %s again, day %d.", everyday[i%len(everyday)], everyday[(i*7+3)%len(everyday)], i))
	}
	return v
}

// TestSummariseKeepsDistinctiveWords: the offline summary is shorter than
// what it replaces, the same every time, keeps the words only this group
// uses (in a sentence, or in the list of what it leaves out), and leaves
// filler out.
func TestSummariseKeepsDistinctiveWords(t *testing.T) {
	c := DefaultDualMode()
	v := vocabOf(gardenTalk)
	out := summarise(gardenTalk, v, c)
	if again := summarise(gardenTalk, v, c); again != out {
		t.Fatalf("not deterministic:\n%s\n---\n%s", out, again)
	}
	if len(out) >= len(strings.Join(gardenTalk, "\n")) {
		t.Errorf("summary is no shorter than its sources:\n%s", out)
	}
	for _, w := range []string{"tomatoes", "basil", "Aphids", "soapy", "marigolds", "Ingrid", "pesto", "Genoa"} {
		if !strings.Contains(strings.ToLower(out), strings.ToLower(w)) {
			t.Errorf("distinctive word %q lost:\n%s", w, out)
		}
	}
	if strings.Contains(out, "sounds great") {
		t.Errorf("filler kept:\n%s", out)
	}
	// Each line is a member's sentences, under its speaker's label.
	for line := range strings.Lines(out) {
		if !strings.HasPrefix(line, "Ann: ") && !strings.HasPrefix(line, "Bob: ") && !strings.HasPrefix(line, "Also mentioned: ") {
			t.Errorf("line %q has no label", line)
		}
	}
	// A group of nothing but filler still has a summary.
	if out := summarise([]string{"Thanks!", "Yes, great.", "Wow."}, v, c); strings.TrimSpace(out) == "" {
		t.Error("a group of filler has an empty summary")
	}
}
