package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store/wordvec"

	"github.com/memory-mcp/memory-mcp/internal/score"
)

// The word vector cache stays within its byte bound however many new words
// pass through it, hands out the vectors the embedder makes, and keeps a
// word in steady use while the rest age out.
func TestWordVectorsStayBoundedAndKeepWordsInUse(t *testing.T) {
	old := maxWordBytes
	maxWordBytes = 64 << 10 // 2 generations of about 70 words
	t.Cleanup(func() { maxWordBytes = old })
	base := wordvec.New()
	embedded := map[string]int{}
	counting := memory.Embedder{ID: base.ID, Dim: base.Dim, Embed: func(ctx context.Context, words []string) ([][]float32, error) {
		for _, w := range words {
			embedded[w]++
		}
		return base.Embed(ctx, words)
	}}
	w := NewWordVectors(counting)
	ctx := context.Background()
	for batch := range 50 {
		words := []string{"anchor"}
		for i := range 20 {
			words = append(words, fmt.Sprintf("w%d", batch*20+i))
		}
		// A word as long as a blob of base64 must not carry its length into
		// the cache.
		words = append(words, fmt.Sprintf("%s%d", strings.Repeat("q", 2000), batch))
		got, err := w.vectors(ctx, words)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := base.Embed(ctx, words)
		for i, word := range words {
			if !slices.Equal(got[word], score.Unit(want[i])) {
				t.Fatalf("batch %d: vector of %q differs from the embedder's", batch, word)
			}
		}
		if n := len(w.cur.at) + len(w.old.at); n > 2*w.perSlab {
			t.Fatalf("batch %d: %d words cached, bound %d", batch, n, 2*w.perSlab)
		}
		if bytes := cachedBytes(w); bytes > maxWordBytes {
			t.Fatalf("batch %d: cache holds %d bytes of vectors and keys, bound %d", batch, bytes, maxWordBytes)
		}
	}
	if embedded["anchor"] != 1 || embedded["w0"] != 1 {
		t.Fatalf("anchor embedded %d times, w0 %d; want once each", embedded["anchor"], embedded["w0"])
	}
	if _, err := w.vectors(ctx, []string{"w0"}); err != nil || embedded["w0"] != 2 {
		t.Fatalf("w0, long unused, was embedded %d times after asking again (%v); want it aged out and embedded again", embedded["w0"], err)
	}
}

// cachedBytes is what w's generations hold: vectors, keys and map entries.
func cachedBytes(w *WordVectors) int {
	bytes := 0
	for _, at := range []map[string]int32{w.cur.at, w.old.at} {
		for word := range at {
			bytes += 4*w.emb.Dim + len(word) + 58
		}
	}
	return bytes
}
