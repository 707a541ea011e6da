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
	words := textWords(text)
	for i, w := range words {
		words[i] = `"` + w + `"`
	}
	return strings.Join(words, " OR ")
}

// textWords splits text into lower-case runs of letters and digits, dropping
// duplicates and keeping first-seen order.
func textWords(text string) []string {
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

// queryTerms returns the words of a search query worth matching: Words
// without English function words, which match nearly every memory and only
// add noise to BM25. A query made only of such words keeps them all.
func queryTerms(text string) []string {
	words := textWords(text)
	out := make([]string, 0, len(words))
	for _, w := range words {
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return words
	}
	return out
}

// stopWords are English function words: articles, pronouns, auxiliaries,
// prepositions, conjunctions and question words.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because been
		before being below between both but by can could did do does doing down during each few for from further
		had has have having he her here hers herself him himself his how i if in into is it its itself just me
		more most my myself no nor not now of off on once only or other our ours ourselves out over own same she
		should so some such than that the their theirs them themselves then there these they this those through
		to too under until up very was we were what when where which while who whom why will with would you your
		yours yourself yourselves s t d ll m re ve don didn doesn isn wasn aren weren won wouldn couldn shouldn`) {
		m[w] = true
	}
	return m
}()
