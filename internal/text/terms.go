package text

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Span is one term of a text and where its word stands in the text (byte
// offsets, end exclusive).
type Span struct {
	Term       string
	Start, End int
}

// Terms are the words a text is indexed and searched by, in order, each as
// Term makes it: the full-text index of both engines holds exactly these
// (SQLite's FTS5 through a tokenizer that calls Terms, PostgreSQL's tsvector
// from the same spans), and a search looks for its words' terms.
func Terms(s string) []Span {
	var out []Span
	start := -1
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = appendTerm(out, s, start, i)
			start = -1
		}
	}
	if start >= 0 {
		out = appendTerm(out, s, start, len(s))
	}
	return out
}

func appendTerm(out []Span, s string, start, end int) []Span {
	if t := Term(strings.ToLower(s[start:end])); t != "" {
		out = append(out, Span{Term: t, Start: start, End: end})
	}
	return out
}

// MaxTermBytes bounds a term: a longer word (a key, a hash, a run of
// base64) is indexed and searched by its first MaxTermBytes bytes, since
// PostgreSQL refuses a lexeme of more than 2046.
const MaxTermBytes = 200

// Term is the form a lower-case word is indexed and searched by: without
// its diacritics ("café" is "cafe"), stemmed by inflection (Stem: "servers"
// is "server", "deployed" "deploy"), except that a word in -ing is kept
// whole, its plural folded ("meetings" is "meeting"): "accounting" is not
// "account", nor a "building" "build" (as the contradiction rules keep
// them, see fold). Stem folds no derivation, so "international" never finds
// "internal", nor "memorial" "memory", as the Porter stemmer FTS5 used to
// index with let them.
func Term(w string) string {
	w = plain(w)
	if len(w) > MaxTermBytes {
		cut := MaxTermBytes
		for cut > 0 && !utf8.RuneStart(w[cut]) {
			cut--
		}
		w = w[:cut]
	}
	if g, ok := strings.CutSuffix(w, "s"); ok && strings.HasSuffix(g, "ing") || strings.HasSuffix(w, "ing") {
		return strings.TrimSuffix(w, "s")
	}
	return Stem(w)
}

// plain drops a word's diacritics (its combining marks once decomposed),
// as FTS5's unicode61 tokenizer did with remove_diacritics.
func plain(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return w
	}
	d := norm.NFD.String(w)
	var b strings.Builder
	for _, r := range d {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}
