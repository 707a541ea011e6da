package store

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The matcher answers as a search of every text with strings.Contains
// does, on texts of every length, overlapping and repeated.
func TestQuoteMatcherAgreesWithContains(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string { return []string{"ab", "ba", "abc", "the plan", "é", "x", "budget", " "}[r.IntN(8)] }
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(word())
		}
		return b.String()
	}
	for round := range 300 {
		var texts []string
		for range 1 + r.IntN(6) {
			texts = append(texts, text(1+r.IntN(5)))
		}
		m := newQuoteMatcher(texts)
		for range 20 {
			s := text(r.IntN(30))
			want := false
			for _, q := range texts {
				want = want || strings.Contains(s, q)
			}
			if got := m.in(s); got != want {
				t.Fatalf("round %d: in(%q) over %q = %v, want %v", round, s, texts, got, want)
			}
		}
	}
	if newQuoteMatcher(nil).in("anything") {
		t.Error("a matcher of no texts matched")
	}
	long := strings.Repeat("y", 200)
	if m := newQuoteMatcher([]string{long + "z"}); !m.in("x"+long+"z") || m.in(long+long) {
		t.Errorf("a text longer than the window (%d bytes) is found whole, and only whole", m.window)
	}
}
