package text

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Restates reports whether newer says what older says in other words, for
// dedup's semantic tier: the same content words in another order or
// another form ("The platform team is managed by Alice", "Alice manages
// the platform team"; "allergic to penicillin", "a penicillin allergy").
// Every content word of either text must be matched in the other, by its
// stem (inflection only: "internal" is not "international", nor "account"
// "accounting"); the values (numbers, amounts, dates, days,
// times, colours), signs, negations, modals, quantifiers and the past of
// "to be" must agree; names
// must come in the same order ("Alice owes Bob" is not "Bob owes Alice");
// a word that orients a statement ("from", "than", "over") must lead to
// the same word in both; the function words that carry a relation must
// agree too (see relations: "Mark reviews every PR" is not "Mark every PR
// for review", nor "Go to the release review" "Go release review is");
// and Contradicts must find no clash either way.
//
// It never matches two different words by their vectors: the offline word
// vectors put "dog" and "cat", "son" and "daughter", "morning" and
// "afternoon" as close as any synonyms, so such a match would drop a
// memory that says something new (see docs/DESIGN.md).
func Restates(older, newer string) bool {
	a, b := contentOf(older), contentOf(newer)
	// The doer moves to the end with a "by" on one side only ("Alice
	// manages the team", "the team is managed by Alice"), and otherwise
	// stays: "the team manages Alice" is not "the team is managed by Alice".
	if len(a.words) == 0 || len(b.words) == 0 || !a.agrees(b) || !sameOrder(a.names, b.names) ||
		swapped(a.words, b.words) != (a.passive != b.passive) || !a.relatesAs(b) {
		return false
	}
	if _, ok := Contradicts(older, newer); ok {
		return false
	}
	if _, ok := Contradicts(newer, older); ok {
		return false
	}
	return covered(a.words, b.words) && covered(b.words, a.words)
}

// content is what a text says, for Restates.
type content struct {
	words  []token
	names  []string       // the words written with a capital, in order
	counts map[string]int // values, signs, negations and marks, by kind
	orient map[string][]string
	// passive reports a "by", which lets the doer come last ("the team is
	// managed by Alice").
	passive bool
	// relations counts the function words that carry a relation (see
	// relations), and "to" where it is a preposition.
	relations map[string]int
	// frame is the preposition of a phrase that opens the text and is set
	// off by a comma (see framing), or "".
	frame string
}

func contentOf(text string) content {
	c := content{counts: map[string]int{}, orient: map[string][]string{}, relations: map[string]int{}}
	for _, s := range sentences(text) {
		rs := []rune(s)
		if sen := [2]int{0, len(rs)}; shout(rs, sen, wordSpans(rs, 0, len(rs))) {
			s = caseFold(s) // a shouted sentence says what its lower case says
		}
		if ps := paths(s); len(ps) > 0 {
			// Paths are values whose order is their roles: "points
			// /opt/data at /mnt/disk" is not "points /mnt/disk at
			// /opt/data", nor "scripts/deploy/" "deploy/scripts/".
			c.counts["paths:"+strings.Join(ps, "\x00")]++
		}
		if n := len(toDeterminer.FindAllStringIndex(s, -1)); n > 0 {
			c.relations["to"] += n
		}
		toks := contentTokens(s)
		for i, t := range toks {
			switch {
			case t.slot != "":
				// A value goes with the words beside it: "writer 0 note 5"
				// is not "writer 5 note 0".
				around := []string{neighbour(toks, i, -1), neighbour(toks, i, 1)}
				slices.Sort(around)
				c.counts[t.slot+":"+t.norm+"|"+strings.Join(around, "|")]++
			case negations[t.norm] || marks[t.norm]:
				c.counts[t.norm]++
			case functionWords[t.norm]:
			default:
				c.words = append(c.words, t)
				if isName(t.raw) {
					c.names = append(c.names, t.norm)
				}
			}
			if past(toks, i) {
				c.counts["past"]++ // "worked at Stripe" is not "works at Stripe"
			}
			c.passive = c.passive || t.norm == "by" && t.slot == ""
			if t.slot == "" && relations[t.norm] && !beforeValue(toks, i) {
				c.relations[t.norm]++
				if i == 0 && framing.MatchString(s) {
					c.frame = t.norm
				}
			}
			if orienting[t.norm] && t.slot == "" {
				c.orient[t.norm] = append(c.orient[t.norm], following(toks, i))
			}
		}
	}
	for _, w := range dedupWords(dateSlash.ReplaceAllString(text, "$1-$2")) {
		if strings.IndexFunc(w, unicode.IsLetter) < 0 && strings.IndexFunc(w, unicode.IsDigit) < 0 {
			c.counts["sign:"+w]++ // "C++" is not "C", "A+" not "A-"
		}
	}
	return c
}

