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
//
// A word is a run of letters and digits, and a few marks inside or after it
// that name something of their own (see wordEnd): "C++", "C#", "F#",
// ".NET", "Node.js" and "3.5" are one term each, never "c" or "net". A run
// of Chinese, Japanese or Korean characters, written without spaces, is
// its overlapping pairs of characters ("東京タワー" is 東京, 京タ, タワ,
// ワー), as Lucene's CJKAnalyzer makes it, so that a word inside it is
// found; a character standing alone is a term of its own.
func Terms(s string) []Span {
	var out []Span
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case cjk(r):
			out, i = appendBigrams(out, s, i)
		case wordRune(r) || r == '.' && dotName(s, i):
			end := wordEnd(s, i)
			out = appendTerm(out, s, i, end)
			i = end
		default:
			i += n
		}
	}
	return out
}

// TermWords are the words of s, lower case, as Terms reads them: the text
// of each of its terms (a pair of CJK characters, "c++", "node.js", or a
// word), each of which makes that one term again. A search looks for
// these.
func TermWords(s string) []string {
	spans := Terms(s)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = strings.ToLower(s[sp.Start:sp.End])
	}
	return out
}

// cjk reports whether r is written in a script without spaces between its
// words (Han, Hiragana, Katakana) or is Hangul, which CJKAnalyzer pairs as
// well; with the marks that belong to such words (the long vowel "ー", the
// repeat "々").
func cjk(r rune) bool {
	return r >= 0x1100 && (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 'ー' || r == '々')
}

// wordRune reports whether r is part of a word of Terms: a letter or a
// digit of a script written with spaces.
func wordRune(r rune) bool { return (unicode.IsLetter(r) || unicode.IsNumber(r)) && !cjk(r) }

// dotName reports whether the dot at s[i] begins a name (".NET", ".env"):
// a letter follows it and no word or dot comes before it.
func dotName(s string, i int) bool {
	next, _ := utf8.DecodeRuneInString(s[i+1:])
	if !unicode.IsLetter(next) || cjk(next) {
		return false
	}
	prev, _ := utf8.DecodeLastRuneInString(s[:i])
	return i == 0 || !wordRune(prev) && prev != '.'
}

// wordEnd is where the word that begins at s[i] ends. Besides letters and
// digits it holds: a dot between two of them ("node.js", "3.5", "J.K"),
// or leading it (dotName); and "++", or a "#" no letter or digit follows,
// right after it ("C++", "C#", "F#"), which end it. A dot that ends a
// sentence, a "#" of a number ("issue#42") or a tag ("#go"), and a single
// "+" ("a+b") are not words.
func wordEnd(s string, i int) int {
	j := i
	if s[j] == '.' {
		j++
	}
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		next, _ := utf8.DecodeRuneInString(s[j+n:])
		switch {
		case wordRune(r):
			j += n
		case r == '.' && wordRune(next):
			j += n
		case r == '+' && next == '+':
			return j + 2
		case r == '#' && !wordRune(next):
			return j + 1
		default:
			return j
		}
	}
	return j
}

// appendBigrams appends the terms of the run of CJK characters that begins
// at s[i], and returns where it ends: each pair of neighbours, or the one
// character of a run of one. Their text is not folded as Term folds a word
// (a Japanese voicing mark is a combining mark Term would drop: "が" is not
// "か").
func appendBigrams(out []Span, s string, i int) ([]Span, int) {
	var at []int
	end := i
	for end < len(s) {
		r, n := utf8.DecodeRuneInString(s[end:])
		if !cjk(r) {
			break
		}
		at = append(at, end)
		end += n
	}
	at = append(at, end)
	if len(at) == 2 {
		return append(out, Span{Term: s[i:end], Start: i, End: end}), end
	}
	for k := 0; k+2 < len(at); k++ {
		out = append(out, Span{Term: s[at[k]:at[k+2]], Start: at[k], End: at[k+2]})
	}
	return out, end
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
// is "server", "deployed" "deploy", "painting" "paint"), an irregular form
// as its base word ("went" is "go", "children" "child", see irregular),
// and a noun in -ing that names a thing of its own (ownNouns:
// "accounting", "building", "evening") kept whole, its plural folded. Stem
// folds no derivation, so "international" never finds "internal", nor
// "memorial" "memory", as the Porter stemmer FTS5 used to index with let
// them.
func Term(w string) string {
	w = plain(w)
	if len(w) > MaxTermBytes {
		cut := MaxTermBytes
		for cut > 0 && !utf8.RuneStart(w[cut]) {
			cut--
		}
		w = w[:cut]
	}
	if base, ok := irregular[w]; ok {
		return base
	}
	if ownNouns[strings.TrimSuffix(w, "s")] {
		return strings.TrimSuffix(w, "s")
	}
	return Stem(w)
}

// ownNouns are words in -ing that are nouns of their own meaning rather
// than the verb's doing: Stem would make "accounting" "account", "evening"
// "even", "building" "build", "setting" "set". A gerund ("painting",
// "camping", "running") is the verb's doing and folds into it.
var ownNouns = set(strings.Fields(`accounting banking bearing belonging blessing boarding building ceiling clothing
	coupling dwelling engineering evening heading housing icing lodging marketing meaning morning outing proceeding
	pudding saving setting shipping siding standing stuffing training wedding`)...)

// irregular are the irregular inflections of common English words, each
// with its base form: past tenses and participles ("went", "gone"),
// plurals ("children"), the third person of "go" and "fly". Forms that are
// also other words ("saw", "left", "found", "rose", "lay", "fell", "ground",
// "wound", "bore", "shot", "lit") are left alone.
var irregular = func() map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(`go went gone goes
		come came
		become became
		make made
		take took taken
		give gave given
		get got gotten
		know knew known
		grow grew grown
		write wrote written
		draw drew drawn
		sing sang sung
		swim swam swum
		fly flew flown flies
		drive drove driven
		ride rode ridden
		eat ate eaten
		begin began begun
		choose chose chosen
		speak spoke spoken
		break broke broken
		forget forgot forgotten
		wake woke woken
		wear wore worn
		throw threw thrown
		tear tore torn
		steal stole stolen
		freeze froze frozen
		hide hid hidden
		shake shook shaken
		see seen
		meet met
		hold held
		hear heard
		sell sold
		buy bought
		bring brought
		think thought
		teach taught
		catch caught
		fight fought
		seek sought
		sit sat
		stand stood
		understand understood
		tell told
		say said
		pay paid
		keep kept
		sleep slept
		feel felt
		lose lost
		spend spent
		send sent
		build built
		mean meant
		lend lent
		deal dealt
		lead led
		feed fed
		run ran
		win won
		hang hung
		dig dug
		stick stuck
		child children
		man men
		woman women
		person people
		foot feet
		tooth teeth
		mouse mice`, "\n") {
		f := strings.Fields(line)
		for _, form := range f[1:] {
			m[form] = Stem(f[0]) // as the base form itself is indexed
		}
	}
	return m
}()

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
