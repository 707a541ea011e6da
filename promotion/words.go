package promotion

import (
	"regexp"
	"strings"
	"unicode"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/text"
)

// This file holds how every stage reads a note's own words: tokens, their
// stems (text.Root), the small lexicons (function words, generic nouns, negation,
// contrast) and the snake_case ids a note mentions. The lexicons were chosen
// while reading testdata/binding.txt and the scenario corpus; the held-out
// corpus (testdata/binding_heldout.txt) was not used to choose them.

// contentWords splits text into lower-case, stemmed words, without
// function words and without the words every lifecycle note uses ("fixed",
// "earlier", "now"), which say nothing about which row is meant.
func contentWords(text string) []string {
	var out []string
	eachContentWord(text, func(_, s string) { out = append(out, s) })
	return out
}

// writtenWords are the words contentWords keeps, as the text wrote them
// (lower-case): what a reason quotes back to the note's author.
func writtenWords(text string) []string {
	var out []string
	eachContentWord(text, func(w, _ string) { out = append(out, w) })
	return out
}

// eachContentWord calls f with each word of note that is not a function
// word, before and after stemming, and its stem.
func eachContentWord(note string, f func(word, stem string)) {
	for _, w := range tokens(note) {
		if stopwords[w] {
			continue
		}
		if s := text.Root(w); !stopwords[s] && s != "" {
			f(w, s)
		}
	}
}

// query is the distinctive words of a reference (stemmed, generic nouns
// left out), the words as the note wrote them, and whether it is negated.
type query struct {
	words   []string
	surface map[string]string
	negated bool
}

func newQuery(note string) query {
	q := query{surface: map[string]string{}, negated: negation.MatchString(note)}
	for _, w := range tokens(note) {
		if stopwords[w] {
			continue
		}
		if s := text.Root(w); !stopwords[s] && !generic[s] && s != "" && q.surface[s] == "" {
			q.surface[s] = w
			q.words = append(q.words, s)
		}
	}
	return q
}

// tokens splits text into lower-case runs of letters and digits; a
// snake_case id becomes its words.
func tokens(note string) []string { return text.Words(note) }

// distinct returns the words of ws once each, in order, without generic ones.
func distinct(ws []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range ws {
		if !seen[w] && !generic[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// lexicon builds a word set from a whitespace-separated list.
func lexicon(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// stopwords are the stop words (text.StopWords) and the words of a
// lifecycle note that name no row: its verbs, its time words.
var stopwords = text.Lexicon(`a an the this that these those it its it's is are was were be been being am
	has have had do does did done of to in on at by for from with as and or but not no so about into
	we i you they he she our my your their us me them there here who which what when where
	will would shall should could can may might must going
	never nothing none nobody neither nor
	now again still finally just already earlier previous prior before after since yesterday today
	last first latest recent recently old older other same some any both all also too really actually
	completely fully properly totally entirely whole entire mentioned noted one ones
	fix fixes fixed fixing resolve resolves resolved resolving solve solves solved solving
	close closes closed closing unblock unblocks unblocked unblocking work works worked working
	sorted handled pass passes passed passing ok okay fine good green
	decide decides decided deciding agree agrees agreed chose choose chosen settle settles settled settling
	don doesn didn isn wasn aren weren hasn haven hadn couldn shouldn wouldn won ain t s d ll ve re m`)

// generic are nouns any row could be called ("the blocker", "the issue"):
// they never carry a bind by words, though they keep a reference from being
// empty (and a few of them, alone, make a kind reference: kindReference).
var generic = stems(`blocker issue bug problem error thing stuff matter defect ticket item
	decision constraint rule choice`)

// stems builds a set of the stems of a whitespace-separated list.
func stems(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[text.Root(w)] = true
	}
	return m
}

// Negation, contrast and persistence markers. A statement about a row in a
// clause with one of them does not say the row changed.
var (
	// denial is negation that undoes a lifecycle statement ("fixed: not
	// db_timeout"). It leaves out "no", which names things ("no audio on mac").
	denial = regexp.MustCompile(`(?i)\b(?:not|nothing|none|never|nobody|neither|nor|cannot|no longer|yet to|nevermind)\b|n't\b`)
	// negation is every negation: a plain sentence with one is never read.
	negation = regexp.MustCompile(`(?i)\b(?:not|no|nothing|none|never|nobody|no one|neither|nor|cannot|no longer|yet to|nevermind)\b|n't\b`)
	// contrast starts a clause about something else ("..., but db_timeout").
	contrast = lexicon(`but however although though except whereas while yet instead unlike`)
	// persist says a row did not change ("db_timeout remains", "is still open").
	persist = lexicon(`still remains remain remaining persists persist open unresolved unfixed pending`)
	// spanEnd ends the words that name a row in a lifecycle body: a
	// contrast, a persistence word, or the start of how or why it changed.
	spanEnd = lexicon(`but however although though except whereas instead unlike still remains remain persists persist
		by via because thanks`)
)

// mention is a snake_case id in a note, and whether the note states it
// plainly: not in a negated clause, not after a contrast, and not in the
// part of a clause that says how or why ("by raising disk_quota").
type mention struct {
	id    string
	plain bool
}

// reasonMarker starts the part of a clause that says how or why.
var reasonMarker = lexicon(`by via because thanks`)

// mentions returns the snake_case ids (tokens with an underscore) a note
// names, in order. A clause ends at punctuation or a contrast word; every id
// after the first contrast, in a clause with a negation or persistence word,
// or after a reason marker in its clause, is not plain.
func mentions(text string) []mention {
	var out []mention
	clause, contrasted, denied, reason := []int{}, false, false, false
	flush := func() {
		for _, i := range clause {
			out[i].plain = out[i].plain && !contrasted && !denied
		}
		clause, denied, reason = clause[:0], false, false
	}
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return unicode.IsSpace(r) }) {
		word := strings.TrimFunc(f, func(r rune) bool { return r != '_' && (r >= 128 || !unicode.IsLetter(r) && !unicode.IsDigit(r)) })
		low := strings.ToLower(word)
		switch {
		case strings.Contains(word, "_") && memory.IsSlug(word):
			clause = append(clause, len(out))
			out = append(out, mention{id: word, plain: !reason})
		case contrast[low]:
			flush()
			contrasted = true
		case reasonMarker[low]:
			reason = true
		case denial.MatchString(low) || persist[low]:
			denied = true
		}
		if strings.ContainsAny(f, ",;.!?()[]") {
			flush()
		}
	}
	flush()
	return out
}

// referenceSpan is the part of a lifecycle body that names the row: up to
// the first contrast ("the login flake, but db_timeout is still open"), the
// first reason ("the flaky test by adding retries") or clause punctuation.
func referenceSpan(body string) string {
	end := len(body)
	if i := strings.IndexAny(body, ",;()—–"); i >= 0 {
		end = i
	}
	if i := strings.Index(body, " - "); i >= 0 && i < end {
		end = i
	}
	pos := 0
	for _, f := range strings.Fields(body[:end]) {
		at := strings.Index(body[pos:], f) + pos
		low := strings.ToLower(strings.Trim(f, ".!:"))
		if at > 0 && spanEnd[low] {
			end = at
			break
		}
		pos = at + len(f)
	}
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(body[:end]), ".!:"))
}

