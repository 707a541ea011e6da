package text

import (
	"strings"
	"unicode"
)

// Words splits text into lower-case runs of letters and digits: the words
// of the rules that count words rather than read statements (the full-text
// query, consolidation's grouping, promotion's word binding). A snake_case
// id becomes its words.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}

// StopWords are English function words: articles, pronouns, auxiliaries,
// prepositions, conjunctions and question words, as Words spells them
// ("don" of "don't"). They match nearly every text and tell none apart, so
// the rules that count words leave them out. The rules that read a
// statement (dedup, contradictions) do not: "against", "off", "more" and
// "not" change what it says, and they keep their own narrower lists of
// words that do not (functionWords, dropped).
var StopWords = set(strings.Fields(`a about above after again against all am an and any are as at be because been
	before being below between both but by can could did do does doing down during each few for from further
	had has have having he her here hers herself him himself his how i if in into is it its itself just me
	more most my myself no nor not now of off on once only or other our ours ourselves out over own same she
	should so some such than that the their theirs them themselves then there these they this those through
	to too under until up very was we were what when where which while who whom why will with would you your
	yours yourself yourselves s t d ll m re ve don didn doesn isn wasn aren weren won wouldn couldn shouldn`)...)

// Lexicon is a set of words from a whitespace-separated list, with every
// stop word: a rule's own words to leave out besides them.
func Lexicon(words string) map[string]bool {
	m := set(strings.Fields(words)...)
	for w := range StopWords {
		m[w] = true
	}
	return m
}
