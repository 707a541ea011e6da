package memory_test

import (
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

func TestParseCategoryAndScope(t *testing.T) {
	for _, c := range memory.Categories {
		if got, err := memory.ParseCategory(" " + string(c)); err != nil || got != c {
			t.Fatalf("ParseCategory(%q) = %q, %v", c, got, err)
		}
	}
	if got, err := memory.ParseCategory("Semantic"); err != nil || got != memory.CategorySemantic {
		t.Fatalf("ParseCategory(Semantic) = %q, %v", got, err)
	}
	if got, err := memory.ParseScope(" PERSONAL"); err != nil || got != memory.ScopePersonal {
		t.Fatalf("ParseScope(PERSONAL) = %q, %v", got, err)
	}
	cs, err := memory.ParseCategories([]string{"social", "social", "working"})
	if err != nil || len(cs) != 2 {
		t.Fatalf("ParseCategories dedup = %v, %v", cs, err)
	}
	if sc, err := memory.ParseScope(""); err != nil || sc != memory.ScopeAll {
		t.Fatalf("default scope = %q, %v", sc, err)
	}
	if _, err := memory.ParseScope("mine"); err == nil || !strings.Contains(err.Error(), "use personal") {
		t.Fatalf("bad scope: %v", err)
	}
}

func TestEntryWriteValidateFillsDefaults(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := memory.EntryWrite{Content: "x", Tags: []string{"a", " a ", ""}}
	if err := w.Validate(100, now); err != nil {
		t.Fatal(err)
	}
	if w.Namespace != "default" || w.Category != memory.CategorySemantic || !w.OccurredAt.Equal(now) || len(w.Tags) != 1 || w.ConfidenceOr() != 1 {
		t.Fatalf("defaults = %+v", w)
	}
	w = memory.EntryWrite{Content: "x", Category: "Episodic"}
	if err := w.Validate(100, now); err != nil || w.Category != memory.CategoryEpisodic {
		t.Fatalf("category in capitals: %q, %v", w.Category, err)
	}
	zero := 0.0
	w = memory.EntryWrite{Content: "x", Confidence: &zero}
	if err := w.Validate(100, now); err != nil || w.ConfidenceOr() != 0 {
		t.Fatalf("confidence 0 must be kept: %v %v", w.ConfidenceOr(), err)
	}
	w = memory.EntryWrite{Content: "x", ExpiresAt: now}
	if err := w.Validate(100, now); err == nil || !strings.Contains(err.Error(), "expires_at 2026-01-01T00:00:00Z is not in the future") {
		t.Fatalf("expires now: %v", err)
	}
}

// A huge tag or query is not echoed back whole in the error.
func TestErrorsClipHugeArguments(t *testing.T) {
	_, err := memory.NormalizeTags([]string{strings.Repeat("t", 5000)})
	if err == nil || !strings.Contains(err.Error(), "5000 characters long, longer than 64") || len(err.Error()) > 200 {
		t.Fatalf("long tag: %v", err)
	}
	q := memory.Query{Text: strings.Repeat("!", 4000)}
	if err := q.Validate(); err == nil || !strings.Contains(err.Error(), "no searchable words") || len(err.Error()) > 200 {
		t.Fatalf("punctuation query: %v", err)
	}
}