// soleID returns the id a reference span consists of, once articles and
// generic nouns are set aside ("the db_timeout issue" is db_timeout), or "".
func soleID(span string) string {
	var id string
	for _, f := range strings.Fields(span) {
		f = strings.Trim(f, ".,;:!?\"'`")
		low := strings.ToLower(f)
		switch {
		case strings.Contains(f, "_") && memory.IsSlug(f) && id == "":
			id = f
		case low == "the" || low == "a" || low == "an" || low == "our" || low == "that" || low == "this" || generic[text.Root(low)]:
		default:
			return ""
		}
	}
	return id
}

// Kind references point back at a row by its kind alone ("the earlier
// blocker", "that issue"). The lexicons are kept small on purpose: each word
// in them lets a note with no distinctive word close a row.
var (
	// pointers are the determiners a kind reference starts with.
	// "my" is not one: the one blocker recorded may be another agent's.
	pointers = lexicon(`the that our`)
	// anaphora say the row was spoken of before ("the earlier bug").
	anaphora = lexicon(`earlier previous same last`)
	// kindNouns maps a noun to the issue kind it names ("": any issue).
	kindNouns = map[string]string{"blocker": memory.KindBlocker, "issue": "", "bug": "", "problem": ""}
)

// kindReference reads a reference that names a row only by its kind: a
// pointer (the, that, our), at most one anaphoric word and a singular kind
// noun, nothing else. It returns the issue kind meant ("" for any issue).
// "blocker" may follow any pointer, since it is a kind notes report
// ("blocker: ...");
// "issue", "bug" and "problem" are what agents call anything, including
// what they just fixed in their own work and never recorded, so they point
// back only after "that" or an anaphoric word ("the earlier bug", not "the
// bug").
func kindReference(span string) (kind string, ok bool) {
	ws := tokens(span)
	if len(ws) < 2 || len(ws) > 3 || !pointers[ws[0]] {
		return "", false
	}
	back := ws[0] == "that"
	if len(ws) == 3 {
		if !anaphora[ws[1]] {
			return "", false
		}
		back = true
	}
	kind, ok = kindNouns[ws[len(ws)-1]]
	return kind, ok && (back || kind == memory.KindBlocker)
}

// occursIn reports whether phrase occurs in text, ignoring case and runs of
// spaces and punctuation (memory.TextKey), on word boundaries.
func occursIn(phrase, text string) bool {
	p := memory.TextKey(phrase)
	return p != "" && strings.Contains(" "+memory.TextKey(text)+" ", " "+p+" ")
}
