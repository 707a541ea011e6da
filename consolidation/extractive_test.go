package consolidation

import (
	"strings"
	"testing"
)

// TestExtractiveKeepsFactsVerbatim: identifiers, URLs, versions, key-value
// pairs and figures with their units come through character for character,
// at most MaxFacts of them, with anchors from the start, middle and end.
func TestExtractiveKeepsFactsVerbatim(t *testing.T) {
	texts := []string{
		"billing-api deploy v2.14.1: replicas=3 memory_limit=512Mi timeout=30s, health at https://billing.internal/v2/health",
		"billing-api deploy v2.14.2 traced as 9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f: p99 1840ms, error rate 4.5%, cost $1,200 a month",
		"billing-api rollback to v2.13.9 at 2026-03-01T12:00:01Z from 10.0.0.5; owner: payments_core_team",
	}
	out := extractive(texts, 20, 60)
	for _, fact := range []string{"v2.14.1", "replicas=3", "memory_limit=512Mi", "timeout=30s", "https://billing.internal/v2/health",
		"9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f", "1840ms", "4.5%", "$1,200", "v2.13.9", "2026-03-01T12:00:01Z", "10.0.0.5", "payments_core_team"} {
		if !strings.Contains(out, fact) {
			t.Errorf("fact %q lost:\n%s", fact, out)
		}
	}
	joined := strings.Join(texts, "\n")
	start, mid, end := anchorLine(out, "[START] "), anchorLine(out, "[MID] "), anchorLine(out, "[END] ")
	if !strings.HasPrefix(joined, strings.TrimSuffix(start, "…")) || !strings.HasSuffix(start, "…") {
		t.Errorf("start anchor %q is not the text's start", start)
	}
	if m := strings.Trim(mid, "…"); !strings.Contains(joined, m) || strings.HasPrefix(joined, m) || strings.HasSuffix(joined, m) {
		t.Errorf("middle anchor %q is not from the middle", mid)
	}
	if !strings.HasSuffix(joined, strings.TrimPrefix(end, "…")) || !strings.HasPrefix(end, "…") {
		t.Errorf("end anchor %q is not the text's end", end)
	}
	for _, a := range []string{start, mid, end} {
		if n := len([]rune(strings.Trim(a, "…"))); n != 60 {
			t.Errorf("anchor %q has %d characters, want 60", a, n)
		}
	}

	capped := extractive(texts, 4, 60)
	if n := strings.Count(capped, "\n- "); n != 4 {
		t.Errorf("max_facts 4 kept %d facts:\n%s", n, capped)
	}
	// A text no longer than an anchor is its own start, whole.
	if short := extractive([]string{"port=8080"}, 20, 150); !strings.Contains(short, "[START] port=8080") || strings.Contains(short, "[MID]") {
		t.Errorf("short text:\n%s", short)
	}
}

func anchorLine(text, prefix string) string {
	for line := range strings.Lines(text) {
		if rest, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), prefix); ok {
			return rest
		}
	}
	return ""
}
