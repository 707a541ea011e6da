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
