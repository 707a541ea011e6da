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
// the platform team"; "Ann is testing the API", "Ann tests the API").
// Every content word of either text must be matched in the other, by its
// stem (inflection only: "internal" is not "international", nor "account"
// "accounting"); the values (numbers, amounts, dates, days, times,
// colours), signs, negations, modals, quantifiers and the past of "to be"
// must agree; a word that orients a statement ("from", "than", "over") or
// says what it holds of ("only", "not") must lead to the same word in
// both; the function words that carry a relation must agree too (see
// relations: "Mark reviews every PR" is not "Mark every PR for review");
// a word after "to be" keeps its form unless a "by" names the doer
// (voiceAgrees: "to be called Sam" is not "to call Sam"); the order may
// change only by one move of a stretch of words, or by a passive turned
// active, with names in the same order (arrangedAlike: "The client calls
// the server" is not "The server calls the client", nor "Alice owes Bob"
// "Bob owes Alice"); and Contradicts must find no clash either way.
//
// The order rule is a list of what may move, not of what may not: an
// order it does not know keeps two memories apart, which costs a repeat
// stored twice rather than a memory lost.
//
// It never matches two different words by their vectors: the offline word
// vectors put "dog" and "cat", "son" and "daughter", "morning" and
// "afternoon" as close as any synonyms, so such a match would drop a
// memory that says something new (see docs/DESIGN.md).
func Restates(older, newer string) bool {
	a, b := contentOf(older), contentOf(newer)
	if len(a.words) == 0 || len(b.words) == 0 || !a.agrees(b) || !a.placedAs(b) || !b.placedAs(a) ||
		!sameOrder(a.values, b.values) ||
		!a.relatesAs(b) || !a.voiceAgrees(b) || !b.voiceAgrees(a) || !arrangedAlike(a, b) {
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
	words []token
	// placed are the names a preposition places ("in:slack"), which may
	// move with their phrase ("In Slack, Omar prefers DMs", "Omar prefers
	// DMs in Slack"); other names keep their order (see arrangedAlike).
	placed [][2]string // a preposition and the name it places
	third  []string    // the genders of its pronouns of the third person, in order
	// values are the values no preposition places, in order; clause
	// whether a word opens a clause of its own ("who", "that"), which a
	// phrase must not move across ("the candidate who left on Friday").
	values []string
	clause bool
	// be is where in seq the first form of "to be" stands, or -1, and
	// cleft whether "what" follows it ("Dark mode is what the user
	// prefers"): the sides of "is" may turn.
	be     int
	cleft  bool
	counts map[string]int // values, signs, negations and marks, by kind
	orient map[string][]string
	// relations counts the function words that carry a relation (see
	// relations), and "to" where it is a preposition.
	relations map[string]int
	// frame is the preposition of a phrase that opens the text and is set
	// off by a comma (see framing), or "".
	frame string
	// seq is the text's words in order, for arrangedAlike: its content
	// words, negations and marks, "then", "by", and the prepositions that
	// carry a relation, but not its values (weighed with their neighbours).
	seq []token
	// stated marks the words of seq that follow a form of "to be" ("is
	// managed", "to be called"): a passive or a state, which the other
	// text must write in the same form unless a "by" names the doer.
	stated []bool
}

func contentOf(text string) content {
	c := content{counts: map[string]int{}, orient: map[string][]string{}, relations: map[string]int{}, be: -1}
	text = spelledOut(text)
	var edges [][2]string // a value at an end of its sentence: its key as such, and with its neighbour
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
		if n := len(nameComma.FindAllStringIndex(s, -1)); n > 0 {
			c.counts["name,name"] += n // "Dana, Lee and Kim" is three people, "Dana Lee and Kim" two
		}
		for _, w := range splitWords(s, true) {
			if w = strings.ToLower(w); unsaid[w] {
				c.counts["said:"+w]++ // "Ann also reviews PRs" is not "Ann reviews PRs"
			}
		}
		toks := contentTokens(s)
		for i, t := range toks {
			lw := strings.ToLower(t.raw)
			if beForms[lw] && c.be < 0 && t.slot == "" {
				c.be = len(c.seq) // the first "is": the sides of it may turn
				c.cleft = i+1 < len(toks) && strings.EqualFold(toks[i+1].raw, "what")
			}
			if t.slot == "" && (!functionWords[t.norm] || t.norm == "then" || t.norm == "by" ||
				relations[t.norm] && !beforeValue(toks, i) || placedWords[lw] || third[lw] != "") {
				t.past = past(toks, i)
				c.seq = append(c.seq, t)
				c.stated = append(c.stated, afterBe(toks, i) && !functionWords[t.norm] && !placedWords[lw] && third[lw] == "")
			}
			if clauseWords[lw] && t.slot == "" {
				c.clause = true
			}
			if t.slot != "" && (i == 0 || !valueOpeners[strings.ToLower(toks[i-1].raw)]) {
				// Values no preposition places keep their order: "3 pods
				// crashed on node 7" is not "7 pods crashed on node 3".
				c.values = append(c.values, t.slot+":"+t.norm)
			}
			switch {
			case t.slot != "":
				// A value goes with the words beside it: "writer 0 note 5"
				// is not "writer 5 note 0".
				// One at either end of the sentence goes with the
				// sentence, wherever its phrase moves ("Every Monday, the
				// user reviews the board", "The user reviews the board
				// every Monday").
				around := []string{neighbour(toks, i, -1), neighbour(toks, i, 1)}
				slices.Sort(around)
				full := t.slot + ":" + t.norm + "|" + strings.Join(around, "|")
				if around[0] == "" {
					// Unless a clause of its own may hold it: "the
					// candidate who left on Friday" (see clause).
					edges = append(edges, [2]string{t.slot + ":" + t.norm + "|edge", full})
					break
				}
				c.counts[full]++
			case negations[t.norm] || marks[t.norm]:
				c.counts[t.norm]++
			case functionWords[t.norm]:
			default:
				c.words = append(c.words, t)
				if n := len(c.seq); isName(t.raw) && placed(c.seq, n-1) {
					c.placed = append(c.placed, [2]string{c.seq[n-2].norm, t.norm})
				}
			}
			switch w := strings.ToLower(t.raw); {
			case t.slot != "":
			case w == "few" || w == "little":
				// "a few tests pass" is some, "few tests pass" hardly any.
				if t.count == "one" {
					w = "a " + w
				}
				c.counts["quantity:"+w]++
			case w == "been" || w == "be":
				c.counts[w]++ // "has been the lead" is not "has the lead", "wants to be a lead" "wants a lead"
			case (w == "has" || w == "have") && !(i+1 < len(toks) && (past(toks, i+1) || toks[i+1].norm == "been")):
				c.counts["have"]++ // "Ann has a manager" is not "Ann is a manager"; "has reviewed" is "reviewed"
			case third[w] != "":
				c.third = append(c.third, third[w])
			case bound[w]:
				c.counts["bound:"+w]++ // "Ann or Bob", "Ann and Bob"; "my laptop", "your laptop"
			}
			if past(toks, i) {
				c.counts["past"]++ // "worked at Stripe" is not "works at Stripe"
			}
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
	for _, e := range edges {
		if c.clause {
			c.counts[e[1]]++
		} else {
			c.counts[e[0]]++
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
	if len(w) <= 3 || !strings.HasSuffix(w, "ed") || notPast[w] {
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

// notPast are words in -ed of four letters that tell of no past.
var notPast = set("need", "feed", "seed", "weed", "reed", "deed", "heed", "shed", "sled", "bred", "shred", "speed",
	"greed", "creed", "breed", "bleed", "steed", "tweed", "embed", "hundred")

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
			lw := american(dehyphen(strings.ToLower(t.raw)))
			if k, ok := asWritten(t.raw, kept); ok || ownPlurals[lw] || sameInPast[strings.TrimSuffix(lw, "s")] {
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
			t.norm = dehyphen(t.norm)
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
	if !maps.Equal(c.counts, d.counts) || len(c.third) > 0 && len(d.third) > 0 && !slices.Equal(c.third, d.third) {
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
// over tea"; and so must the words that say what a statement holds of
// ("Only Sam approves deploys", "Sam approves only deploys"; "a
// vegetarian, not a vegan", "a vegan, not a vegetarian").
var orienting = foldSet("from", "to", "into", "than", "over", "under", "above", "below", "before", "after",
	"instead", "between", "since", "until", "only", "even", "also", "just", "not", "never")

// bound are the function words that say whose, which, where or how many
// things a statement is of, which two texts must both say as often:
// pronouns ("I prefer tabs", "You prefer tabs"), "this" and "those"
// ("This branch is protected", "That branch is protected"), "here",
// "and" and "or", "get" and "got" ("Ann got the job", "Ann gets the job").
// The rest of functionWords may differ: articles, forms of "to be" and
// "do", "has", the passive's "by", "what" and "there" ("Dark mode is what
// the user prefers", "Every weekday there's a standup"), "that" ("says
// that it rains", "says it rains") and the prepositions (see relations).
var bound = set("i", "me", "my", "we", "us", "our", "you", "your", "this", "these", "those", "here", "and", "or",
	"who", "whom", "whose", "which", "get", "gets", "got", "very", "so")

// unsaid are the words the contradiction rules leave out of a claim (see
// dropped) that a restatement must say too: "Ann also reviews PRs" is not
// "Ann reviews PRs", "Ann just left" not "Ann left", "Ann is in Lisbon
// today" not "Ann is in Lisbon".
var unsaid = set("also", "just", "today", "still", "yet")

// placedWords are the function words whose place matters, kept in a
// text's order (seq): "Our team reviews your PRs" is not "Your team
// reviews our PRs", "He mentors the intern" not "The intern mentors him".
var placedWords = set("i", "me", "my", "we", "us", "our", "you", "your", "this", "these", "those", "here", "very",
	"so", "get", "gets", "got", "who", "whom", "whose", "which", "and", "or")

// third are the pronouns of the third person, by gender: a text may say
// "their brother" where another says "the user's brother", but where both
// use them they must agree, in order ("Ann met her manager", "Ann met his
// manager"; "She approved his request", "He approved her request").
var third = map[string]string{"he": "m", "him": "m", "his": "m", "she": "f", "her": "f", "hers": "f", "it": "n",
	"its": "n", "they": "p", "them": "p", "their": "p", "theirs": "p"}

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

// beForms are the forms of "to be" after which a word says a state or a
// passive ("is managed", "to be called"), for afterBe.
var beForms = set("is", "are", "am", "was", "were", "be", "been", "being", "isn't", "aren't", "wasn't", "weren't")

// afterBe reports whether toks[i] follows a form of "to be", but for a
// word in -ing ("is testing" says what "tests" says), past negations and
// words in -ly ("is not managed", "is automatically rotated").
func afterBe(toks []token, i int) bool {
	if strings.HasSuffix(strings.ToLower(toks[i].raw), "ing") {
		return false
	}
	for j := i - 1; j >= 0; j-- {
		w := strings.ToLower(toks[j].raw)
		if negations[toks[j].norm] || strings.HasSuffix(w, "ly") && toks[j].slot == "" {
			continue
		}
		return beForms[w]
	}
	return false
}

// voiceAgrees reports whether each word c writes after a form of "to be"
// the other writes in the same form, unless c names the doer with a "by"
// ("is managed by Alice", "Alice manages"): "wants to be called Sam" is
// not "wants to call Sam".
func (c content) voiceAgrees(d content) bool {
	verb := -1
	if _, ok := c.active(d); ok {
		verb = c.passiveVerb()
	}
	for i, t := range c.seq {
		if !c.stated[i] || i == verb {
			continue
		}
		if !slices.ContainsFunc(d.seq, func(u token) bool {
			return sameWord(t, u) && strings.EqualFold(t.raw, u.raw)
		}) {
			return false
		}
	}
	return true
}

// passiveVerb is where in seq the verb of c's passive stands: the first
// word after a form of "to be" before its "by", or -1.
func (c content) passiveVerb() int {
	by := slices.IndexFunc(c.seq, func(t token) bool { return t.norm == "by" })
	if by < 0 {
		return -1
	}
	return slices.Index(c.stated[:by], true)
}

// placedAs reports whether every name c places with a preposition d
// places with the same one, where d writes that name as a name too.
func (c content) placedAs(d content) bool {
	for _, p := range c.placed {
		if slices.ContainsFunc(d.seq, func(t token) bool { return isName(t.raw) && t.norm == p[1] }) &&
			!slices.Contains(d.placed, p) {
			return false
		}
	}
	return true
}

// arrangedAlike reports whether b says a's words in a's order, or in an
// order one move of a phrase makes of it: a phrase that opens with a
// preposition, "every" or "when" fronted or put last ("After lunch Priya
// reviews pull requests", "Priya reviews pull requests after lunch"), an
// adverb moved to an end ("Ann carefully reviews PRs", "Ann reviews PRs
// carefully"), the sides of "is" turned ("Vim is the user's editor",
// "The user's editor is Vim"; "Dark mode is what the user prefers"); or
// the same with a passive turned active ("The team is managed by Alice",
// "Alice manages the team"). Any other order puts the words in other
// roles: "The client calls the server" is not "The server calls the
// client", "Sort by date, then by name" not "Sort by name, then by date",
// "milk chocolate" not "chocolate milk", "Bob says the build usually
// fails" not "Bob usually says the build fails".
func arrangedAlike(a, b content) bool {
	x, y := a.arranged(b), b.arranged(a)
	if alike(x, y) {
		return true
	}
	if act, ok := a.active(b); ok && alike(act, y) {
		return true
	}
	act, ok := b.active(a)
	return ok && alike(x, act)
}

// arrangement is a text's words in order (seq, see content), where its
// first "is" stands (be, or -1) and whether "what" follows it (cleft),
// and whether it opens with a framing phrase the other text says as a
// modifier (framed, see relatesAs).
type arrangement struct {
	seq                   []token
	be                    int
	cleft, framed, clause bool
}

// arranged is c's words as compared with d's: without the preposition of
// c's framing phrase where d says it as a modifier, and without c's
// pronouns of the third person where d has none ("their brother", "the
// user's brother").
func (c content) arranged(d content) arrangement {
	a := arrangement{seq: c.seq, be: c.be, cleft: c.cleft, clause: c.clause || d.clause}
	if c.frame != "" && d.relations[c.frame] == 0 && len(a.seq) > 0 && a.seq[0].norm == c.frame {
		a.seq, a.framed = a.seq[1:], true
		if a.be > 0 {
			a.be--
		}
	}
	if len(d.third) == 0 {
		var kept []token
		be := a.be
		for i, t := range a.seq {
			if third[strings.ToLower(t.raw)] == "" {
				kept = append(kept, t)
			} else if i < be {
				a.be--
			}
		}
		a.seq = kept
	}
	return a
}

// alike reports whether y is one move from x (oneMove) and names, but
// for those a preposition places, in x's order: "Ann mentors Bob" is not
// "Bob mentors Ann", nor "For Ann, Bob is the best reviewer" "For Bob,
// Ann is the best reviewer".
func alike(x, y arrangement) bool {
	return oneMove(x, y) && sameOrder(namesOf(x.seq), namesOf(y.seq))
}

// namesOf are the names of seq in order, as nameOf keys, but for those a
// preposition places.
func namesOf(seq []token) []string {
	var out []string
	for i, t := range seq {
		if isName(t.raw) && !placed(seq, i) {
			out = append(out, nameOf(t))
		}
	}
	return out
}

// placed reports whether a preposition comes just before seq[i].
func placed(seq []token, i int) bool {
	return i > 0 && (relations[seq[i-1].norm] || orienting[seq[i-1].norm])
}

// active is a passive c's words as the active says them: "the team
// [is] managed by Alice" as "Alice managed the team". The doer is the
// words after "by" up to the next preposition; the verb is the first
// word after a form of "to be" before it.
func (c content) active(d content) (arrangement, bool) {
	x := c.arranged(d)
	by := slices.IndexFunc(x.seq, func(t token) bool { return t.norm == "by" })
	if by < 0 {
		return x, false
	}
	verb := -1
	for i, t := range x.seq[:by] {
		if k := slices.IndexFunc(c.seq, func(u token) bool { return u == t }); k >= 0 && c.stated[k] {
			verb = i
			break
		}
	}
	end := by + 1
	for end < len(x.seq) && !phraseOpeners[x.seq[end].norm] && x.seq[end].norm != "then" {
		end++
	}
	if verb < 0 || end == by+1 {
		return x, false
	}
	seq := slices.Concat(x.seq[by+1:end], x.seq[verb:verb+1], x.seq[:verb], x.seq[verb+1:by], x.seq[end:])
	return arrangement{seq: seq, be: -1}, true
}

// oneMove reports whether y is x's words (matched by sameWord, each in
// the same tense and with or without its possessive "'s" alike) in x's
// order, or in the order one move of a phrase makes (see arrangedAlike):
// a stretch that opens with a preposition, "every" or "when", or of
// adverbs, moved from or to either end; or the two sides of "is" turned.
func oneMove(x, y arrangement) bool {
	n := len(x.seq)
	if n != len(y.seq) || n > 40 {
		return false
	}
	// at[k] is the word of x that y[k] is, each word of x taken once,
	// the first free one first.
	at := make([]int, n)
	used := make([]bool, n)
	for k, u := range y.seq {
		at[k] = -1
		for i, t := range x.seq {
			if !used[i] && sameWord(t, u) && possessive(t.raw) == possessive(u.raw) && t.past == u.past {
				at[k], used[i] = i, true
				break
			}
		}
		if at[k] < 0 {
			return false
		}
	}
	// Without the common start and end, what is left must be two
	// stretches of x in the other order: lo..j-1 and j..hi-1 as j..hi-1,
	// lo..j-1.
	lo, hi := 0, n
	for lo < hi && at[lo] == lo {
		lo++
	}
	for hi > lo && at[hi-1] == hi-1 {
		hi--
	}
	if lo == hi {
		return true
	}
	if joined(x.seq, at[lo:hi], lo, hi) {
		// Two sides of "and" or "or": "chess and rock climbing", "rock
		// climbing and chess".
		return true
	}
	for j := lo + 1; j < hi; j++ {
		if !rotatedAt(at[lo:hi], lo, j) {
			continue
		}
		// In y the two stretches stand at lo..m-1 and m..hi-1.
		m := lo + hi - j
		edge := lo == 0 || hi == n
		if edge && (x.movable(lo, j) || x.movable(j, hi) || y.movable(lo, m) || y.movable(m, hi)) {
			return true
		}
		// The sides of "is": "X is Y", "Y is X"; "Y is what X".
		if lo == 0 && hi == n && (x.be == j && (y.be == n-j || x.cleft) || y.be == n-j && y.cleft) {
			return true
		}
	}
	return false
}

// joined reports whether w, the indices of x at lo..hi-1, is the two
// sides of an "and" or "or" in x[lo:hi] in the other order.
func joined(x []token, w []int, lo, hi int) bool {
	for k := lo + 1; k < hi-1; k++ {
		if x[k].norm != "and" && x[k].norm != "or" {
			continue
		}
		want := slices.Concat(span(k+1, hi), []int{k}, span(lo, k))
		if slices.Equal(w, want) {
			return true
		}
	}
	return false
}

// span is the integers from..to-1.
func span(from, to int) []int {
	out := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// movable reports whether x.seq[from:to] is a phrase that may move to or
// from an end of its sentence: one that opens with a preposition, "every"
// or a word that opens a clause ("when", "if"), a framing phrase, or
// adverbs.
func (x arrangement) movable(from, to int) bool {
	if x.clause {
		return false // a phrase may belong to either clause
	}
	if from == 0 && x.framed || phraseOpeners[x.seq[from].norm] {
		return true
	}
	for _, t := range x.seq[from:to] {
		if w := strings.ToLower(t.raw); !adverbs[w] && !(len(w) > 4 && strings.HasSuffix(w, "ly")) {
			return false
		}
	}
	return true
}

// phraseOpeners are the words that open a phrase that may move: the
// prepositions, "every" and "each", and the words that open a clause.
var phraseOpeners = foldSet("with", "for", "in", "on", "at", "of", "as", "about", "from", "into", "over", "under",
	"above", "below", "before", "after", "between", "since", "until", "during", "via", "per", "within", "without",
	"across", "through", "throughout", "near", "around", "behind", "beside", "every", "each", "when", "whenever",
	"if", "while", "unless", "because", "once")

// nameComma is a comma between two words with capitals in a list, one
// an "and" or "or" closes later in the sentence: "Invite Dana, Lee and
// Kim" (but not "In Slack, Omar prefers DMs").
var nameComma = regexp.MustCompile(`\p{Lu}\pL*(,)\s+\p{Lu}[^.!?;]*\b(?:and|or)\b`)

// clauseWords open a clause inside a sentence.
var clauseWords = set("who", "whom", "whose", "which", "that")

// valueOpeners are the words that place a value ("at 3pm", "every
// Monday", "in 2019"), which may move with its phrase.
var valueOpeners = set("at", "on", "in", "by", "from", "to", "until", "till", "since", "before", "after", "every",
	"each", "for", "during", "around", "about", "per", "of", "over", "under", "than", "between", "and", "or", "next",
	"last", "this")

// adverbs are the adverbs not in -ly that may move to an end of a
// sentence: "Raj always reviews the schema", "Raj reviews the schema
// always".
var adverbs = set("always", "usually", "often", "sometimes", "seldom", "twice", "again", "together", "remotely",
	"onsite", "soon", "later", "tonight", "daily", "weekly", "monthly", "yearly", "hourly", "nightly")

// rotatedAt reports whether w, the indices of x at lo.., is x[j..] then
// x[lo..j].
func rotatedAt(w []int, lo, j int) bool {
	n := len(w) - (j - lo) // the length of x[j..hi]
	for k, v := range w {
		want := j + k
		if k >= n {
			want = lo + k - n
		}
		if v != want {
			return false
		}
	}
	return true
}

// possessive reports whether w is written with a possessive "'s": the
// owner's role goes with it ("Ann, Bob's manager" is not "Bob, Ann's
// manager").
func possessive(w string) bool {
	w = strings.ToLower(w)
	return strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s")
}

// dehyphen is w without its hyphens ("Wi-Fi" is "WiFi", "on-call"
// "oncall"), but for the hyphen after "re" or "co", which makes another
// word: "re-sign" is not "resign", nor "re-cover" "recover", "co-op"
// "coop".
func dehyphen(w string) string {
	if l := strings.ToLower(w); strings.HasPrefix(l, "re-") || strings.HasPrefix(l, "co-") {
		return w
	}
	return strings.ReplaceAll(w, "-", "")
}
