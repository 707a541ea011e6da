package store

import (
	"math"
	"testing"
)

func TestIDF(t *testing.T) {
	for _, tc := range []struct{ rows, df, want float64 }{
		{100, 1, math.Log(99.5 / 1.5)},
		{100, 50, 1e-6}, // ln 1 = 0, floored
		{100, 100, 1e-6},
		{10, 20, 1e-6}, // a stale frequency above the rows left: capped, never NaN
		{0, 3, 1e-6},
	} {
		if got := idf(tc.rows, tc.df); math.IsNaN(got) || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("idf(%v, %v) = %v, want %v", tc.rows, tc.df, got, tc.want)
		}
	}
}
