package promotion_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

// bindCase is one case of testdata/binding.txt.
type bindCase struct {
	name  string
	setup []string
	note  string
	gold  string // "" for none
}

func loadBindingCases(t testing.TB) []bindCase {
	b, err := os.ReadFile("testdata/binding.txt")
	if err != nil {
		t.Fatal(err)
	}
	var cases []bindCase
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case strings.HasPrefix(line, "case "):
			cases = append(cases, bindCase{name: strings.TrimPrefix(line, "case ")})
		case strings.HasPrefix(line, "  "):
			cases[len(cases)-1].setup = append(cases[len(cases)-1].setup, trimmed)
		case strings.HasPrefix(line, "? "):
			cases[len(cases)-1].note = strings.TrimPrefix(line, "? ")
		case strings.HasPrefix(line, "gold "):
			if g := strings.TrimPrefix(line, "gold "); g != "none" {
				cases[len(cases)-1].gold = g
			}
		default:
			t.Fatalf("binding.txt: cannot read %q", line)
		}
	}
	return cases
}

// bindOne runs a case in a fresh database and returns the row the note's
// write was bound to ("" when it was not committed).
func bindOne(t testing.TB, c bindCase) (string, memory.Outcome) {
	h := newHarness(t)
	for _, s := range c.setup {
		h.note(agent, memory.NoteWrite{Text: s}, true)
		if o := h.outs[len(h.outs)-1]; o.Status != memory.Committed {
			t.Fatalf("case %s: setup %q: %s", c.name, s, o.Summary())
		}
	}
	h.outs = nil
	h.note(agent, memory.NoteWrite{Text: c.note}, true)
	o := h.outs[0]
	if o.Status == memory.Committed && o.Operation.Lifecycle() {
		return o.TargetID, o
	}
	return "", o
}

// bindingScore counts binds against gold labels.
type bindingScore struct {
	correct, wrong, missed, deferred int // deferred: correctly left unbound
	wrongs, misses                   []string
}

func (s *bindingScore) add(note, got, gold, why string) {
	switch {
	case got != "" && got == gold:
		s.correct++
	case got != "":
		s.wrong++
		s.wrongs = append(s.wrongs, fmt.Sprintf("%q bound to %s, gold %q", note, got, gold))
	case gold != "":
		s.missed++
		s.misses = append(s.misses, fmt.Sprintf("%q not bound (gold %s): %s", note, gold, why))
	default:
		s.deferred++
	}
}

func (s *bindingScore) precision() float64 { return ratio(s.correct, s.correct+s.wrong) }
func (s *bindingScore) recall() float64    { return ratio(s.correct, s.correct+s.missed) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// scoreCorpus scores the gold binding corpus and the lifecycle notes of the
// scenario corpus (whose expected outcomes are their labels).
func scoreCorpus(t testing.TB) (gold, scenarios bindingScore) {
	for _, c := range loadBindingCases(t) {
		got, o := bindOne(t, c)
		gold.add(c.note, got, c.gold, o.Summary())
	}
	files, _ := filepath.Glob("testdata/scenarios/*.txt")
	for _, f := range files {
		h := runScenario(t, f)
		for _, b := range h.binds {
			scenarios.add(b.text, b.got, b.want, "")
		}
	}
	return gold, scenarios
}

func TestBindingCorpus(t *testing.T) {
	gold, scen := scoreCorpus(t)
	for _, w := range append(gold.wrongs, scen.wrongs...) {
		t.Errorf("wrong bind: %s", w)
	}
	if gold.correct+gold.missed < 20 || gold.deferred < 10 {
		t.Fatalf("the gold corpus is too small to mean anything: %+v", gold)
	}
	t.Logf("gold corpus: precision %.2f recall %.2f (%d correct, %d wrong, %d missed, %d rightly deferred)",
		gold.precision(), gold.recall(), gold.correct, gold.wrong, gold.missed, gold.deferred)
	for _, m := range gold.misses {
		t.Logf("  miss: %s", m)
	}
}
