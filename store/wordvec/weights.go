package wordvec

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"math"

	memory "github.com/memory-mcp/memory-mcp"
)

// Words calls emit with each word of text as the embedder reads it (lower
// case, contractions expanded, identifiers split; see tokens), so that a
// caller can count or weigh the words the vectors are made of.
func Words(text string, emit func(string)) error {
	t, err := loadTable()
	if err != nil {
		return err
	}
	t.tokens(text, emit)
	return nil
}

// WordHash is the name of a word in a table of weights: the first 8 bytes
// of HMAC-SHA256(key, word). A table of weights is learned from a user's
// memories and kept in a file beside them, so it names words by a keyed
// hash rather than as text: an erased memory's words are in no file, and
// without the key a guessed word cannot be confirmed.
func WordHash(key []byte, word string) uint64 {
	return wordHasher{hmac.New(sha256.New, key)}.hash(word)
}

type wordHasher struct{ mac hash.Hash }

func (h wordHasher) hash(word string) uint64 {
	h.mac.Reset()
	h.mac.Write([]byte(word))
	var sum [sha256.Size]byte
	return binary.BigEndian.Uint64(h.mac.Sum(sum[:0]))
}

// Weighted returns the default embedder with each word's weight in the mean
// multiplied by factor[WordHash(key, word)] (words not in factor keep
// theirs), under the given ID. Fine-tuning (finetune/) weighs down the
// words that are common in one user's memories but rare in the language the
// SIF weights were estimated on, such as the names of the people in a
// conversation. Factors must be finite and positive.
func Weighted(id string, key []byte, factor map[uint64]float32) (memory.Embedder, error) {
	for w, f := range factor {
		if !(f > 0) || math.IsInf(float64(f), 0) {
			return memory.Embedder{}, fmt.Errorf("word weight %016x is %v: want a finite positive number", w, f)
		}
	}
	embed := func(ctx context.Context, texts []string) ([][]float32, error) {
		e, err := defaultEmbedder()
		if err != nil {
			return nil, err
		}
		w := *e // a copy per call: the hasher is not safe for concurrent use
		w.factor, w.hasher = factor, wordHasher{hmac.New(sha256.New, key)}
		return w.embed(ctx, texts)
	}
	return memory.Embedder{ID: id, Dim: Dim, Embed: embed, Floor: 1}, nil
}
