package main

import (
	"context"
	"io"
	"log/slog"
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
		_, err := LoadConfig(args, mapEnv(nil), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "is not a finite number") {
			t.Errorf("LoadConfig(%v) = %v, want a refusal", args, err)
		}
	}
}

// With the vector weight at 0 no search reads the vector index, so none is
// loaded; new memories are still embedded, ready for when it is raised.
func TestVectorIndexIsNotLoadedWhenVectorsAreOff(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		index bool
	}{{nil, true}, {[]string{"--vector-weight", "0"}, false}, {[]string{"--embedder", "none"}, false}} {
		cfg, err := LoadConfig(append([]string{"--data-dir", t.TempDir()}, tc.args...), mapEnv(nil), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		db, err := openTestStore(ctx, t, cfg.DataDir)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		s, err := openMemories(ctx, cfg, db, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		if (s.Index != nil) != tc.index || (s.Embedder != nil) != (cfg.Embedder != "none") {
			t.Errorf("%v: index %v, embedder %v; want index %v", tc.args, s.Index != nil, s.Embedder != nil, tc.index)
		}
	}
}
