package store

import (
	"slices"
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