// past reports whether toks[i] tells of the past: "had", "did", or a
// word in -ed that no form of "to be" or "get" comes just before (after
// one it is a state or a passive, "is managed by", which the present
// says too). The stems of "works" and "worked" are one, as are those of
// "has" and "had", so without this a change of tense would be a repeat.
func past(toks []token, i int) bool {
	t := toks[i]
	if t.slot != "" {
		return false
	}
	w := strings.ToLower(t.raw)
	if w == "had" || w == "did" {
		return true
	}
	if len(w) <= 4 || !strings.HasSuffix(w, "ed") {
		return false
	}
	for j := i - 1; j >= 0; j-- {
		if negations[toks[j].norm] {
			continue // "is not managed"
		}
		return !participleAfter[strings.ToLower(toks[j].raw)]
	}
	return true
}

// participleAfter are the words after which a word in -ed is a state or
// a passive rather than the past.
var participleAfter = map[string]bool{"is": true, "are": true, "am": true, "was": true, "were": true, "be": true,
	"been": true, "being": true, "get": true, "gets": true, "got": true, "gotten": true, "'s": true, "’s": true}

// contentTokens are a sentence's tokens with a name of several words taken
// word by word ("Mr Okafor" inside a sentence is "Mr" and "Okafor" opening
// one), hyphens dropped from words ("Wi-Fi", "WiFi"), a word in -ing kept
// whole but after a form of "to be" ("is testing" is "tests", but the
// "accounting" team is not the "account" team), and a word in a plural
// form counted as many.
//
// Case is kept where it carries meaning (caseFold: "IT" is not "it"), an
// identifier ("user_ids", "getUsers") and an -s noun of its own ("news",
// "customs") are never stemmed, and a number keeps its separators
// (writtenNumber: "1,5" is not "15", "1.10" not "1.1").
func contentTokens(s string) []token {
	var out []token
	kept := keptCase(s)
	for _, t := range readWords(splitWords(s, true)) {
		switch t.slot {
		case "number", "amount", "percent":
			if n, ok := writtenNumber(t.raw); ok && !strings.HasSuffix(t.norm, "th") {
				t.norm = n
			}
		case "code":
			// A channel, an email address or a room code ("4B") is a word
			// both texts must say, as a name is, wherever it stands.
			out = append(out, token{norm: strings.ReplaceAll(t.norm, "-", ""), raw: t.raw, name: isName(t.raw)})
			continue
		case "name":
			for _, w := range strings.Fields(t.raw) {
				norm := fold(strings.ReplaceAll(strings.ToLower(w), "-", ""))
				if k, ok := asWritten(w, kept); ok {
					norm = k
				}
				out = append(out, token{norm: norm, raw: w, name: true})
			}
			continue
		case "":
			lw := american(strings.ReplaceAll(strings.ToLower(t.raw), "-", ""))
			if k, ok := asWritten(t.raw, kept); ok || ownPlurals[lw] {
				if !ok {
					k = lw
				}
				t.norm, t.name = k, isName(t.raw)
				out = append(out, t)
				continue
			}
			if g, ok := strings.CutSuffix(lw, "s"); ok && strings.HasSuffix(g, "ing") || strings.HasSuffix(lw, "ing") {
				if len(out) > 0 && progressive[strings.ToLower(out[len(out)-1].raw)] {
					t.norm = Stem(lw)
				}
			}
			t.norm = strings.ReplaceAll(t.norm, "-", "")
			if t.count == "" && strings.HasSuffix(lw, "s") && !strings.HasSuffix(lw, "ss") && Stem(lw) != lw && !isName(t.raw) {
				t.count = "many"
			}
			t.name = isName(t.raw)
		}
		out = append(out, t)
	}
	return out
}

// progressive are the forms of "to be" after which a word in -ing is a
// verb's: "is testing".
var progressive = set("is", "are", "am", "was", "were", "be", "been", "'s", "’s", "isn't", "aren't", "wasn't", "weren't", "not")

