package score

import (
	"math"
	"testing"
)

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestIDF(t *testing.T) {
	for _, tc := range []struct{ rows, df, want float64 }{
		{100, 1, math.Log(99.5 / 1.5)},
		{100, 50, 1e-6}, // ln 1 = 0, floored
		{100, 100, 1e-6},
		{10, 20, 1e-6}, // a stale frequency above the rows left: capped, never NaN
		{0, 3, 1e-6},
	} {
		if got := IDF(tc.rows, tc.df); math.IsNaN(got) || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("IDF(%v, %v) = %v, want %v", tc.rows, tc.df, got, tc.want)
		}
	}
}

func TestRRFScore(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ranks   []int
		weights []float64
		k       int
		want    float64
	}{
		{"first in both lists", []int{1, 1}, []float64{1, 1}, 60, 1},
		{"first in one list only", []int{1, 0}, []float64{1, 1}, 60, 0.5},
		{"absent from both", []int{0, 0}, []float64{1, 1}, 60, 0},
		{"second and third", []int{2, 3}, []float64{1, 1}, 60, (1.0/62 + 1.0/63) / (2.0 / 61)},
		{"small k sharpens", []int{2, 0}, []float64{1, 1}, 1, (1.0 / 3) / (2.0 / 2)},
		{"weights", []int{1, 0}, []float64{3, 1}, 60, 0.75},
		{"zero weight list ignored", []int{0, 5}, []float64{1, 0}, 60, 0},
		{"no weight at all", []int{1, 1}, []float64{0, 0}, 60, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RRF(tc.ranks, tc.weights, tc.k); !approx(got, tc.want) {
				t.Fatalf("RRF(%v, %v, %d) = %v, want %v", tc.ranks, tc.weights, tc.k, got, tc.want)
			}
		})
	}
}

func TestSmoothIDF(t *testing.T) {
	if got, want := SmoothIDF(100, 50), math.Log(2); !approx(got, want) { // ln(1 + (100-50+0.5)/(50+0.5))
		t.Errorf("SmoothIDF(100, 50) = %v, want %v (never the floor)", got, want)
	}
	if SmoothIDF(100, 1) <= SmoothIDF(100, 10) {
		t.Error("a rarer word must weigh more")
	}
}

func TestBM25Term(t *testing.T) {
	p := BM25{K1: 1.2, B: 0.75}
	// f(k1+1)/(f + k1(1−b+b·dl/avgdl)) at f 2, dl 10, avgdl 5: 4.4/(2+1.2·1.75).
	if got, want := p.Term(2, 2, 10, 5), 2*4.4/(2+1.2*1.75); !approx(got, want) {
		t.Errorf("Term = %v, want %v", got, want)
	}
	if got, want := Memories.Term(1, 1, 100, 1), 1.0; !approx(got, want) { // 1·2.2/(1+1.2)
		t.Errorf("b 0 ignores the length: %v, want %v", got, want)
	}
}

func TestDotAndUnit(t *testing.T) {
	a := Unit([]float32{3, 4, 0, 0, 12})
	if got := Dot(a, a); math.Abs(float64(got)-1) > 1e-6 {
		t.Errorf("a unit vector's dot with itself: %v", got)
	}
	if got := Dot([]float32{1, 2, 3, 4, 5}, []float32{5, 4, 3, 2, 1}); got != 35 {
		t.Errorf("Dot = %v, want 35", got)
	}
	if z := Unit([]float32{0, 0}); z[0] != 0 || z[1] != 0 {
		t.Errorf("a zero vector: %v", z)
	}
}
