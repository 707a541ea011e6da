package main

import (
	"io"
	"slices"
	"strings"
	"testing"
)

func TestCutFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		rest []string
		had  bool
	}{
		{[]string{"--data-dir", "d", "--missing"}, []string{"--data-dir", "d"}, true},
		{[]string{"-missing", "--embedder", "openai"}, []string{"--embedder", "openai"}, true},
		{[]string{"--data-dir", "d"}, []string{"--data-dir", "d"}, false},
		{[]string{"--missing=true"}, []string{"--missing=true"}, false}, // left for the flag parser to reject
	} {
		rest, had := cutFlag(tc.args, "missing")
		if !slices.Equal(rest, tc.rest) || had != tc.had {
			t.Errorf("cutFlag(%v) = %v, %v; want %v, %v", tc.args, rest, had, tc.rest, tc.had)
		}
	}
}

// A NaN or infinite retrieval setting is refused at start, from a flag, the
// environment or a config file alike.
func TestNonFiniteRetrievalSettingsAreRefused(t *testing.T) {
	for _, args := range [][]string{
		{"--bm25-weight", "NaN"}, {"--vector-weight", "+Inf"}, {"--soft-weight", "inf"},
		{"--time-weight", "-Inf"}, {"--recency-decay", "nan"}, {"--min-relevance", "NaN"},
	} {
		_, err := LoadConfig(args, func(string) string { return "" }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "is not a finite number") {
			t.Errorf("LoadConfig(%v) = %v, want a refusal", args, err)
		}
	}
}