// dateSlash is a slash between digits, a date's separator ("2026/03/01")
// rather than a sign.
var dateSlash = regexp.MustCompile(`(\d)/(\d)`)

// neighbour is the nearest content word or value to toks[i] in direction
// dir, as its stem, or "".
func neighbour(toks []token, i, dir int) string {
	for j := i + dir; j >= 0 && j < len(toks); j += dir {
		t := toks[j]
		if t.slot != "" {
			return t.slot + ":" + t.norm
		}
		if !functionWords[t.norm] && !marks[t.norm] && !negations[t.norm] {
			return t.norm
		}
	}
	return ""
}

// following is the first token after toks[i] that is not a function word.
func following(toks []token, i int) string {
	for _, t := range toks[i+1:] {
		if !functionWords[t.norm] || t.slot != "" {
			return t.slot + ":" + t.norm
		}
	}
	return ""
}

// agrees reports whether c and d have the same values, signs, negations
// and marks, and whether each word that orients both leads to the same
// words in each.
func (c content) agrees(d content) bool {
	if !maps.Equal(c.counts, d.counts) {
		return false
	}
	for w, next := range c.orient {
		if other, ok := d.orient[w]; ok && !sameWords(next, other) {
			return false
		}
	}
	return true
}

// relations are the prepositions that say how the content words relate,
// which "the same words in another order" must keep: "Mark reviews every
// PR" is not "Mark every PR for review", nor "Frank is the lead" "Be frank
// with the lead". "by" is the passive's (Restates weighs it), and "to" as
// often an infinitive's or a noun's ("allergic to penicillin", "a
// penicillin allergy"), so neither is among them; but "to" before a
// determiner is a preposition ("go to the review", see toDeterminer).
var relations = foldSet("with", "for", "in", "on", "at", "of", "as", "about")

// toDeterminer is "to" before a determiner: a preposition then ("go to
// the review") rather than an infinitive's ("to review").
var toDeterminer = regexp.MustCompile(`(?i)\bto\s+(the|a|an|this|that|these|those|my|our|your|his|her|their|its)\b`)

// beforeValue reports whether toks[i] leads straight to a value: "on"
// in "is on July 3" says what "is July 3" says, and the value itself is
// weighed with the words beside it.
func beforeValue(toks []token, i int) bool {
	return i+1 < len(toks) && toks[i+1].slot != ""
}

// framing is a sentence that opens with a phrase set off by a comma ("In
// an emergency, contact Paul"): the phrase frames the whole, and another
// text may say it as a modifier ("the emergency contact is Paul").
var framing = regexp.MustCompile(`^\s*\pL+\s[^,.;:]{1,40},`)

// relatesAs reports whether c and d carry the same relations, but for a
// framing phrase of one that the other says as a modifier, without its
// preposition ("In an emergency, contact Paul", "The emergency contact is
// Paul").
func (c content) relatesAs(d content) bool {
	if maps.Equal(c.relations, d.relations) {
		return true
	}
	asModifier := func(c, d content) bool {
		return c.frame != "" && d.relations[c.frame] == 0 && equalBut(c.relations, d.relations, c.frame)
	}
	return asModifier(c, d) || asModifier(d, c)
}

// equalBut reports whether a and b hold the same counts but for key k.
func equalBut(a, b map[string]int, k string) bool {
	a, b = maps.Clone(a), maps.Clone(b)
	delete(a, k)
	delete(b, k)
	return maps.Equal(a, b)
}

func sameWords(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// sameOrder reports whether the words both a and b hold come in the same
// order in each.
func sameOrder(a, b []string) bool {
	return slices.Equal(common(a, b), common(b, a))
}

// common is the words of a that b holds, in a's order.
func common(a, b []string) []string {
	var out []string
	for _, w := range a {
		if slices.Contains(b, w) {
			out = append(out, w)
		}
	}
	return out
}

// swapped reports whether b puts what comes before some word of a after
// it and what comes after it before: "the cat chased the dog", "the dog
// chased the cat", which without a "by" are the roles swapped.
func swapped(a, b []token) bool {
	at := make([]int, len(a)) // where each word of a is in b
	for i, x := range a {
		at[i] = slices.IndexFunc(b, func(y token) bool { return sameWord(x, y) })
	}
	for i := 1; i+1 < len(a); i++ {
		v := at[i]
		if v >= 0 && !slices.ContainsFunc(at[:i], func(j int) bool { return j <= v }) &&
			!slices.ContainsFunc(at[i+1:], func(j int) bool { return j < 0 || j >= v }) {
			return true
		}
	}
	return false
}

// covered reports whether every word of a is matched in b.
func covered(a, b []token) bool {
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y token) bool { return sameWord(x, y) }) {
			return false
		}
	}
	return true
}

