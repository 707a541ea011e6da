package main

import (
	"slices"
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
