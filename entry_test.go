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
	if _, err := memory.ParseCategory("Semantic"); err == nil {
		t.Fatal("categories are case-sensitive names")
	}
	cs, err := memory.ParseCategories([]string{"social", "social", "working"})
	if err != nil || len(cs) != 2 {
		t.Fatalf("ParseCategories dedup = %v, %v", cs, err)
	}
	if sc, err := memory.ParseScope(""); err != nil || sc != memory.All {
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
	if w.Namespace != "default" || w.Category != memory.Semantic || !w.OccurredAt.Equal(now) || len(w.Tags) != 1 || w.ConfidenceOr() != 1 {
		t.Fatalf("defaults = %+v", w)
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