// sameWord reports whether x and y are one word: the same stem (Stem
// folds inflection only, so "internal" is not "international"), where
// both are names the same name ("Luca" is not "Lucas"), and not one
// counted as one thing and the other as many ("a daughter", "daughters").
func sameWord(x, y token) bool {
	if x.name && y.name {
		return nameOf(x) == nameOf(y)
	}
	return x.norm == y.norm && (x.count == "" || y.count == "" || x.count == y.count)
}

// marks are words that must agree in count: the past of "to be", modals,
// quantifiers and the words that orient a statement, but for "to", which
// is as often an infinitive's.
var marks = foldSet("was", "will", "would", "can", "could", "must", "should", "may", "might", "from", "into",
	"before", "after", "than", "over", "under", "above", "below", "without", "except", "instead", "other", "only",
	"more", "less", "most", "least", "every", "all", "some", "each", "both", "either", "neither", "between",
	"since", "until", "unless", "per", "half", "double", "twice", "non")

// orienting words must lead to the same word in both texts: "ships from
// Rotterdam" is not "ships to Rotterdam", "tea over coffee" not "coffee
// over tea".
var orienting = foldSet("from", "to", "into", "than", "over", "under", "above", "below", "before", "after",
	"instead", "between", "since", "until")

// functionWords carry how a statement reads, not what it says.
var functionWords = foldSet("a", "an", "the", "is", "am", "are", "be", "been", "being", "do", "does", "did", "have",
	"has", "had", "get", "got", "i", "me", "my", "we", "us", "our", "you", "your", "he", "him", "his", "she", "her",
	"it", "its", "they", "them", "their", "this", "that", "these", "those", "there", "here", "what", "which", "who",
	"whom", "whose", "and", "or", "of", "in", "on", "at", "by", "for", "with", "as", "to", "so", "then", "just",
	"also", "very", "s")

// MeaningKey is the key a store finds the memories content may restate by
// (hex SHA-256): the stems of its content words, as a set, with its values, signs, negations and marks. Two texts
// Restates matches have the same key; one without content words has none
// (""), and restates nothing; nor does a text of more than one sentence.
func MeaningKey(content string) string {
	if len(sentences(content)) != 1 {
		// A restatement is of one statement: texts of several rarely use
		// the same words in another order, and keying them would cost
		// every long write a tokenising and a lookup.
		return ""
	}
	c := contentOf(content)
	if len(c.words) == 0 {
		return ""
	}
	var stems, counts []string
	for _, t := range c.words {
		stems = append(stems, t.norm)
	}
	slices.Sort(stems)
	for k, n := range c.counts {
		counts = append(counts, k+"\x00"+strconv.Itoa(n))
	}
	slices.Sort(counts)
	h := sha256.Sum256([]byte(strings.Join(slices.Compact(stems), "\x01") + "\x02" + strings.Join(counts, "\x01")))
	return hex.EncodeToString(h[:])
}

// nameOf is a name token as a key: its norm where that keeps its case
// ("US"), or else nameKey of it as written.
func nameOf(t token) string {
	if strings.ToLower(t.norm) != t.norm {
		return t.norm
	}
	return nameKey(t.raw)
}

// asWritten is word w as a key when its form is part of what it says: its
// case where that carries meaning (kept: "IT", "Gb"), or an identifier as
// written but for case ("user_ids", "getUsers": never stemmed).
func asWritten(w string, kept map[string]bool) (string, bool) {
	switch {
	case kept[w]:
		return unmarked(w), true
	case identifier(w):
		return unmarked(strings.ToLower(w)), true
	}
	return "", false
}

// nameKey is a name as a key: lower case, without hyphens or apostrophes
// ("Wi-Fi" is "WiFi", "Let's Encrypt" "Lets Encrypt").
func nameKey(w string) string {
	return unmarked(strings.ToLower(w))
}

// unmarked is w without hyphens or apostrophes.
func unmarked(w string) string {
	return strings.NewReplacer("-", "", "'", "", "’", "").Replace(w)
}
