package store

import (
	"slices"
	"strings"
	"testing"
)

func TestLongest(t *testing.T) {
	for _, tc := range []struct {
		words []string
		n     int
		want  []string
	}{
		{[]string{"a", "bb", "ccc"}, 5, []string{"a", "bb", "ccc"}},
		{[]string{"a", "bb", "ccc"}, 3, []string{"a", "bb", "ccc"}},
		{[]string{"kumquat", "a", "bb", "ccc", "shipment"}, 2, []string{"kumquat", "shipment"}},
		{[]string{"dd", "a", "ee", "bb", "c"}, 3, []string{"dd", "ee", "bb"}}, // query order kept; earlier wins a tie
		{nil, 3, nil},
	} {
		if got := longest(tc.words, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("longest(%q, %d) = %q, want %q", tc.words, tc.n, got, tc.want)
		}
	}
}

// termFrequencies reads the query's terms cut from a memory's tsvector as
// PostgreSQL 15 prints them: quotes and backslashes inside a lexeme
// doubled, every position marked A. The string below is what it printed
// for a vector of the lexemes it's (2 positions), a\b (1), x (3), zq (a
// filter position only) and y (1, and a filter position) cut to it's,
// a\b, y and zq.
func TestTermFrequencies(t *testing.T) {
	lexemes := []string{"y", "it's", "gone", `a\b`, "y"}
	freq := make([]float64, len(lexemes))
	if !termFrequencies(`'a\\b':3A 'it''s':1A,2A 'y':5A`, lexemes, freq) {
		t.Fatal("termFrequencies found none of the terms")
	}
	if want := []float64{1, 2, 0, 1, 1}; !slices.Equal(freq, want) {
		t.Errorf("frequencies %v, want %v", freq, want)
	}
	if termFrequencies(``, lexemes, freq) || slices.ContainsFunc(freq, func(f float64) bool { return f != 0 }) {
		t.Errorf("no terms: frequencies %v, want none", freq)
	}
	many := "'w':" + strings.Repeat("1A,", 299) + "300A"
	if termFrequencies(many, []string{"w"}, freq[:1]); freq[0] != maxTermFrequency {
		t.Errorf("300 positions count %v, want %d", freq[0], maxTermFrequency)
	}
}
