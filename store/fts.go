package store

import (
	"strings"
	"unicode"
)

// MatchAny turns free text into an FTS5 MATCH expression that matches rows
// containing any of its words, each quoted so that FTS5 syntax in the input
// (quotes, NEAR, column filters, '*') is searched for literally rather than
// interpreted. It returns "" when the text has no words.
func MatchAny(text string) string {
	words := Words(text)
	for i, w := range words {
		words[i] = `"` + w + `"`
	}
	return strings.Join(words, " OR ")
}

// Words splits text into lower-case runs of letters and digits, dropping
// duplicates and keeping first-seen order.
func Words(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
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
