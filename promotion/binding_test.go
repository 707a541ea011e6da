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

// bindingParts are the gold binding corpus files: the one the resolver's
// bar was set on, the adversarial one (written while fixing the review, so
// it shaped the rules too), and the held-out ones (written before the new
// bar, and before stated ids and the stemmer, and not used to set them).
var bindingParts = []struct{ name, file string }{
	{"tuning", "testdata/binding.txt"},
	{"adversarial", "testdata/binding_adv.txt"},
	{"held-out", "testdata/binding_heldout.txt"},
	{"held-out ids", "testdata/binding_heldout_ids.txt"},
}

func loadBindingCases(t testing.TB, file string) []bindCase {
	b, err := os.ReadFile(file)
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
			t.Fatalf("%s: cannot read %q", file, line)
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
		if o := h.outs[len(h.outs)-1]; o.Status != memory.OutcomeCommitted {
			t.Fatalf("case %s: setup %q: %s", c.name, s, o.Summary())
		}
	}
	h.outs = nil
	h.note(agent, memory.NoteWrite{Text: c.note}, true)
	o := h.outs[0]
	if o.Status == memory.OutcomeCommitted && o.Operation.Lifecycle() {
		return o.TargetID, o
	}
	return "", o
}

// bindingScore counts binds against gold labels.
type bindingScore struct {
	name                             string
	correct, wrong, missed, deferred int // deferred: correctly left unbound
	wrongs, misses                   []string
}

func (s *bindingScore) add(note, got, gold, why string) {
	switch {
	case got != "" && got == gold:
		s.correct++
	case got != "":
		s.wrong++
		s.wrongs = append(s.wrongs, fmt.Sprintf("%s: %q bound to %s, gold %q", s.name, note, got, gold))
	case gold != "":
		s.missed++
		s.misses = append(s.misses, fmt.Sprintf("%s: %q not bound (gold %s): %s", s.name, note, gold, why))
	default:
		s.deferred++
	}
}

// plus adds another score's counts.
func (s *bindingScore) plus(o bindingScore) {
	s.correct, s.wrong, s.missed, s.deferred = s.correct+o.correct, s.wrong+o.wrong, s.missed+o.missed, s.deferred+o.deferred
	s.wrongs, s.misses = append(s.wrongs, o.wrongs...), append(s.misses, o.misses...)
}

func (s *bindingScore) cases() int         { return s.correct + s.wrong + s.missed + s.deferred }
func (s *bindingScore) precision() float64 { return ratio(s.correct, s.correct+s.wrong) }
func (s *bindingScore) recall() float64    { return ratio(s.correct, s.correct+s.missed) }

func (s *bindingScore) String() string {
	return fmt.Sprintf("%-12s %3d lifecycle notes: precision %.2f, recall %.2f; %d correct, %d WRONG, %d missed, %d rightly left unbound",
		s.name, s.cases(), s.precision(), s.recall(), s.correct, s.wrong, s.missed, s.deferred)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// scoreCorpus scores each part of the gold binding corpus, the lifecycle
// notes of the scenario corpora (whose expected outcomes are their labels),
// and all of them together (the last score).
func scoreCorpus(t testing.TB) []bindingScore {
	var out []bindingScore
	for _, part := range bindingParts {
		s := bindingScore{name: part.name}
		for _, c := range loadBindingCases(t, part.file) {
			got, o := bindOne(t, c)
			s.add(c.note, got, c.gold, o.Summary())
		}
		out = append(out, s)
	}
	scen := bindingScore{name: "scenarios"}
	for _, pattern := range []string{"testdata/scenarios/*.txt", "testdata/adv/*.txt"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			h := runScenario(t, f)
			for _, b := range h.binds {
				scen.add(b.text, b.got, b.want, "")
			}
		}
	}
	all := bindingScore{name: "full corpus"}
	for _, s := range append(out, scen) {
		all.plus(s)
	}
	return append(out, scen, all)
}

func TestBindingCorpus(t *testing.T) {
	scores := scoreCorpus(t)
	all := scores[len(scores)-1]
	for _, w := range all.wrongs {
		t.Errorf("wrong bind: %s", w)
	}
	for _, s := range scores[:len(bindingParts)] {
		if s.cases() < 20 || s.correct+s.missed < 5 || s.deferred < 8 {
			t.Errorf("the %s corpus is too small to mean anything: %s", s.name, s.String())
		}
	}
	for _, s := range scores {
		t.Log(s.String())
	}
	for _, m := range all.misses {
		t.Logf("  miss: %s", m)
	}
}
