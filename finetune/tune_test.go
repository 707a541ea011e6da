package finetune_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/memory-mcp/memory-mcp/finetune"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// TestTuneIsDeterministic: the whole of stages 2 and 3 (split, word
// weights, mining, training) over the offline embedder makes the same
// adapter, byte for byte, from the same seed and documents; another seed
// makes another.
func TestTuneIsDeterministic(t *testing.T) {
	var docs []finetune.Doc
	for i, text := range notes(300, 2) {
		docs = append(docs, finetune.Doc{ID: fmt.Sprintf("mem-%03d", i), Agent: "ann", Text: text})
	}
	adapter := func(seed uint64) []byte {
		cfg := finetune.DefaultConfig()
		cfg.Train.Seed = seed
		pairs := finetune.ICTPairs(docs, rand.New(rand.NewPCG(seed, 1)))
		tuned, err := finetune.Tune(context.Background(), finetune.Input{Base: wordvec.New(), Docs: docs, Pairs: pairs, Version: 1, WordKey: testKey},
			cfg, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(tuned.Adapter.Words) == 0 {
			t.Fatal("no word weights: the test would not cover them")
		}
		b, err := tuned.Adapter.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first, again, other := adapter(11), adapter(11), adapter(12)
	if !bytes.Equal(first, again) {
		t.Error("two runs with seed 11 over the same documents made different adapters")
	}
	if bytes.Equal(first, other) {
		t.Error("seeds 11 and 12 made the same adapter")
	}
}
