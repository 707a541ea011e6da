package store

import (
	"strings"

	"github.com/memory-mcp/memory-mcp/internal/text"
)

// MatchAny turns free text into an FTS5 MATCH expression that matches rows
// containing any of its words, each quoted so that FTS5 syntax in the input
// (quotes, NEAR, column filters, '*') is searched for literally rather than
// interpreted. It returns "" when the text has no words.
func MatchAny(q string) string {
	words := textWords(q)
	for i, w := range words {
		words[i] = `"` + w + `"`
	}
	return strings.Join(words, " OR ")
}

// textWords are text's words as its terms are made of them (text.TermWords:
// "c++" and "c#" are words, a CJK run its pairs of characters) without
// duplicates, in first-seen order; each is a phrase of one term.
func textWords(s string) []string {
	fields := text.TermWords(s)
	seen := make(map[string]bool, len(fields))
	out := fields[:0]
	for _, f := range fields {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// queryTerms returns the words of a search query worth matching: Words
// without English function words, which match nearly every memory and only
// add noise to BM25. A query made only of such words keeps them all.
func queryTerms(q string) []string {
	words := textWords(q)
	out := make([]string, 0, len(words))
	for _, w := range words {
		if !text.StopWords[w] {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return words
	}
	return out
}
