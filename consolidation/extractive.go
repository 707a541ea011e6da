package consolidation

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Extractive preservation is dual_mode's answer for dense groups (seed 004's
// ExtractivePreserver): summarising code, configuration or logs loses the
// one identifier that mattered, so the summary keeps the group's key facts
// verbatim and three anchors of its text (start, middle, end) that say what
// the rest looked like.

// factPatterns find key facts, in the order a capped list keeps them: the
// seed's (URLs, UUIDs and hashes, versions, key-value lines) and what an
// agent's dense notes also hinge on (names in code, addresses, dates and
// times, figures with their units).
var factPatterns = []*regexp.Regexp{
	regexp.MustCompile(`https?://[^\s<>"'` + "`" + `)\]]+`),
	regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b[0-9a-f]{32,}\b`),
	regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b`), // before versions, which would cut an address short
	regexp.MustCompile(`\bv\d+\.\d+\.\d+(?:\.\d+)?(?:-[\w.]+)?\b|\b\d+\.\d+\.\d+(?:-[\w.]+)?\b`),
	regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z?)?\b`),
	regexp.MustCompile(`(?m)^\s*[\w.-]+\s*[:=]\s*\S.*$`),
	regexp.MustCompile(`\b[\w.-]+=[^\s,;]+`),
	regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+){2,}\b|\b[a-z]+(?:[A-Z][a-z0-9]+){2,}\b`),
	regexp.MustCompile(`[$€£]\s?\d[\d,]*(?:\.\d+)?\b|\b\d[\d,]*(?:\.\d+)?\s?(?:%|°[CF]|(?:ms|µs|ns|s|sec|secs|seconds?|min|mins|minutes?|h|hrs?|hours?|days?|weeks?|` +
		`[KMGTP]i?B|[KMGT]i|[kKMG]bps|[KMG]Hz|px|rpm|req/s|qps|x|USD|EUR|GBP|kg|g|km|m|cm|mm|mi|ft|lbs?)\b)`),
}

// extractive keeps the key facts of texts verbatim, at most maxFacts, and
// anchors of anchorLen characters from the start, the middle and the end of
// their text.
func extractive(texts []string, maxFacts, anchorLen int) string {
	joined := strings.Join(texts, "\n")
	var b strings.Builder
	b.WriteString("[Extractive preservation]")
	if facts := keyFacts(joined, maxFacts, anchorLen); len(facts) > 0 {
		b.WriteString("\nKey facts:")
		for _, f := range facts {
			b.WriteString("\n- ")
			b.WriteString(f)
		}
	}
	start, mid, end := anchors(joined, anchorLen)
	b.WriteString("\n[START] " + start)
	if mid != "" {
		b.WriteString("\n[MID] " + mid)
	}
	if end != "" {
		b.WriteString("\n[END] " + end)
	}
	return b.String()
}

// keyFacts returns the distinct facts of text, pattern by pattern, at most
// max. A fact inside one already kept adds nothing and is passed over; so
// is a key-value line longer than an anchor, which a list of facts cannot
// hold verbatim (the anchors show its kind).
func keyFacts(text string, max, longest int) []string {
	var out []string
	for _, re := range factPatterns {
		for _, f := range re.FindAllString(text, -1) {
			f = strings.TrimSpace(strings.TrimRight(f, ".,;:"))
			if len(out) == max {
				return out
			}
			if f == "" || utf8.RuneCountInString(f) > longest || covered(out, f) {
				continue
			}
			out = append(out, f)
		}
	}
	return out
}

func covered(kept []string, f string) bool {
	for _, k := range kept {
		if strings.Contains(k, f) {
			return true
		}
	}
	return false
}

// anchors are the seed's start, middle and end snippets of text, n
// characters each, marked with an ellipsis where text goes on. Text of at
// most n characters is its own start, and needs no other anchor.
func anchors(text string, n int) (start, mid, end string) {
	runes := []rune(text)
	if len(runes) <= n {
		return text, "", ""
	}
	start = string(runes[:n]) + "…"
	off := (len(runes) - n) / 2
	mid = string(runes[off : off+n])
	if off > 0 {
		mid = "…" + mid
	}
	if off+n < len(runes) {
		mid += "…"
	}
	end = "…" + string(runes[len(runes)-n:])
	return start, mid, end
}
