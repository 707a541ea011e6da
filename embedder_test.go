package memory_test

import (
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

func TestEmbedderIDs(t *testing.T) {
	tests := []struct {
		id      string
		base    string
		version int
	}{
		{"wordvec-glove100-v1+ft3", "wordvec-glove100-v1", 3},
		{"openai:text-embedding-3-small:1536+ft12", "openai:text-embedding-3-small:1536", 12},
		{"wordvec-glove100-v1", "wordvec-glove100-v1", 0},
		{"model+ft", "model+ft", 0},     // no version
		{"model+ft0", "model+ft0", 0},   // versions start at 1
		{"model+ft03", "model+ft03", 0}, // not as AdaptedEmbedderID writes it
		{"model+ftx", "model+ftx", 0},   // not a number
		{"a+ft1+ft2", "a+ft1", 2},       // the last mark counts
		{"openai:my+ft2-model:8", "openai:my+ft2-model:8", 0},
	}
	for _, tt := range tests {
		base, v := memory.SplitEmbedderID(tt.id)
		if base != tt.base || v != tt.version {
			t.Errorf("SplitEmbedderID(%q) = %q, %d; want %q, %d", tt.id, base, v, tt.base, tt.version)
		}
		if v > 0 && memory.AdaptedEmbedderID(base, v) != tt.id {
			t.Errorf("AdaptedEmbedderID(%q, %d) = %q, want %q", base, v, memory.AdaptedEmbedderID(base, v), tt.id)
		}
	}
	if got := memory.AdaptedEmbedderID("base", 0); got != "base" {
		t.Errorf("AdaptedEmbedderID(base, 0) = %q, want the base", got)
	}
}
