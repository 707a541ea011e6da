package finetune

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/memory-mcp/memory-mcp/internal/score"
)

// synthetic makes n examples in d dimensions: a query and its positive
// share a signal in the first d-4 dimensions, and each has loud noise of
// its own in the last 4, so that the base cosine ranks them poorly and an
// adapter that learns to quiet those 4 dimensions ranks them well.
func synthetic(n, d int, seed uint64) (docs [][]float32, exs []example) {
	rng := rand.New(rand.NewPCG(seed, 3))
	noisy := func(signal []float64) []float32 {
		v := make([]float32, d)
		for i := range v {
			if i < d-4 {
				v[i] = float32(signal[i] + 0.2*rng.NormFloat64())
			} else {
				v[i] = float32(2 * rng.NormFloat64())
			}
		}
		return score.Unit(v)
	}
	for i := range n {
		signal := make([]float64, d-4)
		for k := range signal {
			signal[k] = rng.NormFloat64()
		}
		docs = append(docs, noisy(signal))
		exs = append(exs, example{q: noisy(signal), pos: docs[i], doc: i, from: -1})
	}
	return docs, exs
}

// top1 is the share of examples whose positive is the nearest document
// once queries and documents pass through a (nil: as they are).
func top1(a *Adapter, docs [][]float32, exs []example) float64 {
	f := func(v []float32) []float32 {
		if a == nil {
			return v
		}
		return a.Apply(nil, v)
	}
	mapped := make([][]float32, len(docs))
	for i, v := range docs {
		mapped[i] = f(v)
	}
	hits := 0
	for _, ex := range exs {
		if vectorRank(f(ex.q), mapped[ex.doc], mapped, ex.doc, ex.from) == 1 {
			hits++
		}
	}
	return float64(hits) / float64(len(exs))
}

func testTrainConfig() TrainConfig {
	return TrainConfig{Rank: 4, Tau: 0.05, Epochs: 30, LR: 1e-2, Batch: 32, Decay: 1e-5, Seed: 7}
}

func TestTrainLearnsTheMap(t *testing.T) {
	docs, exs := synthetic(300, 12, 1)
	tr, err := train(context.Background(), testTrainConfig(), 12, docs, exs, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := tr.adapter("test", 1)
	before, after := top1(nil, docs, exs), top1(a, docs, exs)
	t.Logf("top-1 %.2f before training, %.2f after", before, after)
	if after < before+0.3 {
		t.Errorf("nearest document is the positive for %.2f of queries after training, %.2f before: want a gain of 0.3 or more", after, before)
	}
}

func TestAdapterStartsAsIdentity(t *testing.T) {
	a := newTrainer(TrainConfig{Rank: 4, Seed: 1}, 6).adapter("test", 1)
	x := []float32{3, 0, 4, 0, 0, 0}
	got := a.Apply(nil, x)
	want := []float32{0.6, 0, 0.8, 0, 0, 0}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Fatalf("untrained adapter maps %v to %v, want %v", x, got, want)
		}
	}
}

// TestTrainIsDeterministic: the same seed and data give the same bytes, and
// another seed other bytes.
func TestTrainIsDeterministic(t *testing.T) {
	docs, exs := synthetic(200, 8, 2)
	adapter := func(seed uint64) []byte {
		cfg := testTrainConfig()
		cfg.Epochs, cfg.Seed = 3, seed
		for i := range exs {
			exs[i].negs = []int{(i + 1) % len(docs), (i + 7) % len(docs)}
		}
		tr, err := train(context.Background(), cfg, 8, docs, exs, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := tr.adapter("test", 1).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first, again, other := adapter(5), adapter(5), adapter(6)
	if !bytes.Equal(first, again) {
		t.Error("two runs with seed 5 made different adapters")
	}
	if bytes.Equal(first, other) {
		t.Error("seeds 5 and 6 made the same adapter: the seed is not used")
	}
}

func TestTrainStopsWhenCancelled(t *testing.T) {
	docs, exs := synthetic(200, 8, 3)
	ctx, cancel := context.WithCancel(context.Background())
	steps := 0
	_, err := train(ctx, testTrainConfig(), 8, docs, exs, func(done, total int) {
		if steps++; steps == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || steps != 3 {
		t.Errorf("train after cancel at step 3: %v after %d steps, want context.Canceled after 3", err, steps)
	}
}

func TestTrainRefusesBadSettings(t *testing.T) {
	docs, exs := synthetic(10, 4, 4)
	for _, edit := range []func(*TrainConfig){
		func(c *TrainConfig) { c.Tau = 0 },
		func(c *TrainConfig) { c.Batch = 1 },
		func(c *TrainConfig) { c.Epochs = -1 },
		func(c *TrainConfig) { c.Rank = 0 },
		func(c *TrainConfig) { c.LR = -1 },
	} {
		cfg := testTrainConfig()
		edit(&cfg)
		if _, err := train(context.Background(), cfg, 4, docs, exs, nil); err == nil {
			t.Errorf("train with %+v succeeded", cfg)
		}
	}
}

func TestMineSkipsPositiveAndSource(t *testing.T) {
	texts := []string{"red apple pie", "green apple tart", "red apple juice", "blue sky", "apple orchard red"}
	vecs := [][]float32{score.Unit([]float32{1, 0}), score.Unit([]float32{1, 0.1}), score.Unit([]float32{1, 0.2}), score.Unit([]float32{0, 1}), score.Unit([]float32{1, 0.3})}
	pairs := []Pair{{Query: "red apple", Doc: 0, From: 2}}
	mine(pairs, texts, vecs, [][]float32{score.Unit([]float32{1, 0})}, 2)
	got := pairs[0].Negatives
	if len(got) != 2 {
		t.Fatalf("negatives %v, want 2", got)
	}
	for _, n := range got {
		if n == 0 || n == 2 {
			t.Errorf("negatives %v hold the positive (0) or the query's source (2)", got)
		}
		if n == 3 {
			t.Errorf("negatives %v hold document 3, which neither BM25 nor the vectors rank near", got)
		}
	}
}

func TestNearest(t *testing.T) {
	docs := [][]float32{{1, 0}, {0, 1}, {0.8, 0.6}, {0.6, 0.8}, {1, 0}, nil}
	got := nearest([]float32{1, 0}, docs, 3, func(d int) bool { return d == 2 })
	// 0 and 4 tie: the earlier first; 2 is skipped; then 3.
	if want := []int{0, 4, 3}; !equalInts(got, want) {
		t.Errorf("nearest = %v, want %v", got, want)
	}
}

func TestBM25Top(t *testing.T) {
	texts := []string{"the cat sat", "the dog ran far", "a cat and a dog", "the the the"}
	x := newBM25(texts)
	scores := make([]float64, len(texts))
	got := x.top("cat dog", 10, scores, func(d int) bool { return d == 1 })
	if want := []int{2, 0}; !equalInts(got, want) {
		t.Errorf("top(cat dog) = %v, want %v (both words first, document 1 skipped)", got, want)
	}
	for i, s := range scores {
		if s != 0 {
			t.Fatalf("scratch score %d left at %v", i, s)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
