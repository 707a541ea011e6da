package text

import (
	"crypto/sha256"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Contradiction detection, offline (seed 003, 12.2.4: negation detection and
// the same frame with another value). A memory makes claims: each sentence
// with a stated polarity ("the user eats fish", "the build is failing"), and
// each value said of something through "to be" or a verb that states a value
// ("the flight is on Tuesday", "Priya works at Stripe", "standup starts at
// 9:30", "Tom has 2 kids"). A claim's key is its sentence with that value
// (or that polarity) taken out, so two memories can clash only where they
// share a key: the same words about the same subject. Rules, not a model:
// the frames are few and narrow on purpose, since a clash can replace a
// memory and a wrong one loses knowledge; a configured language model judges
// the pairs the rules cannot.

// ConflictKind says how a newer text contradicts an older one, by the
// rules: the root package's memory.ConflictKind of the same value.
type ConflictKind string

// The kinds the rules find.
const (
	ConflictNegation ConflictKind = "negation" // one denies what the other says, or says its opposite (enabled / disabled)
	ConflictValue    ConflictKind = "value"    // the same thing with another number, amount, date, day, time or name
)

// Clash is how a newer text contradicts an older one.
type Clash struct {
	Kind ConflictKind
	// Slot is the kind of value that differs (number, amount, percent,
	// time, date, day, year, name), or "" for a negation.
	Slot string
	// Older and Newer are what differs, as written: the values, or for a
	// negation the two statements' polarities ("says" / "denies").
	Older, Newer string
	// Whole reports that the older text is the one claim that clashes: a
	// single sentence, so replacing it loses nothing else it said.
	Whole bool
}

// claim is one thing a text states, as words.
type claim struct {
	key   string // the sentence without the value (or the polarity)
	slot  string // the value's kind; "" for a polarity claim
	value string // the value, normalised ("15:00", "2026-03-03", "5000", a list "fri,mon"); for a polarity claim "+" or "-"
	raw   string // the value as written
	// change marks a claim that tells of a change ("moved to Paris",
	// "switched from Jenkins to Buildkite"): only it can clash on the keys
	// of a subject's value (u|) or of a value replaced (x|), which many
	// memories that can all be true share.
	change bool
	// lead is, for a change from one value to another, the words before
	// its verb (its subject); for any other claim of a value replaced, the
	// sentence's words, which must begin with that subject.
	lead []string
	// values are the values the claim's sentence states: a sentence that
	// already names the new value is not contradicted by the change to it.
	values []string
	// also marks a value said in addition to others ("office hours are
	// also on Fridays"): it replaces none.
	also bool
	// owned marks a claim of a sentence that opens with "the user's": a
	// change the user tells of ("the user cancelled PureGym") may replace
	// it.
	owned bool
	// only marks a list said to be the whole of it ("now only on
	// Fridays") where the key leaves the word out.
	only bool
	// tense is "past" or "present" for a sentence told through a verb of
	// state in that tense (tenseOf), qual what it says beside its value
	// (qualifiers).
	tense, qual string
}

// Claim is one thing a text states, hashed: its key (the sentence with the
// value or the polarity taken out) and its value. Two texts can clash only
// on a claim of the same key and another value, so a store keeps them
// beside each memory and finds a new one's candidates by index, without
// reading the many memories that say the same thing.
type Claim struct {
	Key, Value int64
}

// ClaimKeys are the claims content makes (Contradicts decides whether two
// that share a key with other values clash).
func ClaimKeys(content string) []Claim {
	cs := claims(content)
	out := make([]Claim, 0, len(cs))
	seen := map[Claim]bool{}
	for _, c := range cs {
		k := Claim{Key: hash64(c.key), Value: hash64(c.slot + "|" + c.value)}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// hash64 is the first 8 bytes of s's SHA-256.
func hash64(s string) int64 {
	h := sha256.Sum256([]byte(s))
	var k int64
	for _, b := range h[:8] {
		k = k<<8 | int64(b)
	}
	return k
}

// Contradicts reports how newer contradicts older, if the rules can tell:
// a claim of the same key with the other polarity, or with another value of
// the same kind.
func Contradicts(older, newer string) (Clash, bool) {
	oc, nc := claims(older), claims(newer)
	whole := len(sentences(older)) == 1
	for _, n := range nc {
		for _, o := range oc {
			if o.key != n.key || o.value == n.value || n.also || !sameTime(o, n) || !clashes(o, n) || oneKind(o, n) {
				continue
			}
			c := Clash{Kind: ConflictValue, Slot: o.slot, Older: o.raw, Newer: n.raw, Whole: whole}
			if o.slot == "" {
				c.Kind, c.Older, c.Newer = ConflictNegation, polarityWord(o.value), polarityWord(n.value)
			}
			return c, true
		}
	}
	return Clash{}, false
}

// oneKind reports whether o and n are names of several words that end in
// the same acronym and differ before it: two things of one kind ("the
// Python SDK", "the Go SDK"; "the REST API", "the GraphQL API"), as a
// name before a noun says (see modifies), not a new value of one. A name
// that ends in a word ("Elm Street", "Oak Street"; "Hillside Nursery")
// is a place, which a new one replaces.
func oneKind(o, n claim) bool {
	if o.slot != "name" || n.slot != "name" || !strings.HasPrefix(o.key, "v|") {
		return false
	}
	a, b := strings.Fields(o.raw), strings.Fields(n.raw)
	if len(a) < 2 || len(b) < 2 || a[len(a)-1] != b[len(b)-1] {
		return false
	}
	head := a[len(a)-1]
	return len(head) >= 2 && strings.ToUpper(head) == head && strings.IndexFunc(head, unicode.IsLetter) >= 0
}

// clashes reports whether claims o and n, of one key and other values,
// clash: a list of values that holds the other's is added detail, unless
// either says "only"; on the keys many true memories share (a subject's
// value, a value replaced) only a change clashes, of the subject the older
// sentence opens with, to a value it does not name already.
func clashes(o, n claim) bool {
	switch {
	case strings.HasPrefix(n.key, "u|") || strings.HasPrefix(n.key, "j|"):
		return n.change && !within(n.value, o.values)
	case strings.HasPrefix(n.key, "o|"):
		return n.change && !o.change
	case strings.HasPrefix(n.key, "t|"):
		return n.change && listClash(o, n)
	case strings.HasPrefix(n.key, "x|"):
		led := slices.Equal(o.lead[:min(len(o.lead), len(n.lead))], n.lead) || o.owned && slices.Equal(n.lead, []string{"user"})
		return n.change && !o.change && led && !within(n.value, o.values)
	}
	return listClash(o, n)
}

// listClash reports whether values o and n clash as lists: a list that
// holds the other is added detail, unless either says "only".
func listClash(o, n claim) bool {
	if !strings.Contains(o.value, ",") && !strings.Contains(n.value, ",") {
		return true
	}
	a, b := strings.Split(o.value, ","), strings.Split(n.value, ",")
	nested := !slices.ContainsFunc(a, func(v string) bool { return !slices.Contains(b, v) }) ||
		!slices.ContainsFunc(b, func(v string) bool { return !slices.Contains(a, v) })
	return !nested || strings.Contains(n.key, " only ") || strings.Contains(o.key, " only ") || n.only || o.only
}

// within reports whether every value of list v (comma-separated) is one
// of values.
func within(v string, values []string) bool {
	for _, x := range strings.Split(v, ",") {
		if !slices.Contains(values, x) {
			return false
		}
	}
	return true
}

// OneStatement reports whether text is a single sentence: a memory that
// says one thing, which replacing loses nothing else.
func OneStatement(text string) bool { return len(sentences(text)) == 1 }

func polarityWord(v string) string {
	if v == "-" {
		return "denies"
	}
	return "says"
}

// token is a word or a value of a sentence.
type token struct {
	norm string // lower case, folded; a value's normalised form
	raw  string // as written
	slot string // the value's kind, or "" for a word
	// count is "one" for a word after "a" or "an", "many" for a plural
	// (set by contentTokens), or "".
	count string
	name  bool // written with a capital inside a sentence (set by contentTokens)
	past  bool // tells of the past (set by contentOf, see past)
}

// maxClaimWords is the most words a sentence may have and make claims.
const maxClaimWords = 200

// claims are the claims content makes, sentence by sentence.
func claims(content string) []claim {
	var out []claim
	for _, s := range sentences(content) {
		toks := codes(words(s))
		if len(toks) > maxClaimWords {
			// No statement a rule can read is this long (minified JSON,
			// a log line); reading one would take its square.
			continue
		}
		marks := markers(s)
		var cs []claim
		cs = append(cs, polarityClaim(toks)...)
		cs = append(cs, clausePolarity(toks, marks.andNow)...)
		cs = append(cs, valueClaims(toks)...)
		if c, ok := clause(toks); ok {
			cs = append(cs, valueClaims(c)...)
		}
		if c, ok := hasIts(toks); ok {
			cs = append(cs, valueClaims(c)...)
		}
		cs = append(cs, roleClaim(s, toks)...)
		cs = append(cs, attributeClaim(toks)...)
		cs = append(cs, preferenceClaim(toks)...)
		cs = append(cs, jobClaims(s, toks)...)
		cs = append(cs, rangeClaim(toks)...)
		cs = append(cs, handoverClaims(toks)...)
		cs = append(cs, versionClaims(toks)...)
		cs = append(cs, tailClaim(toks, marks.now)...)
		if marks.andNow {
			cs = append(cs, tailClaim(nowClause(toks), true)...) // "sold the car and now commutes by bike"
		}
		cs = append(cs, insteadClaims(toks)...)
		cs = append(cs, attributeClaims(toks)...)
		cs = append(cs, toolClaims(toks)...)
		tense, qual := tenseOf(toks), qualifiers(toks)
		for i := range cs {
			cs[i].also = marks.also && cs[i].slot != ""
			cs[i].tense, cs[i].qual = tense, qual
		}
		out = append(out, cs...)
	}
	return out
}

// marked is what a sentence's small words say of its claims, which words
// drops: now tells that a value replaced another ("is now owned by",
// "now uses X instead of Y"); also that it joins the others ("is also on
// Fridays", "too", "as well").
type marked struct{ now, also, andNow bool }

func markers(s string) marked {
	var m marked
	ws := splitWords(strings.ToLower(s), false)
	for i, w := range ws {
		switch {
		case w == "now" || w == "instead" || w == "anymore" || w == "no" && i+1 < len(ws) && ws[i+1] == "longer":
			m.now = true
			m.andNow = m.andNow || w == "now" && i > 0 && (ws[i-1] == "and" || ws[i-1] == "but")
		case w == "also" || w == "additionally" || w == "too" && i+1 == len(ws) || w == "well" && i > 0 && ws[i-1] == "as" && i+1 == len(ws):
			m.also = true
		}
	}
	return m
}

// polarityClaim is a sentence's statement with its polarity: the words
// without negations, opposites folded to one word, and whether it says or
// denies. A sentence of fewer than three words besides the negations
// states too little to be denied.
func polarityClaim(toks []token) []claim {
	neg := false
	var key []string
	skip := -1
	for i, t := range toks {
		switch {
		case t.norm == "last" && i+1 < len(toks) && periods[toks[i+1].norm]:
			skip = i + 1 // "quit smoking last year" denies "smokes"
		case i == skip || frequency[strings.ToLower(t.raw)] || manner[strings.ToLower(t.raw)] || t.norm == "can" && i > 0 || strings.EqualFold(t.raw, "anymore") || t.norm == "ever":
			// "always eats" and "never eats", "can't speak" and "speaks"
			// say one thing of one subject.
		case (t.norm == "gave" || t.norm == fold("gives")) && i+2 < len(toks) && toks[i+1].norm == "up" && strings.HasSuffix(toks[i+2].norm, "ing") && len(toks[i+2].norm) > 5:
			// "gave up smoking" denies "smokes".
			neg = !neg
			key, skip = append(key, gerund(toks[i+2].norm)), i+2
		case (t.norm == fold("stopped") || t.norm == "quit") && i+1 < len(toks) && strings.HasSuffix(toks[i+1].norm, "ing") && len(toks[i+1].norm) >= 5:
			// "stopped drinking coffee" denies "drinks coffee".
			neg = !neg
			key, skip = append(key, gerund(toks[i+1].norm)), i+1
		case t.slot != "":
			key = append(key, t.slot+":"+t.norm)
		case negation(t):
			neg = !neg
		case t.norm == "longer" && i > 0 && toks[i-1].norm == "no":
		case t.norm == "is" && !strings.EqualFold(t.raw, "been"):
			// "is broken" denies "works", "is unhelpful" "is helpful":
			// the copula says nothing the words after it do not.
		case t.norm == "at" && i+2 == len(toks) && toks[i+1].norm == "all":
			skip = i + 1 // "doesn't like it at all" denies "likes it"
		case (t.norm == "stand" || t.norm == "bear") && i > 1 && negation(toks[i-1]) && toks[i-2].norm == "can":
			// "can't stand jazz" is "dislikes jazz": the negation is the
			// verb's, not the claim's.
			neg = !neg
			w, denied, _ := normal(fold("dislikes"))
			if denied {
				neg = !neg
			}
			key = append(key, w)
		case auxiliaries[t.norm] && i+1 < len(toks) && negation(toks[i+1]):
			// "does not eat" says "eat" denied.
		case t.norm == have && perfect(toks[i+1:]):
			// "hasn't paid" says "paid" denied.
		default:
			w := t.norm
			if _, ok := opposites[w]; !ok {
				w = verb(t)
			}
			if strings.EqualFold(t.raw, "been") && i > 0 && (toks[i-1].norm == have || negation(toks[i-1])) {
				w = "was" // "hasn't been submitted" denies "was submitted"
			}
			if w == "was" && settles(toks[i+1:]) {
				continue // "was cancelled" leaves it cancelled, as "is confirmed" says it is: the copula says nothing
			}
			if makers[strings.ToLower(t.raw)] && i > 0 && copulas[toks[i-1].norm] && i+1 < len(toks) && opposedNext(toks[i+1:i+2]) {
				continue // "was made private" says "is private"
			}
			if lacking[w] {
				w, neg = have, !neg
			}
			if every, ok := nobody[w]; ok {
				w, neg = every, !neg // "nobody has access" denies "everyone has access"
			}
			if w == "out" && i+1 < len(toks) && toks[i+1].norm == "of" {
				w, skip = "in", i+1 // "out of stock" denies "in stock"
				neg = !neg
			}
			var denied, opposite bool
			if w, denied, opposite = normal(w); denied {
				neg = !neg
			}
			if opposite && i+1 < len(toks) && prepositions[toks[i+1].norm] {
				skip = i + 1 // "visible to" and "hidden from" say one thing
			}
			if h, ok := having[w]; ok {
				w = h // "includes a clause" says what "has a clause" says
			}
			key = append(key, w)
		}
	}
	if len(key) < 2 {
		return nil
	}
	v := "+"
	if neg {
		v = "-"
	}
	return []claim{{key: "p|" + strings.Join(key, " "), value: v}}
}

var attend = fold("attends")

// attributeClaim is the value of an attribute of which there is one at a
// time ("the user's favourite food is sushi", "the default editor is
// vim"): another value replaces it, though it is a word, not a number or a
// name.
func attributeClaim(toks []token) []claim {
	c := slices.IndexFunc(toks, func(t token) bool { return t.norm == "is" })
	if c < 1 || c+1 >= len(toks) || !slices.ContainsFunc(toks[:c], func(t token) bool { return single[t.norm] }) ||
		slices.ContainsFunc(toks, func(t token) bool { return negation(t) || t.slot != "" && t.slot != "name" }) {
		return nil
	}
	var subj []string
	for _, t := range toks[:c] {
		if !fresh[t.norm] {
			subj = append(subj, t.norm)
		}
	}
	if len(toks) != c+2 {
		return nil // "is Luigi's, a small Italian place" says more than which one
	}
	t := toks[c+1]
	return []claim{{key: "a|" + strings.Join(subj, " "), slot: "name", value: t.norm, raw: t.raw}}
}

// preferenceClaim is which of two things a subject prefers ("prefers
// email over phone calls"): the pair is the key, the one preferred its
// value, so that the pair the other way round clashes.
func preferenceClaim(toks []token) []claim {
	p := slices.IndexFunc(toks, func(t token) bool { return t.norm == fold("prefers") || t.norm == fold("prefer") })
	if p < 1 || slices.ContainsFunc(toks, func(t token) bool { return negation(t) }) {
		return nil
	}
	o := slices.IndexFunc(toks[p:], func(t token) bool { return t.norm == "over" || t.norm == "to" || t.norm == "than" })
	if o < 2 || p+o+1 >= len(toks) {
		return nil
	}
	subj, ok := subject(toks[:p])
	if !ok {
		return nil
	}
	a, b := strings.Join(norms(toks[p+1:p+o]), " "), strings.Join(norms(toks[p+o+1:]), " ")
	pair := []string{a, b}
	slices.Sort(pair)
	return []claim{{key: "f|" + subj + "|" + strings.Join(pair, "|"), slot: "name", value: a, raw: toks[p+1].raw}}
}

// jobClaims are the job a subject holds ("Omar is a junior developer"),
// which a change of job replaces ("Omar has been promoted to senior
// developer", "Grace was promoted and is now the chief marketing
// officer", "Omar became the tech lead"). A person may hold two jobs, or
// be a developer and a mentor, so only a change clashes.
func jobClaims(s string, toks []token) []claim {
	job := func(ws []token) bool {
		return len(ws) > 0 && len(ws) <= 5 && slices.ContainsFunc(ws, func(t token) bool { return jobs[t.norm] }) &&
			!slices.ContainsFunc(ws, func(t token) bool { return negation(t) || t.slot != "" && t.slot != "name" })
	}
	claimOf := func(subj []token, rest []token, change bool) []claim {
		sub, ok := subject(subj)
		if !ok || !job(rest) {
			return nil
		}
		return []claim{{key: "j|" + sub, slot: "name", value: strings.Join(norms(rest), " "), raw: strings.Join(raws(rest), " "), change: change}}
	}
	for i, t := range toks {
		if i > 0 && (t.norm == fold("promoted") || t.norm == fold("became") || t.norm == fold("become")) {
			rest := toks[i+1:]
			if len(rest) > 0 && (rest[0].norm == "to" || rest[0].norm == "as") {
				rest = rest[1:]
			}
			return claimOf(toks[:i], rest, true)
		}
	}
	if i := slices.IndexFunc(toks, func(t token) bool { return t.norm == "is" }); i > 0 && !slices.ContainsFunc(toks[:i], func(u token) bool { return u.norm == "and" }) {
		now := slices.Contains(strings.Fields(strings.ToLower(s)), "now") // "now" is no token: words drops it
		return claimOf(toks[:i], toks[i+1:], now)
	}
	return nil
}

// handoverClaims are what a subject is in charge of ("Priya is the owner
// of the billing service", "Sven is responsible for the vendor
// contracts"), which it gives up by handing it over ("Priya handed the
// billing service over to Tom", "Marco handed the release manager role to
// Aisha"). The charge's words, up to three side by side, are the keys of
// the first; the words handed over, the key of the second, which only a
// change claims. A thing handed to someone ("handed the laptop to IT") is
// not a charge given up: it takes "over", "off" or a role's noun.
func handoverClaims(toks []token) []claim {
	if slices.ContainsFunc(toks, func(t token) bool { return negation(t) }) {
		return nil
	}
	for v, t := range toks {
		if v > 0 && taking[t.norm] && v+2 < len(toks) && toks[v+1].norm == "over" && toks[v+2].norm != "as" {
			// "Tom took over the billing service from Priya": Priya
			// handed it over.
			f := slices.IndexFunc(toks[v+2:], func(u token) bool { return u.norm == "from" }) + v + 2
			if f < v+3 || f > v+6 || f+2 != len(toks) || toks[f+1].slot != "name" || pronouns[toks[f+1].norm] {
				return nil
			}
			if _, ok := subject(toks[:v]); !ok {
				return nil
			}
			obj := slices.DeleteFunc(norms(toks[v+2:f]), func(w string) bool { return possessives[w] || charges[w] })
			if len(obj) == 0 {
				return nil
			}
			return []claim{{key: "o|" + toks[f+1].norm + "|" + strings.Join(obj, " "), slot: "name", value: "→" + toks[0].norm, raw: toks[0].raw, change: true}}
		}
		if v == 0 || !handing[t.norm] {
			continue
		}
		subj, ok := subject(toks[:v])
		if !ok || pronouns[subj] {
			return nil
		}
		over := false
		var obj []string
		j := v + 1
		for ; j < len(toks) && toks[j].norm != "to"; j++ {
			switch w := toks[j].norm; {
			case w == "over" || w == "off":
				over = true
			case charges[w]:
				over = true // "the scrum master role"
			case possessives[w]:
			default:
				obj = append(obj, w)
			}
		}
		if !over || len(obj) == 0 || len(obj) > 4 || j+1 >= len(toks) {
			return nil
		}
		return []claim{{key: "o|" + subj + "|" + strings.Join(obj, " "), slot: "name", value: "→" + toks[j+1].norm, raw: toks[j+1].raw, change: true}}
	}
	c := slices.IndexFunc(toks, func(t token) bool { return t.norm == "is" })
	if c < 1 || c+1 >= len(toks) || !slices.ContainsFunc(toks[c+1:], func(t token) bool { return incharge[t.norm] }) {
		return nil
	}
	subj, ok := subject(toks[:c])
	if !ok || pronouns[subj] {
		return nil
	}
	var rest []string
	for _, u := range toks[c+1:] {
		if u.slot != "" && u.slot != "name" {
			return nil
		}
		if !linking[u.norm] && !possessives[u.norm] && u.norm != "and" {
			rest = append(rest, u.norm)
		}
	}
	if len(rest) > 8 {
		return nil
	}
	var out []claim
	for i := range rest {
		for n := 1; n <= 3 && i+n <= len(rest); n++ {
			out = append(out, claim{key: "o|" + subj + "|" + strings.Join(rest[i:i+n], " "), slot: "name", value: "=", raw: subj})
		}
	}
	return out
}

// handing are the verbs of handing a charge to another; charges the
// nouns of a charge, which say what is handed is one; incharge the words
// that say a subject holds one.
var handing, taking, charges = foldSet("handed", "hands", "hand", "passed", "passes"), foldSet("took", "takes", "take"),
	foldSet("role", "roles", "position", "duties", "duty", "responsibility", "responsibilities", "ownership", "reins", "job")

var incharge = func() map[string]bool {
	m := foldSet("owner", "contact", "master", "responsible", "charge", "point", "maintainer", "lead", "manager", "owns")
	maps.Copy(m, roles)
	maps.Copy(m, jobs)
	return m
}()

// pronouns are subjects that name no one in particular across memories.
var pronouns = map[string]bool{"he": true, "she": true, "they": true, "it": true, "this": true, "that": true, "we": true, "i": true, "you": true}

// jobs are the nouns of a job or a role at work.
var jobs = foldSet("officer", "developer", "engineer", "designer", "analyst", "intern", "freelancer", "consultant",
	"contractor", "architect", "scientist", "teacher", "nurse", "accountant", "lawyer", "manager", "lead", "head",
	"director", "vp", "ceo", "cto", "cfo", "coo", "assistant", "associate", "specialist", "coordinator", "administrator",
	"editor", "researcher", "professor", "lecturer", "executive", "supervisor", "chief", "principal", "president")

// raws are the tokens as written.
func raws(toks []token) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.raw
	}
	return out
}

// rangeClaim is a span of times or numbers a sentence states ("serves
// lunch from 12 to 2", "is open from 9am to 5pm"): another span replaces
// it.
func rangeClaim(toks []token) []claim {
	for i := 0; i+3 < len(toks); i++ {
		a, b := toks[i+1], toks[i+3]
		if toks[i].norm != "from" || toks[i+2].norm != "to" || a.slot == "" || a.slot != b.slot && !(a.slot == "number" || b.slot == "number") ||
			a.slot != "time" && a.slot != "number" && b.slot != "time" {
			continue
		}
		if slices.ContainsFunc(toks[:i], func(t token) bool { return negation(t) }) {
			return nil
		}
		key := append(append(norms(toks[:i]), "<range>"), norms(toks[i+4:])...)
		return []claim{{key: "g|" + strings.Join(key, " "), slot: "time", value: a.norm + "-" + b.norm, raw: a.raw + " to " + b.raw}}
	}
	return nil
}

// single are the words that make an attribute one of which there is one.
var single = foldSet("favourite", "favorite", "preferred", "default", "main", "primary", "usual")

// roleClaim is who holds a role of which there is one: "Keiko is the tech
// lead for search" and "the tech lead for search is Pavel" both name the
// tech lead for search, and another name replaces it. A role without its
// scope ("the team lead": of which team?) claims nothing.
func roleClaim(s string, toks []token) []claim {
	raw := slices.DeleteFunc(splitWords(s, false), func(w string) bool {
		lw := strings.ToLower(w)
		return dropped[lw] && lw != "the" && lw != "a" && lw != "an" // "Bruno is now the team lead"
	})
	role := func(ws []token) bool {
		scoped := strings.Contains(s, "'s ") || strings.Contains(s, "’s ")
		for _, t := range ws {
			if t.slot != "" && t.slot != "name" {
				return false
			}
			scoped = scoped || t.norm == "for" || t.norm == "of" || t.norm == "on"
		}
		return scoped && slices.ContainsFunc(ws, func(t token) bool { return roles[t.norm] })
	}
	switch {
	case len(toks) > 4 && isName(raw[0]) && taking[toks[1].norm] && toks[2].norm == "over" && toks[3].norm == "as" && role(toks[4:]):
		// "Pavel took over as tech lead for search" names the lead.
		return []claim{{key: "r|" + strings.Join(norms(toks[4:]), " "), slot: "name", value: toks[0].norm, raw: raw[0]}}
	case len(raw) > 3 && len(toks) > 3 && isName(raw[0]) && raw[1] == "is" && strings.EqualFold(raw[2], "the") && role(toks[2:]):
		return []claim{{key: "r|" + strings.Join(norms(toks[2:]), " "), slot: "name", value: toks[0].norm, raw: raw[0]}}
	case len(toks) > 3 && strings.EqualFold(raw[0], "the") && toks[len(toks)-1].slot == "name" && toks[len(toks)-2].norm == "is" && role(toks[:len(toks)-2]):
		n := toks[len(toks)-1]
		return []claim{{key: "r|" + strings.Join(norms(toks[:len(toks)-2]), " "), slot: "name", value: n.norm, raw: n.raw}}
	}
	return nil
}

// roles are the roles one person holds at a time.
var roles = foldSet("lead", "head", "manager", "owner", "contact", "director", "president", "chair", "captain", "maintainer",
	"landlord", "landlady", "ceo", "cto", "cfo", "coo", "boss", "supervisor")

// clause is the second clause of a sentence that tells of a change and
// then of the state it left ("the user left Deloitte and now works at
// KPMG"), with the first clause's subject: the state is claimed of it as a
// sentence of its own would be.
func clause(toks []token) ([]token, bool) {
	verb := slices.IndexFunc(toks, func(t token) bool {
		return t.slot == "" && (copulas[t.norm] || anchors[t.norm] || auxiliary[t.norm] || strings.HasSuffix(t.raw, "ed") || participles[strings.ToLower(t.raw)])
	})
	if verb < 1 {
		return nil, false
	}
	for i := verb + 1; i+1 < len(toks); i++ {
		if toks[i].norm != "and" && toks[i].norm != "but" {
			continue
		}
		if copulas[toks[i+1].norm] || anchors[toks[i+1].norm] {
			return append(slices.Clone(toks[:verb]), toks[i+1:]...), true
		}
		// "the building was sold and the user's landlord is now Ms
		// Reyes": a clause with a subject of its own.
		if v := slices.IndexFunc(toks[i+1:], func(t token) bool { return t.slot == "" && (copulas[t.norm] || anchors[t.norm]) }); v > 0 &&
			!slices.ContainsFunc(toks[i+1:i+1+v], func(t token) bool { return t.slot != "" && t.slot != "name" || t.norm == "and" }) {
			return slices.Clone(toks[i+1:]), true
		}
	}
	return nil, false
}

// perfect reports whether toks, after "have", go on with a participle
// ("has paid", "hasn't yet signed"): "have" is then the perfect's
// auxiliary, which says nothing the participle does not.
func perfect(toks []token) bool {
	for _, t := range toks {
		if negation(t) {
			continue
		}
		return t.slot == "" && (strings.HasSuffix(t.raw, "ed") || participles[strings.ToLower(t.raw)])
	}
	return false
}

var participles = map[string]bool{"paid": true, "made": true, "done": true, "gone": true, "seen": true, "taken": true,
	"given": true, "left": true, "sent": true, "told": true, "found": true, "built": true, "bought": true, "sold": true,
	"won": true, "lost": true, "met": true, "read": true, "written": true, "spent": true, "kept": true, "heard": true,
	"been": true, "begun": true, "chosen": true, "driven": true, "eaten": true, "fallen": true, "forgotten": true, "known": true,
	"shown": true, "spoken": true, "stolen": true, "thrown": true, "broken": true, "frozen": true, "hidden": true, "ridden": true}

// gerund is the verb of a word in -ing, folded: "drinking" is "drink",
// "running" "run".
func gerund(w string) string {
	if s := Stem(w); s != w && !strings.HasSuffix(s, "ing") {
		return fold(s) // "smoking" is "smoke", as "smokes" is
	}
	w = strings.TrimSuffix(w, "ing")
	if n := len(w); n > 2 && w[n-1] == w[n-2] && !strings.ContainsRune("lsfz", rune(w[n-1])) {
		w = w[:n-1]
	}
	if len(w) <= 2 {
		w += "e" // "using" is "use"
	}
	return fold(w)
}

// verb is a word of a polarity claim in the one form of its verb: the
// past ("paid", "shipped", "agreed") as the present, so that "did not
// pay" denies "paid".
func verb(t token) string {
	lw := strings.ToLower(t.raw)
	if base, ok := pasts[lw]; ok {
		return fold(base)
	}
	switch {
	case strings.HasSuffix(lw, "eed") && len(lw) > 4:
		return fold(strings.TrimSuffix(lw, "d"))
	case strings.HasSuffix(lw, "ed") && len(lw) > 5:
		b := strings.TrimSuffix(lw, "ed")
		if n := len(b); b[n-1] == b[n-2] && !strings.ContainsRune("lsfz", rune(b[n-1])) {
			return fold(b[:n-1])
		}
	}
	return t.norm
}

var pasts = map[string]string{"paid": "pay", "went": "go", "took": "take", "made": "make", "bought": "buy", "sold": "sell",
	"met": "meet", "left": "leave", "sent": "send", "told": "tell", "found": "find", "built": "build", "gave": "give",
	"wrote": "write", "ran": "run", "saw": "see", "ate": "eat", "drove": "drive", "spoke": "speak", "knew": "know",
	"got": "get", "came": "come", "kept": "keep", "spent": "spend", "brought": "bring", "thought": "think", "chose": "choose",
	"broke": "break", "forgot": "forget", "felt": "feel", "heard": "hear", "understood": "understand", "taught": "teach",
	"caught": "catch", "won": "win", "lost": "lose", "wore": "wear", "drank": "drink", "swam": "swim"}

// synonyms are the words of one meaning that a claim reads as one.
var synonyms = func() map[string]string {
	m := map[string]string{}
	for w, s := range map[string]string{"mandatory": "required", "compulsory": "required", "obligatory": "required",
		"banned": "forbidden", "permitted": "allowed", "love": "like", "loves": "likes", "enjoy": "like", "enjoys": "likes",
		"hate": "dislike", "hates": "dislikes", "detest": "dislike", "shut": "closed", "affordable": "cheap",
		"inexpensive": "cheap", "loud": "noisy", "roomy": "spacious", "neat": "tidy", "wealthy": "rich", "dim": "dark", "rapid": "fast",
		"nervous": "anxious", "pleased": "satisfied", "packed": "full", "freezing": "cold", "excellent": "good", "terrible": "bad",
		"awful": "bad", "great": "good", "poorly": "badly", "working": "works", "functional": "works", "operational": "works",
		"fixed": "works", "repaired": "works", "resolved": "closed", "warm": "hot", "cool": "cold", "chilly": "cold",
		"tall": "long", "bright": "light", "pricey": "expensive", "costly": "expensive", "crowded": "full", "quick": "fast",
		"hard": "difficult", "simple": "easy", "hired": "approved", "free": "available", "busy": "unavailable",
		"booked": "unavailable", "jobless": "unemployed", "experimental": "unstable", "running": "up", "completed": "complete", "done": "complete",
		"finished": "complete", "automated": "automatic", "virtual": "remote", "sick": "ill", "accept": "accepted", "reject": "rejected", "refused": "rejected"} {
		m[fold(w)] = fold(s)
	}
	return m
}()

// normal is a word of a polarity claim as one of a pair of opposites (or
// a synonym of one) and whether it denies it: "disabled" is "enabled"
// denied, "unresolved" "resolved" denied, which is "closed", which is
// "open" denied. opposite reports that the word was one of a pair.
func normal(w string) (string, bool, bool) {
	if syn, ok := synonyms[w]; ok {
		w = syn
	}
	if o, ok := opposites[w]; ok {
		return o.word, o.negative, true
	}
	if base, ok := denyingFolded[w]; ok {
		b, denied, _ := normal(fold(base))
		return b, !denied, true
	}
	if denyingBases[w] {
		return w, false, true // one of a pair, as its opposite is
	}
	if base, ok := unPrefixed(w); ok {
		b, denied, _ := normal(base)
		return b, !denied, true
	}
	return w, false, false
}

// settles reports whether toks, after "was", go on with a participle that
// is one of a pair of opposites ("cancelled", "approved", "made
// private"): a state the event left, not one of the past.
func settles(toks []token) bool {
	for i, t := range toks {
		if negation(t) {
			continue
		}
		lw := strings.ToLower(t.raw)
		if makers[lw] {
			return i+1 < len(toks) && opposedNext(toks[i+1:i+2])
		}
		_, _, opposite := normal(t.norm)
		return opposite && t.slot == "" && (strings.HasSuffix(lw, "ed") || participles[lw])
	}
	return false
}

// makers are the verbs that, passive, give a thing the state the next word
// names ("was made private", "was marked complete").
var makers = map[string]bool{"made": true, "marked": true, "declared": true, "set": true, "turned": true, "switched": true}

// opposedNext reports whether the first word of toks past any negation
// ("not", "no longer") is one of a pair of opposites, or a synonym of one.
func opposedNext(toks []token) bool {
	for _, t := range toks {
		if negation(t) || t.norm == "longer" || frequency[strings.ToLower(t.raw)] {
			continue
		}
		_, _, ok := normal(t.norm)
		return ok && t.slot == ""
	}
	return false
}

// unPrefixed reads a word in "un" or "non-" as the word it denies
// ("unhappy" is "happy" denied).
func unPrefixed(w string) (string, bool) {
	for _, p := range []string{"non-", "un"} {
		if base, ok := strings.CutPrefix(w, p); ok && len(base) >= 4 && !notUn[w] {
			return fold(base), true
		}
	}
	return "", false
}

// denying are words whose prefix (in-, im-, ir-, il-, dis-, ab-, a-)
// denies the word after it ("inexperienced" is "experienced" denied); a
// list, since most words in "in" ("install", "internal") deny nothing.
var denying = map[string]string{"inexperienced": "experienced", "inconsistent": "consistent", "ineffective": "effective",
	"inefficient": "efficient", "inappropriate": "appropriate", "inaccessible": "accessible", "incapable": "capable",
	"incompetent": "competent", "inconvenient": "convenient", "insufficient": "sufficient", "intolerant": "tolerant",
	"imperfect": "perfect", "irregular": "regular", "irrelevant": "relevant", "irresponsible": "responsible",
	"illogical": "logical", "abnormal": "normal", "atypical": "typical", "disloyal": "loyal", "disobedient": "obedient",
	"dishonest": "honest", "discontent": "content", "disrespectful": "respectful", "inactive": "active", "inadequate": "adequate",
	"inaccurate": "accurate", "incomplete": "complete", "incorrect": "correct", "indirect": "direct", "informal": "formal",
	"insecure": "secure", "insensitive": "sensitive", "invisible": "visible", "immature": "mature", "impatient": "patient",
	"impolite": "polite", "impossible": "possible", "impractical": "practical", "improper": "proper", "illegal": "legal",
	"irrational": "rational", "dissimilar": "similar", "disorganized": "organized", "disorganised": "organised",
	"unhelpful": "helpful"}

// denyingFolded is denying keyed by the folded word, as claims read it;
// denyingBases the words they deny, folded.
var denyingFolded, denyingBases = func() (map[string]string, map[string]bool) {
	m, bases := map[string]string{}, map[string]bool{}
	for w, b := range denying {
		m[fold(w)], bases[fold(b)] = b, true
	}
	return m, bases
}()

// notUn are words in "un" that deny nothing.
var notUn = foldSet("under", "understand", "understands", "understood", "undergo", "underway", "undertake", "union", "unions",
	"unique", "unit", "units", "united", "universe", "university", "universal", "unix", "unity", "unless", "until", "unto", "uniform")

// frequency are the adverbs of how often, which a denial ("never")
// replaces.
var frequency = map[string]bool{"always": true, "usually": true, "often": true, "sometimes": true, "regularly": true,
	"generally": true, "typically": true, "normally": true, "occasionally": true}

// periods are the words "last" takes to say when something happened.
var periods = foldSet("year", "month", "week", "night", "spring", "summer", "autumn", "winter")

// nobody are the words that deny what a sentence says of everyone (or
// everything).
var nobody = map[string]string{fold("nobody"): fold("everyone"), fold("noone"): fold("everyone"), fold("nothing"): fold("everything")}

// manner are adverbs of how something is done, which a denial of the
// doing leaves out ("speaks French fluently", "does not speak French").
var manner = map[string]bool{"fluently": true, "well": true, "properly": true, "correctly": true, "easily": true, "reliably": true, "mostly": true, "mainly": true, "primarily": true, "happily": true}

// prepositions are the words an opposite may take after it.
var prepositions = map[string]bool{"to": true, "from": true, "for": true, "by": true, "in": true, "on": true, "at": true, "with": true, "of": true}

// having are the verbs that say, like "have", what something holds.
var having = map[string]string{fold("includes"): have, fold("include"): have, fold("contains"): have, fold("contain"): have,
	fold("holds"): have, fold("hold"): have}

// lacking are the verbs that deny "have": "lacks a quiet room".
var lacking = foldSet("lacks", "lack", "lacked")

// valueClaims are the values a sentence states of its subject: a value
// after "to be" or a verb that states one (anchors), with at most two
// linking words between ("is on Tuesday", "works at Stripe", "listens on
// port 5433"). A value after any other verb ("met Bob", "bought 3 apples")
// is one of many that can all be true, and makes no claim. Values of one
// kind joined by "and" or "or" are one value, a list ("on Tuesdays and
// Thursdays"); values side by side are one time ("on Tuesday 14 March at
// 10:00"), each claimed with the others' kinds in its key but not their
// values, so that an event re-dated by its weekday and its date at once
// still clashes. Besides, a subject's value (u|) and every name (x|) make
// the keys a change told in other words meets (changeClaims).
func valueClaims(toks []token) []claim {
	var out []claim
	var values []string
	for _, t := range toks {
		if t.slot != "" {
			values = append(values, t.norm)
		}
	}
	lead := norms(toks)
	owned := len(toks) > 1 && owner(toks[0])
	if owned {
		lead = lead[1:]
	}
	for i, t := range toks {
		// A name, or a word a tool is said with ("uses npm"), is what a
		// switch from it replaces.
		if t.slot == "name" || t.slot == "code" || t.slot == "" && i > 0 && tooled[toks[i-1].norm] {
			out = append(out, claim{key: "x|" + t.slot + ":" + t.norm, slot: t.slot, value: "=", raw: t.raw, lead: lead, values: values, owned: owned})
		}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.slot == "" {
			continue
		}
		end := listEnd(toks, i)
		if modifies(toks, i, end) {
			// "Ruby owns the IT budget", "Kim runs the Monday standup":
			// the name says which budget, which standup, and another name
			// another one, not a new value of the same.
			i = end - 1
			continue
		}
		a := anchorOf(toks, i)
		if a < 0 {
			a = lasting(toks, i)
		}
		if a < 0 {
			a = habitual(toks, i)
		}
		if a < 0 {
			// "The kids go to Oakwood School", "Ann attends Leeds
			// University": where the subject is, which a move replaces,
			// though not a value a sentence of its own replaces (the user
			// goes to the gym on Mondays and on Fridays).
			if p := i - 1; t.slot == "name" && p > 0 && (toks[p].norm == attend || toks[p].norm == "to" && toks[p-1].norm == "go" && p > 1) {
				if toks[p].norm == "to" {
					p--
				}
				if subj, ok := subject(toks[:p]); ok && !slices.ContainsFunc(toks, func(u token) bool { return negation(u) }) {
					value, raw := listOf(toks[i:end])
					out = append(out, claim{key: "u|" + subj + "|place|" + t.slot, slot: t.slot, value: value, raw: raw, values: values})
				}
			}
			continue
		}
		from, to := timeRun(toks, i, end)
		var key []string
		for j := 0; j < len(toks); j++ {
			u := toks[j]
			switch {
			case j == 0 && owner(u):
				// "the user's book club" is "the book club" in the
				// user's memories.
			case j == i:
				key = append(key, "<"+t.slot+">")
				j = end - 1
			case negation(u):
				key = append(key, "not")
			case fresh[u.norm]:
				// "the new phone number is" names what "the phone
				// number is" names, now.
			case u.slot != "" && j >= from && j < to:
				key = append(key, "~"+u.slot)
			case u.slot != "":
				key = append(key, u.slot+":"+u.norm)
			default:
				key = append(key, u.norm)
			}
		}
		value, raw := listOf(toks[i:end])
		out = append(out, claim{key: "v|" + strings.Join(key, " "), slot: t.slot, value: value, raw: raw, values: values})
		if class := classOf(toks, a, i, t.slot); class != "" {
			if subj, ok := subject(toks[:a]); ok && !slices.ContainsFunc(toks, func(u token) bool { return negation(u) }) {
				out = append(out, claim{key: "u|" + subj + "|" + class + "|" + t.slot, slot: t.slot, value: value, raw: raw, values: values})
			}
		}
		i = end - 1
	}
	return append(out, changeClaims(toks, values)...)
}

// modifies reports whether the value toks[i:end] is a name, a day or a
// code that a noun follows: it says which thing the noun is ("the QA
// contact", "the Monday standup", "the EU region lead"), as an adjective
// would, rather than being the value stated. A number's noun is what it
// counts ("12 engineers"), and a word of time or manner after a value
// ("Google now", "Lisbon next week", "Monday morning") is no noun of it.
func modifies(toks []token, i, end int) bool {
	if s := toks[i].slot; s != "name" && s != "day" && s != "code" || end >= len(toks) {
		return false
	}
	n := toks[end]
	w := strings.ToLower(n.raw)
	return n.slot == "" && !StopWords[n.norm] && !StopWords[w] && !afterValue[w] && !strings.HasSuffix(w, "ly") &&
		strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) < 0
}

// afterValue are the words of time, place and manner that may follow a
// value without being a noun it modifies.
var afterValue = set("now", "today", "tonight", "tomorrow", "yesterday", "next", "last", "again", "instead",
	"anymore", "already", "soon", "morning", "mornings", "afternoon", "afternoons", "evening", "evenings", "night",
	"nights", "noon", "midnight", "time", "too", "as", "well", "either", "though", "permanently", "full-time",
	"part-time", "remotely", "onsite", "week", "month", "year", "weekend", "weekends")

// changeClaims are the changes a sentence tells of: a verb of change with
// "to" and a value ("Ann moved to Paris", "the retro has been moved to
// Thursdays", "the channel was renamed to Ops"), claimed on its subject's
// key of that kind of value (u|: where it is, when it is, what it is), and
// a change from one value to another ("the team switched from Jenkins to
// Buildkite"), claimed on the key of the value it replaces (x|).
func changeClaims(toks []token, values []string) []claim {
	var out []claim
	for v, t := range toks {
		// "quit Google", "resigned from Google", "left Google and joined
		// Meta": the name is no longer the subject's.
		if v > 0 && (t.norm == "quit" || t.norm == fold("resigned") || leaving[t.norm] && slices.ContainsFunc(toks[v+1:], func(u token) bool { return u.norm == "and" })) {
			x := v + 1
			if x < len(toks) && toks[x].norm == "from" {
				x++
			}
			if subj, ok := subject(toks[:v]); ok && x < len(toks) && toks[x].slot == "name" {
				out = append(out, claim{key: "x|name:" + toks[x].norm, slot: "name", value: "→", raw: "left " + toks[x].raw, change: true,
					lead: strings.Fields(subj)})
			}
		}
		// "the team replaced Jenkins with Buildkite": Jenkins is no longer
		// the team's.
		if v > 0 && t.norm == fold("replaced") && v+3 < len(toks) && (toks[v+1].slot == "name" || toks[v+1].slot == "code") &&
			toks[v+2].norm == "with" && toks[v+3].slot != "" {
			if subj, ok := subject(toks[:v]); ok {
				x, n := toks[v+1], toks[v+3]
				out = append(out, claim{key: "x|" + x.slot + ":" + x.norm, slot: x.slot, value: "→" + n.norm, raw: n.raw, change: true,
					lead: strings.Fields(subj)})
			}
		}
		verb, ok := changes[t.norm]
		if !ok || v == 0 {
			continue
		}
		subj, ok := subject(toks[:v])
		if !ok {
			continue
		}
		// "moved its plans from X to Y": up to three words before "from".
		j := v + 1
		for j < len(toks) && j <= v+4 && toks[j].slot == "" && toks[j].norm != "from" && toks[j].norm != "to" && !negation(toks[j]) {
			j++
		}
		if j+1 >= len(toks) {
			continue
		}
		if toks[j].norm == "from" && j+2 < len(toks) && (toks[j+1].slot != "" || toks[j+2].norm == "to") {
			x := toks[j+1]
			k := listEnd(toks, j+1)
			if k+1 < len(toks) && toks[k].norm == "to" && (toks[k+1].slot != "" || x.slot == "") && verb.from {
				value, raw := toks[k+1].norm, toks[k+1].raw
				if toks[k+1].slot != "" {
					value, raw = listOf(toks[k+1 : listEnd(toks, k+1)])
				}
				out = append(out, claim{key: "x|" + x.slot + ":" + x.norm, slot: x.slot, value: "→" + value, raw: raw, change: true,
					lead: strings.Fields(subj)})
			}
			continue
		}
		if toks[j].norm != "to" {
			continue
		}
		at, label := j+1, ""
		if j+2 < len(toks) && labels[toks[j+1].norm] && toks[j+2].slot != "" {
			at, label = j+2, toks[j+1].norm // "upgraded to version 3.0"
		}
		if toks[at].slot == "" {
			continue
		}
		if j > v+1 {
			// "changed the default browser to Firefox": what changed is
			// the subject's default browser.
			obj, ok := subject(slices.DeleteFunc(slices.Clone(toks[v+1:j]), func(u token) bool { return particles[u.norm] }))
			if !ok && !slices.ContainsFunc(toks[v+1:j], func(u token) bool { return !particles[u.norm] }) {
				obj, ok = "", true // "went up to $25": what went up is the subject
			}
			if !ok {
				continue
			}
			obj = strings.Join(slices.DeleteFunc(strings.Fields(obj), func(w string) bool { return possessives[w] }), " ")
			switch {
			case obj == "":
			case subj == "user":
				subj = obj // "the user changed the phone number": the user's, as "the phone number" is
			default:
				subj += " " + obj
			}
		}
		n := toks[at]
		class := verb.classes[n.slot]
		if label != "" {
			class = label // "moved to port 7100": the port, whatever else the verb moves
		}
		if class != "" && strings.HasPrefix(n.raw, "#") {
			class = "is" // a channel moved to another is what it is now, not where
		}
		if class == "" {
			continue
		}
		value, raw := listOf(toks[at:listEnd(toks, at)])
		out = append(out, claim{key: "u|" + subj + "|" + class + "|" + n.slot, slot: n.slot, value: value, raw: raw, change: true})
	}
	return out
}

// possessives are the words that say whose, as written and as fold makes
// them ("its" is "it").
// leaving are the verbs that give a name up when another follows ("left
// Google and joined Meta", "cancelled PureGym and joined another gym").
var leaving = foldSet("left", "cancelled", "canceled", "dropped", "ditched")

var possessives = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"its", "their", "his", "her", "our", "my", "your"} {
		m[w], m[fold(w)] = true, true
	}
	return m
}()

// tooled are the words a tool follows ("uses npm", "with Jenkins").
var tooled = foldSet("uses", "use", "using", "with", "via")

// change is a verb of change: the kinds of value it moves to (with the
// class of claim each replaces: a place, a time, what something is), and
// whether it tells of a change from one value to another.
type change struct {
	classes map[string]string
	from    bool
}

var changes = func() map[string]change {
	place := map[string]string{"name": "place", "code": "place"}
	when := map[string]string{"day": "when", "date": "when", "time": "when"}
	what := map[string]string{"name": "is", "code": "is", "number": "is", "amount": "is", "percent": "is"}
	both := func(ms ...map[string]string) map[string]string {
		out := map[string]string{}
		for _, m := range ms {
			maps.Copy(out, m)
		}
		return out
	}
	m := map[string]change{}
	add := func(c change, words ...string) {
		for _, w := range words {
			m[fold(w)] = c
		}
	}
	add(change{classes: both(place, when), from: true}, "moved", "move", "relocated", "relocate", "transferred", "shifted")
	add(change{classes: when}, "rescheduled", "postponed", "pushed", "delayed", "brought")
	add(change{classes: what}, "renamed", "raised", "lowered", "increased", "decreased", "reduced", "bumped", "upgraded", "downgraded")
	add(change{classes: both(what, when), from: true}, "changed", "switched", "migrated", "went", "converted", "transitioned")
	return m
}()

// classOf is the class of the value at i said by the anchor at a, which a
// change to a value of that kind replaces: "place" (lives, is based or is
// in a name), "when" (is, starts or is held on a day, date or time), "is"
// (is a name or a number outright: "the channel is Ops", "the limit is
// 100"), or "" for any other.
func classOf(toks []token, a, i int, slot string) string {
	w := toks[a].norm
	if i > a+1 && labels[toks[i-1].norm] && slot != "day" && slot != "date" && slot != "time" {
		return toks[i-1].norm // "is on version 2.3", "listens on port 8080": what an upgrade to another replaces
	}
	switch slot {
	case "name", "code":
		if places[w] || platforms[w] && (toks[a+1].norm == "on" || toks[a+1].norm == "in") || copulas[w] && a+2 == i && (toks[a+1].norm == "in" || toks[a+1].norm == "on" || toks[a+1].norm == "at") {
			return "place"
		}
	case "day", "date", "time":
		if copulas[w] || whens[w] {
			return "when"
		}
		return ""
	}
	if copulas[w] && a+1 == i || (w == fold("called") || w == fold("named")) && slot == "name" {
		return "is"
	}
	return ""
}

// places are the anchors that say where something is; whens those that say
// when it is (an end, a departure or a close is not what a reschedule
// moves).
var places, whens = foldSet("live", "lives", "lived", "based", "located", "headquartered"),
	foldSet("start", "starts", "begin", "begins", "scheduled", "set", "held", "planned", "due", "meets", "meet")

// platforms are the anchors that say on what or where something runs,
// which a move replaces ("runs on GitHub Actions", "is hosted on AWS").
var platforms = foldSet("run", "runs", "hosted", "deployed", "stored")

// subject is the words before a verb, without its auxiliaries ("has been",
// "was", "will"), as one string; a subject of a value or a negation is
// none.
func subject(toks []token) (string, bool) {
	var out []string
	for i, t := range toks {
		switch {
		case negation(t) || t.slot != "" && t.slot != "name":
			return "", false
		case auxiliary[t.norm] || i == 0 && owner(t) && len(toks) > 1:
		default:
			out = append(out, t.norm)
		}
	}
	return strings.Join(out, " "), len(out) > 0
}

// owner reports whether t is "the user's", which the memories of a user
// may say or leave out.
func owner(t token) bool {
	return t.norm == "user" && (strings.HasSuffix(t.raw, "'s") || strings.HasSuffix(t.raw, "’s"))
}

var auxiliary = foldSet("is", "was", "have", "been", "will", "do", "has", "had", "get", "got", "recently", "finally", "officially", "since")

// norms are the tokens' words and values, normalised.
func norms(toks []token) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.norm
	}
	return out
}

// listEnd is the index after the list of values of toks[i]'s kind that
// starts at i: values joined by "and", "or" or nothing ("Tuesdays,
// Thursdays and Fridays").
func listEnd(toks []token, i int) int {
	end := i + 1
	if toks[i].slot == "" {
		return end
	}
	for j := i + 1; j < len(toks); j++ {
		if toks[j].slot == toks[i].slot {
			end = j + 1
		} else if toks[j].norm != "and" && toks[j].norm != "or" {
			break
		}
	}
	return end
}

// listOf is a list of values as one: their normal forms sorted and joined
// by commas, and as written.
func listOf(toks []token) (string, string) {
	var vs, raws []string
	for _, t := range toks {
		if t.slot != "" {
			vs, raws = append(vs, t.norm), append(raws, t.raw)
		}
	}
	raw := raws[0]
	if len(raws) > 1 {
		raw = strings.Join(raws[:len(raws)-1], ", ") + " and " + raws[len(raws)-1]
	}
	slices.Sort(vs)
	return strings.Join(slices.Compact(vs), ","), raw
}

// timeRun is the run of values around toks[i:end] that say one time
// together: side by side, or joined by "at" ("Tuesday 14 March at 10:00").
func timeRun(toks []token, i, end int) (int, int) {
	when := func(t token) bool { return t.slot == "day" || t.slot == "date" || t.slot == "time" || t.slot == "year" }
	if !when(toks[i]) {
		return i, end
	}
	from, to := i, end
	for from > 0 && (when(toks[from-1]) || toks[from-1].norm == "at" && from > 1 && when(toks[from-2])) {
		from--
	}
	for to < len(toks) && (when(toks[to]) || toks[to].norm == "at" && to+1 < len(toks) && when(toks[to+1])) {
		to++
	}
	return from, to
}

// codes marks identifiers as values of their own kind: a word with digits
// and letters, or digits joined by hyphens, as cloud regions, zones,
// machine types, phone numbers and passwords are written ("us-east-1",
// "europe-west4", "555-0142", "sunflower22").
func codes(toks []token) []token {
	for i, t := range toks {
		if t.slot != "" {
			continue
		}
		lw := strings.ToLower(t.raw)
		switch {
		case (strings.Contains(t.raw, "-") || strings.IndexFunc(t.raw, unicode.IsLetter) >= 0) && strings.IndexFunc(t.raw, unicode.IsDigit) >= 0 &&
			!strings.HasPrefix(t.raw, "-") && strings.IndexFunc(t.raw, func(r rune) bool { return r == '$' || r == '€' || r == '£' || r == '¥' }) < 0:
			toks[i] = token{norm: lw, raw: t.raw, slot: "code"}
		case lw == "noon" || lw == "midday":
			toks[i] = token{norm: "12:00", raw: t.raw, slot: "time"}
		case lw == "midnight":
			toks[i] = token{norm: "0:00", raw: t.raw, slot: "time"}
		case often[lw] != "" && (i+1 == len(toks) || toks[i+1].slot != "" || linking[toks[i+1].norm] || toks[i+1].norm == "and"):
			// "goes out weekly", not "the weekly sync"
			toks[i] = token{norm: often[lw], raw: t.raw, slot: "frequency"}
		case lw == "every" && i+1 < len(toks) && often[toks[i+1].norm+"ly"] != "" && toks[i+1].slot == "":
			toks[i] = token{norm: often[toks[i+1].norm+"ly"], raw: t.raw + " " + toks[i+1].raw, slot: "frequency"}
			toks[i+1] = token{} // taken: dropped below
		case lw == "weekends" || lw == "weekend":
			toks[i] = token{norm: "sat,sun", raw: t.raw, slot: "day"}
		case lw == "weekdays":
			toks[i] = token{norm: "fri,mon,thu,tue,wed", raw: t.raw, slot: "day"}
		case dayparts[lw] && i > 0 && (toks[i-1].norm == "in" || toks[i-1].norm == "at" || toks[i-1].norm == "this" || toks[i-1].norm == "every"):
			toks[i] = token{norm: lw, raw: t.raw, slot: "daypart"} // "in the morning", "at night"
		case seasons[lw] && i > 0 && (toks[i-1].norm == "in" || toks[i-1].norm == "this" || toks[i-1].norm == "next"):
			toks[i] = token{norm: strings.Replace(lw, "fall", "autumn", 1), raw: t.raw, slot: "season"}
		default:
			if n, slot, ok := thousands(lw); ok {
				toks[i] = token{norm: n, raw: t.raw, slot: slot}
			}
		}
	}
	return slices.DeleteFunc(toks, func(t token) bool { return t.raw == "" })
}

// often are the words of how often something is done, each with its one
// form ("every week" is "weekly").
var often = map[string]string{"hourly": "hourly", "daily": "daily", "nightly": "daily", "weekly": "weekly", "biweekly": "biweekly",
	"fortnightly": "biweekly", "monthly": "monthly", "quarterly": "quarterly", "yearly": "yearly", "annually": "yearly",
	"dayly": "daily"} // "every day"

var dayparts = map[string]bool{"morning": true, "mornings": true, "afternoon": true, "afternoons": true, "evening": true,
	"evenings": true, "night": true, "nights": true}

var seasons = map[string]bool{"spring": true, "summer": true, "autumn": true, "fall": true, "winter": true}

// thousands reads "50k", "$1.2m" and "€3bn" as the number or amount they
// are.
func thousands(w string) (string, string, bool) {
	slot := "number"
	if r := []rune(w); len(r) > 1 && strings.ContainsRune("$€£¥", r[0]) {
		w, slot = string(r[1:]), "amount"
	}
	for suf, f := range map[string]float64{"k": 1e3, "m": 1e6, "bn": 1e9} {
		if body, ok := strings.CutSuffix(w, suf); ok {
			if v, err := strconv.ParseFloat(body, 64); err == nil && body != "" && unicode.IsDigit(rune(body[0])) {
				return strconv.FormatFloat(v*f, 'f', -1, 64), slot, true
			}
		}
	}
	return "", "", false
}

// anchorOf is the index of the word that anchors the value at i: "to be"
// or an anchor verb, with at most two linking words and a label ("port",
// "version") between, after a subject; -1 when none does.
func anchorOf(toks []token, i int) int {
	labelled := false
	for j, skipped := i-1, 0; j > 0; j-- {
		w := toks[j].norm
		if copulas[w] || anchors[w] || (w == have || habits[w]) && (toks[i].slot == "number" || toks[i].slot == "amount") ||
			(w == fold("meets") || timed[w]) && (toks[i].slot == "day" || toks[i].slot == "time" || toks[i].slot == "date" || w == fold("meets") && toks[i].slot == "code") || (w == "out" || w == "up" || w == "down") && toks[j-1].norm == "go" {
			return j
		}
		if toks[j].slot != "" {
			continue // "is on Saturday at 5pm": the day is part of the frame
		}
		if j == i-1 && labels[w] && !labelled {
			labelled = true
			continue
		}
		if !linking[w] || skipped == 2 {
			return -1
		}
		skipped++
	}
	return -1
}

// lasting is, for a number of a span of time that a perfect says how long
// has lasted ("has worked at the firm for six years", "have been married
// for 12 years"), the index of its "have", which anchors it as "to be"
// would; else -1. One thing has lasted one span until now.
func lasting(toks []token, i int) int {
	if toks[i].slot != "number" || i < 3 || toks[i-1].norm != "for" || i+1 >= len(toks) || !spans[toks[i+1].norm] {
		return -1
	}
	for h := i - 2; h > 0; h-- {
		if toks[h].norm == have && perfect(toks[h+1:i]) {
			return h
		}
	}
	return -1
}

// habitual is, for a measure (a number, an amount, a percent, a time)
// that a verb in the present states of its subject ("the battery
// lasts about 9 hours", "the room seats 12 people", "the daycare closes at
// 6pm"), the index of that verb, which anchors it: what a thing does as a
// rule it does with one measure at a time, and the same sentence with
// another replaces it. A past ("bought 3 shirts", "ran 5 km on Monday")
// tells of one event of many; a name or a day after a verb of many
// ("speaks Spanish", "swims on Tuesdays") may be one of several. -1 if
// none.
func habitual(toks []token, i int) int {
	switch toks[i].slot {
	case "number", "amount", "percent", "time":
	default:
		return -1 // a code names a thing, as a name does: "fails on arm v2" and "on arm v3" may both hold
	}
	v := verbAt(toks)
	if v < 1 || v >= i || capable[toks[v].norm] {
		return -1
	}
	lw := strings.ToLower(toks[v].raw)
	present := len(lw) > 3 && strings.HasSuffix(lw, "s") && !strings.HasSuffix(lw, "ss") && !strings.HasSuffix(lw, "us") && !strings.HasSuffix(lw, "is")
	if !present || slices.ContainsFunc(toks[:i], func(t token) bool {
		w := strings.ToLower(t.raw)
		_, past := pasts[w]
		return past || w == "was" || w == "were" || w == "did" || t.slot == "" && len(w) > 4 && strings.HasSuffix(w, "ed")
	}) {
		return -1
	}
	return v
}

// capable are the verbs of what a thing can do or take, of which it may
// do many: "supports 5 GHz" and "supports 2.4 GHz" both hold.
var capable = foldSet("supports", "accepts", "offers", "handles", "includes", "contains", "provides", "covers")

// spans are the units of a span of time.
var spans = foldSet("years", "months", "weeks", "days", "hours", "minutes", "decades")

// particles are the adverbs a verb of change takes ("went up to", "came
// down to"), which name nothing changed.
var particles = map[string]bool{"up": true, "down": true, "back": true}

// timed are the verbs that anchor only a day, a date or a time: a
// newsletter sent on Mondays is not sent on Thursdays, but a report sent
// to Ann may be sent to Bob too.
var timed = foldSet("sent", "delivered", "collected", "sends", "delivers")

// fresh are the words that say a value is the newest of its kind.
var fresh = map[string]bool{"new": true, "current": true, "latest": true, "updated": true}

// habits are the verbs that state how much of something their subject
// has or does, as a habit ("pays $1,200 in rent", "sleeps 7 hours"): an
// anchor of a number or an amount only, in the present.
var habits = foldSet("makes", "spends", "pays", "owes", "saves", "sleeps", "drinks", "eats", "walks", "reads", "owns",
	"charges", "lasts", "seats", "totals", "equals", "stands", "measures", "holds", "employs", "needs", "turns")

// labels are the nouns that name the kind of the value they precede
// ("port 5433", "version 3.2").
var labels = foldSet("port", "version", "room", "gate", "platform", "terminal", "floor", "region", "zone", "size", "extension", "level", "tier", "plan")

// sentences splits content at sentence ends: . ! ? ; and line breaks, but
// not a point inside a number ("3.5") or after a one-letter abbreviation
// ("e.g.").
func sentences(content string) []string {
	var out []string
	rs := []rune(content)
	start := 0
	for i, r := range rs {
		end := false
		switch r {
		case '!', '?', ';', '\n':
			end = true
		case '.':
			// A point ends a sentence when a space or the end follows it:
			// not inside "3.5", "Node.js" or "example.com".
			end = (i+1 == len(rs) || unicode.IsSpace(rs[i+1])) && !abbreviation(rs[start:i])
		}
		if end {
			if s := strings.TrimSpace(string(rs[start:i])); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(string(rs[start:])); s != "" {
		out = append(out, s)
	}
	return out
}

// abbreviation reports whether the text before a point ends in a title or
// an abbreviation that does not end a sentence ("Mr. Patel", "e.g. this").
func abbreviation(before []rune) bool {
	f := strings.Fields(string(before))
	return len(f) > 0 && abbreviations[strings.ToLower(f[len(f)-1])]
}

var abbreviations = map[string]bool{"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true,
	"jr": true, "sr": true, "vs": true, "e.g": true, "i.e": true, "etc": true, "approx": true, "no": true}

// words reads a sentence into tokens: words folded (case, articles, the
// present of "to be", plurals, contractions), values recognised and
// normalised so that "3pm" and "15:00", "$5,000" and "5000 dollars", "five"
// and "5" compare equal.
func words(s string) []token { return readWords(splitWords(s, false)) }

// readWords reads a sentence's words and values (splitWords) into tokens.
func readWords(raw []string) []token {
	var out []token
	for i := 0; i < len(raw); i++ {
		w := raw[i]
		lw := strings.ToLower(w)
		next := func(k int) string {
			if i+k < len(raw) {
				return strings.ToLower(raw[i+k])
			}
			return ""
		}
		// Contractions: "doesn't" is "does not", "can't" "can not".
		if stem, ok := strings.CutSuffix(strings.ReplaceAll(lw, "’", "'"), "n't"); ok {
			if v := negated[stem]; v != "" {
				stem = v
			}
			out = append(out, token{norm: fold(stem), raw: w}, token{norm: "not", raw: "not"})
			continue
		}
		if lw == "cannot" {
			out = append(out, token{norm: "can", raw: w}, token{norm: "not", raw: "not"})
			continue
		}
		if isHandle(w) || isName(w) && roomCode(w) {
			// "#ops-alerts", "ann@x.io", room "4B": values, not names.
			out = append(out, token{norm: lw, raw: w, slot: "code"})
			continue
		}
		if t, n, ok := value(raw, i, lw, next); ok {
			out = append(out, t)
			i += n - 1
			continue
		}
		if isName(w) && i > 0 {
			// A run of capitalised words inside a sentence is one name,
			// and a number after it is part of it ("PostgreSQL 16",
			// "Year 4").
			j := i + 1
			for j < len(raw) && isName(raw[j]) {
				j++
			}
			if j < len(raw) {
				if _, ok := number(raw[j]); ok && !isYear(raw[j]) {
					j++
				}
			}
			name := strings.Join(raw[i:j], " ")
			out = append(out, token{norm: strings.ToLower(name), raw: name, slot: "name"})
			i = j - 1
			continue
		}
		lw = strings.TrimSuffix(strings.TrimSuffix(lw, "'s"), "’s")
		lw = strings.Trim(lw, "'’")
		if lw == "" || dropped[lw] {
			continue
		}
		t := token{norm: fold(lw), raw: w}
		if i > 0 && (strings.EqualFold(raw[i-1], "a") || strings.EqualFold(raw[i-1], "an")) {
			t.count = "one"
		}
		out = append(out, t)
	}
	return out
}

// splitWords splits a sentence into words and values: letters, digits and
// the marks inside a value ("5,000", "3.5", "15:00", "2026-03-03", "$20",
// "10%", "auto-renew") stay in one piece; other punctuation separates.
// With ids, so do an identifier's joints ("user_id", "app.logs").
func splitWords(s string, ids bool) []string {
	rs := []rune(s)
	var out []string
	start := -1
	inner := func(i int) bool {
		if i+1 >= len(rs) {
			return false
		}
		a, b := ' ', rs[i+1]
		if i > 0 {
			a = rs[i-1]
		}
		if ids && (rs[i] == '_' || rs[i] == '.') && (unicode.IsLetter(a) || unicode.IsDigit(a)) && (unicode.IsLetter(b) || unicode.IsDigit(b)) {
			return true
		}
		switch rs[i] {
		case ',', '.', ':', '/':
			return unicode.IsDigit(a) && unicode.IsDigit(b)
		case '-':
			if unicode.IsDigit(b) && !unicode.IsLetter(a) && !unicode.IsDigit(a) {
				return true // a minus: "-4"
			}
			return (unicode.IsLetter(a) || unicode.IsDigit(a)) && (unicode.IsLetter(b) || unicode.IsDigit(b))
		case '\'', '’':
			return (unicode.IsLetter(a) || unicode.IsDigit(a)) && (unicode.IsLetter(b) || unicode.IsDigit(b))
		}
		return false
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if start < 0 {
			if n := handle(rs[i:]); n > 0 {
				out = append(out, string(rs[i:i+n]))
				i += n - 1
				continue
			}
		}
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || inner(i) ||
			strings.ContainsRune("$€£¥", r) && i+1 < len(rs) && unicode.IsDigit(rs[i+1]) ||
			r == '%' && i > 0 && unicode.IsDigit(rs[i-1])
		if word {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, string(rs[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, string(rs[start:]))
	}
	return out
}

// maxHandle is the longest channel name or email address handle reads
// (an address is at most 254 characters).
const maxHandle = 256

// handle is the length of the channel name ("#ops-alerts") or email
// address ("ann@x.io") rs starts with, or 0: each is one value, which the
// marks inside it would otherwise split.
func handle(rs []rune) int {
	end := 0
	for end < len(rs) && !unicode.IsSpace(rs[end]) {
		if end++; end > maxHandle {
			// No channel or address is this long; reading on from every
			// word of a text without spaces would take its square.
			return 0
		}
	}
	for end > 0 && strings.ContainsRune(".,;:!?)]}\"'’", rs[end-1]) {
		end-- // the sentence's marks after it
	}
	w := string(rs[:end])
	inner := func(s string) bool {
		return s != "" && strings.IndexFunc(s, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-_.+", r)
		}) < 0 && strings.IndexFunc(s, unicode.IsLetter) >= 0
	}
	if body, ok := strings.CutPrefix(w, "#"); ok && inner(body) && unicode.IsLetter([]rune(body)[0]) {
		return end
	}
	if user, domain, ok := strings.Cut(w, "@"); ok && inner(user) && inner(domain) && strings.Contains(domain, ".") &&
		!strings.HasPrefix(domain, ".") && !strings.HasSuffix(domain, ".") {
		return end
	}
	return 0
}

// isHandle reports whether w is a channel name or an email address.
func isHandle(w string) bool { rs := []rune(w); return len(rs) > 0 && handle(rs) == len(rs) }

// roomCode reports whether w is a short code of digits and one capital
// letter, as rooms, gates and seats are named ("4B", "B12").
func roomCode(w string) bool {
	letters, digits := 0, 0
	for _, r := range w {
		switch {
		case unicode.IsUpper(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		default:
			return false
		}
	}
	return letters == 1 && digits >= 1 && digits <= 3
}

// isName reports whether w has a capital letter ("Stripe", "iPhone",
// "1Password") and is not a word every sentence may capitalise ("I").
func isName(w string) bool {
	if w == "I" || strings.HasPrefix(w, "I'") || strings.HasPrefix(w, "I’") {
		return false
	}
	return strings.IndexFunc(w, unicode.IsUpper) >= 0 && strings.IndexFunc(w, unicode.IsLetter) >= 0
}

// value reads the value starting at raw[i], if one does, and how many
// words it took.
func value(raw []string, i int, lw string, next func(int) string) (token, int, bool) {
	w := raw[i]
	if d, ok := weekdays[strings.TrimSuffix(lw, "s")]; ok {
		return token{norm: d, raw: w, slot: "day"}, 1, true
	}
	if m, ok := months[lw]; ok && isName(w) {
		// "March 3", "March 3rd, 2026", "March 2026", "March".
		if d, ok := dayOfMonth(next(1)); ok {
			n, norm := 2, m+"-"+d
			if y := next(2); isYear(y) {
				n, norm = 3, y+"-"+norm
			}
			return token{norm: norm, raw: strings.Join(raw[i:i+n], " "), slot: "date"}, n, true
		}
		if y := next(1); isYear(y) {
			return token{norm: y + "-" + m, raw: w + " " + raw[i+1], slot: "date"}, 2, true
		}
		if i > 0 {
			return token{norm: m, raw: w, slot: "date"}, 1, true
		}
		return token{}, 0, false
	}
	if d, ok := dayOfMonth(lw); ok {
		if m, ok := months[next(1)]; ok {
			n, norm := 2, m+"-"+d
			if y := next(2); isYear(y) {
				n, norm = 3, y+"-"+norm
			}
			return token{norm: norm, raw: strings.Join(raw[i:i+n], " "), slot: "date"}, n, true
		}
	}
	if isDate(lw) {
		// "2026/03/01" is "2026-03-01".
		return token{norm: strings.ReplaceAll(lw, "/", "-"), raw: w, slot: "date"}, 1, true
	}
	if t, ok := clock(lw, next(1)); ok {
		n := 1
		if meridiem(next(1)) != "" && !strings.ContainsAny(lw, "ap") {
			n = 2
		}
		return token{norm: t, raw: strings.Join(raw[i:i+n], " "), slot: "time"}, n, true
	}
	if isYear(lw) {
		return token{norm: lw, raw: w, slot: "year"}, 1, true
	}
	if strings.HasSuffix(lw, "%") {
		if n, ok := number(strings.TrimSuffix(lw, "%")); ok {
			return token{norm: n, raw: w, slot: "percent"}, 1, true
		}
	}
	if c := strings.IndexAny(lw, "$€£¥"); c == 0 {
		sign := string([]rune(lw)[0])
		if n, ok := number(lw[len(sign):]); ok {
			return token{norm: sign + n, raw: w, slot: "amount"}, 1, true
		}
	}
	if o, ok := ordinal(lw); ok {
		return token{norm: o, raw: w, slot: "number"}, 1, true
	}
	if c, ok := colours[lw]; ok {
		n := 1
		if next(1) != "" {
			if d, ok := colours[next(1)]; ok && shades[lw] {
				n, c = 2, c+" "+d // "navy blue", "bright red"
			}
		}
		if !shades[lw] || n == 2 {
			return token{norm: c, raw: strings.Join(raw[i:i+n], " "), slot: "colour"}, n, true
		}
	}
	if n, ok := number(lw); ok {
		if next(1) == "years" && next(2) == "old" || next(1) == "year" && next(2) == "old" {
			return token{norm: n, raw: strings.Join(raw[i:i+3], " "), slot: "number"}, 3, true // "33 years old" is "33"
		}
		if sign := currencies[next(1)]; sign != "" {
			// "500 EUR" is "€500", not "500 USD".
			return token{norm: sign + n, raw: w + " " + raw[i+1], slot: "amount"}, 2, true
		}
		if next(1) == "percent" {
			return token{norm: n, raw: w + " " + raw[i+1], slot: "percent"}, 2, true
		}
		return token{norm: n, raw: w, slot: "number"}, 1, true
	}
	return token{}, 0, false
}

// number reads a count or measure: digits with thousands separators or a
// decimal point, or a number word; "5,000" and "5000" are one number.
func number(s string) (string, bool) {
	if n, ok := numberWords[s]; ok {
		return n, true
	}
	s = strings.ReplaceAll(s, ",", "")
	if s == "" {
		return "", false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || strings.ContainsAny(s, "eEinfINFxX+") || strings.LastIndex(s, "-") > 0 {
		return "", false
	}
	return strconv.FormatFloat(f, 'f', -1, 64), true
}

// ordinal reads "5th", "21st" and "fifth" as "5th".
func ordinal(s string) (string, bool) {
	if o, ok := ordinalWords[s]; ok {
		return o, true
	}
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		if d, ok := strings.CutSuffix(s, suf); ok {
			if n, err := strconv.Atoi(d); err == nil && n >= 0 && len(d) <= 4 {
				return strconv.Itoa(n) + "th", true
			}
		}
	}
	return "", false
}

// dayOfMonth reads "3", "03", "3rd", "21st" as a day of a month.
func dayOfMonth(s string) (string, bool) {
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		s = strings.TrimSuffix(s, suf)
	}
	d, err := strconv.Atoi(s)
	if err != nil || d < 1 || d > 31 || len(s) > 2 {
		return "", false
	}
	return strconv.Itoa(d), true
}

func isYear(s string) bool {
	y, err := strconv.Atoi(s)
	return err == nil && len(s) == 4 && y >= 1900 && y <= 2199
}

// isDate reads 2026-03-03 and 3/3/2026.
func isDate(s string) bool {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '/' })
	if len(parts) != 3 || strings.Count(s, "-")+strings.Count(s, "/") != 2 {
		return false
	}
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err != nil {
			return false
		}
	}
	return true
}

// clock reads a time of day: "15:00", "9:30", "3pm", "9:30am", or "3"
// followed by "pm". The result is 24-hour "15:00".
func clock(s, next string) (string, bool) {
	m := meridiem(s)
	body := s
	if m != "" {
		body = strings.TrimSuffix(strings.TrimSuffix(s, m), ".")
	} else if m = meridiem(next); m == "" && !strings.Contains(s, ":") {
		return "", false
	}
	h, min := body, "00"
	if before, after, ok := strings.Cut(body, ":"); ok {
		h, min = before, after
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(min)
	if err1 != nil || err2 != nil || len(min) != 2 || hh > 23 || mm > 59 || m != "" && (hh < 1 || hh > 12) {
		return "", false
	}
	switch {
	case m == "pm" && hh < 12:
		hh += 12
	case m == "am" && hh == 12:
		hh = 0
	}
	return strconv.Itoa(hh) + ":" + min, true
}

// meridiem returns "am" or "pm" if s ends in one ("3pm", "a.m" read as
// "a" "m" is not handled).
func meridiem(s string) string {
	for _, m := range []string{"am", "pm"} {
		if strings.HasSuffix(s, m) && (len(s) == 2 || unicode.IsDigit(rune(s[len(s)-3]))) {
			return m
		}
	}
	return ""
}

// fold makes the forms of a word one: the present of "to be" is "is" (the
// past stays "was": "Dana was the lead" is not "Dana is the lead"), a
// plural or third-person s goes, and some irregular forms meet theirs, as
// do the British and American spellings of a word.
func fold(w string) string {
	if f, ok := folds[w]; ok {
		w = f
	}
	w = american(w)
	if g, ok := strings.CutSuffix(w, "s"); ok && strings.HasSuffix(g, "ing") || strings.HasSuffix(w, "ing") {
		// A word in -ing is kept whole: "working" is not the anchor
		// "work", nor the "accounting" team the "account" team. Where it
		// is a verb's form, after "is", Restates folds it (contentTokens).
		return strings.TrimSuffix(w, "s")
	}
	if i := strings.LastIndex(w, "-"); i > 0 && i+1 < len(w) {
		return w[:i+1] + fold(w[i+1:]) // "auto-renews" is "auto-renew"
	}
	return Stem(w)
}

var folds = map[string]string{"are": "is", "am": "is", "be": "is", "been": "is", "were": "was",
	"has": "have", "had": "have", "does": "do", "did": "do", "goes": "go", "lives": "live", "moves": "move"}

// dropped are words that change how a claim reads, not what it says.
var dropped = map[string]bool{"a": true, "an": true, "the": true, "now": true, "currently": true, "still": true,
	"actually": true, "really": true, "just": true, "also": true, "already": true, "yet": true, "today": true,
	"presently": true, "indeed": true, "definitely": true, "fully": true, "completely": true, "entirely": true}

// negations deny a claim; "no longer" is "no".
var negations = map[string]bool{"not": true, "never": true, "no": true}

// negation reports whether t is a negation as written: "notes" folds to
// "not", which denies nothing.
func negation(t token) bool { return negations[strings.ToLower(t.raw)] }

// auxiliaries carry a negation and nothing else: "does not eat" is "eat"
// denied.
var auxiliaries = map[string]bool{"do": true}

// copulas are the forms of "to be" (after fold) and the verbs that, like
// it, say what something is.
var copulas = foldSet("is", "was", "will", "remain", "become", "became")

// anchors are verbs that state a value of their subject: its place, time,
// employer, price, size or name. A claim made through one can be replaced
// by the same claim with another value.
var anchors = foldSet("live", "lived", "work", "worked", "cost", "costs", "start", "started", "begin", "begins", "end", "ended", "finish", "finished", "due", "scheduled", "set", "born", "married", "named", "called", "earn", "earned", "weigh", "leave", "leaves", "depart", "departs", "arrive", "arrives", "land", "lands", "open", "opens", "close", "closes", "based", "located", "headquartered", "moved", "move", "report", "reports", "run", "runs", "expire", "expires", "renew", "renews", "founded", "established", "take", "kept", "held", "planned", "fixed", "pinned", "priced", "budgeted", "capped", "limited", "listen", "listens", "serve", "served", "bound", "exposed", "wear", "wears", "track", "tracks", "written", "hosted", "stored", "built", "wake", "wakes", "woke", "cut", "released", "published", "deployed", "shipped", "happen", "happens", "occur", "occurs", "owned", "managed", "maintained", "led", "studies", "study", "teaches", "teach")

// foldSet is a set of words as fold makes them.
func foldSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[fold(w)] = true
	}
	return m
}

var have = fold("have")

// linking are the words allowed between an anchor and its value.
var linking = foldSet("on", "at", "in", "for", "to", "by", "from", "until", "around", "about", "only", "exactly", "roughly", "approximately", "of", "as", "not", "never", "over", "under", "up", "every", "each")

// opposites fold a word and its opposite to one word, the opposite
// denying it: "disabled" is "enabled" denied.
var opposites = func() map[string]struct {
	word     string
	negative bool
} {
	pairs := [][2]string{{"enabled", "disabled"}, {"enable", "disable"}, {"on", "off"}, {"open", "closed"},
		{"passing", "failing"}, {"public", "private"}, {"approved", "rejected"}, {"confirmed", "cancelled"},
		{"confirmed", "canceled"}, {"allowed", "forbidden"}, {"allowed", "prohibited"}, {"available", "unavailable"},
		{"active", "inactive"}, {"true", "false"}, {"online", "offline"}, {"locked", "unlocked"}, {"paid", "unpaid"},
		{"required", "optional"}, {"visible", "hidden"}, {"accepted", "declined"}, {"supported", "unsupported"},
		{"present", "absent"}, {"valid", "invalid"}, {"healthy", "unhealthy"}, {"up", "down"}, {"succeeded", "failed"},
		{"included", "excluded"}, {"permitted", "forbidden"}, {"legal", "illegal"}, {"possible", "impossible"},
		{"like", "dislike"}, {"likes", "dislikes"}, {"agree", "disagree"}, {"encrypted", "unencrypted"},
		{"signed", "unsigned"}, {"married", "single"}, {"married", "divorced"}, {"introvert", "extrovert"},
		{"supported", "deprecated"}, {"passed", "failed"}, {"heating", "cooling"},
		{"approved", "denied"}, {"accepted", "refused"}, {"win", "lose"}, {"wins", "loses"}, {"added", "removed"},
		{"pass", "fail"}, {"passes", "fails"}, {"remembered", "forgot"}, {"remembers", "forgets"}, {"support", "oppose"},
		{"good", "bad"}, {"better", "worse"}, {"positive", "negative"}, {"correct", "incorrect"}, {"accurate", "inaccurate"},
		{"quiet", "noisy"}, {"clean", "dirty"}, {"tidy", "messy"}, {"wet", "dry"}, {"rise", "fall"}, {"rose", "fell"},
		{"grew", "shrank"}, {"grow", "shrink"}, {"visible", "invisible"}, {"trust", "distrust"}, {"internal", "external"},
		{"remote", "onsite"}, {"remote", "in-office"}, {"full-time", "part-time"}, {"won", "lost"}, {"works", "broken"},
		{"complete", "incomplete"}, {"complete", "pending"}, {"secure", "insecure"},
		{"connected", "disconnected"}, {"vacant", "occupied"}, {"ahead", "behind"},
		{"increasing", "decreasing"}, {"growing", "shrinking"}, {"left-handed", "right-handed"},
		{"healthy", "ill"}, {"happy", "sad"}, {"polite", "rude"}, {"safe", "dangerous"}, {"strict", "lenient"},
		{"formal", "informal"}, {"right", "wrong"}, {"above", "below"}, {"over", "under"}, {"with", "without"},
		{"attend", "skip"}, {"attending", "skipping"}, {"own", "rent"}, {"read-only", "writable"}, {"mutable", "immutable"},
		{"vertical", "horizontal"}, {"portrait", "landscape"}, {"ascending", "descending"}, {"lowercase", "uppercase"},
		{"active", "archived"}, {"remote", "in-person"}, {"included", "excluded"}, {"up", "stopped"}, {"major", "minor"},
		{"stable", "unstable"}, {"safe", "unsafe"}, {"happy", "unhappy"}, {"satisfied", "dissatisfied"},
		{"employed", "unemployed"}, {"increased", "decreased"}, {"indoor", "outdoor"}, {"cheap", "expensive"},
		{"mandatory", "voluntary"}, {"sync", "async"}, {"synchronous", "asynchronous"}, {"compatible", "incompatible"},
		{"reachable", "unreachable"}, {"responsive", "unresponsive"}, {"blocked", "unblocked"},
		{"awake", "asleep"}, {"alive", "dead"}, {"permanent", "temporary"}, {"automatic", "manual"},
		{"wired", "wireless"}, {"early", "late"}, {"increase", "decrease"}, {"rising", "falling"}, {"high", "low"},
		{"higher", "lower"}, {"large", "small"}, {"big", "little"}, {"long", "short"}, {"easy", "difficult"},
		{"strong", "weak"}, {"fast", "slow"}, {"hot", "cold"}, {"light", "dark"}, {"full", "empty"}, {"inside", "outside"},
		{"upstairs", "downstairs"}, {"profitable", "unprofitable"}, {"friendly", "hostile"}, {"optimistic", "pessimistic"},
		{"sober", "drunk"}, {"rich", "poor"}, {"thin", "thick"}, {"sweet", "sour"}, {"guilty", "innocent"}, {"calm", "anxious"}, {"loose", "tight"}, {"fresh", "stale"}, {"smooth", "rough"}, {"generous", "stingy"}, {"patient", "impatient"}, {"mature", "immature"}, {"proprietary", "open-source"}, {"stateful", "stateless"}, {"reliable", "flaky"}, {"present", "missing"}, {"paid", "overdue"}, {"increase", "reduce"}, {"honest", "dishonest"}, {"approve", "disapprove"}, {"continued", "discontinued"}, {"qualified", "disqualified"}, {"legal", "unlawful"}, {"sunny", "cloudy"}, {"indoors", "outdoors"}, {"polite", "impolite"}, {"possible", "impractical"}, {"mobile", "stationary"},
		// Common opposites of people, places and things, for the updates
		// users tell in one word (issue 22).
		{"spacious", "cramped"}, {"quickly", "slowly"}, {"outgoing", "shy"}, {"extroverted", "introverted"}, {"new", "old"},
		{"intact", "damaged"}, {"friendly", "aggressive"}, {"satisfied", "disappointed"}, {"valid", "expired"},
		{"senior", "junior"}, {"hardworking", "lazy"}, {"modern", "outdated"}, {"up-to-date", "outdated"}, {"secure", "vulnerable"},
		{"confirmed", "tentative"}, {"allow", "forbid"}, {"allows", "forbids"}, {"punctual", "late"}, {"organized", "disorganized"},
		{"organised", "disorganised"}, {"smart", "stupid"}, {"sharp", "blunt"}, {"flexible", "rigid"},
		{"quiet", "loud"}, {"relaxed", "stressed"}, {"fit", "unfit"}, {"tidy", "cluttered"}, {"fresh", "rotten"}, {"ripe", "unripe"},
		{"solid", "fragile"}, {"older", "younger"}, {"elder", "younger"}, {"transparent", "opaque"}, {"legitimate", "fraudulent"}, {"current", "outdated"}}
	m := map[string]struct {
		word     string
		negative bool
	}{}
	for _, p := range pairs {
		m[fold(p[0])] = struct {
			word     string
			negative bool
		}{fold(p[0]), false}
		m[fold(p[1])] = struct {
			word     string
			negative bool
		}{fold(p[0]), true}
	}
	return m
}()

var weekdays = map[string]string{"monday": "mon", "tuesday": "tue", "wednesday": "wed", "thursday": "thu",
	"friday": "fri", "saturday": "sat", "sunday": "sun"}

var months = map[string]string{"january": "01", "february": "02", "march": "03", "april": "04", "may": "05",
	"june": "06", "july": "07", "august": "08", "september": "09", "october": "10", "november": "11",
	"december": "12", "jan": "01", "feb": "02", "mar": "03", "apr": "04", "jun": "06", "jul": "07",
	"aug": "08", "sep": "09", "sept": "09", "oct": "10", "nov": "11", "dec": "12"}

var numberWords = map[string]string{"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
	"six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
	"dozen": "12", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "hundred": "100"}

var ordinalWords = map[string]string{"first": "1th", "second": "2th", "third": "3th", "fourth": "4th", "fifth": "5th",
	"sixth": "6th", "seventh": "7th", "eighth": "8th", "ninth": "9th", "tenth": "10th", "eleventh": "11th", "twelfth": "12th"}

// colours are values of their own ("the logo is navy blue"); shades only
// come before one.
var colours = map[string]string{"red": "red", "orange": "orange", "yellow": "yellow", "green": "green", "blue": "blue",
	"purple": "purple", "violet": "violet", "pink": "pink", "black": "black", "white": "white", "grey": "grey",
	"gray": "grey", "brown": "brown", "teal": "teal", "navy": "navy", "beige": "beige", "turquoise": "turquoise",
	"maroon": "maroon", "bright": "bright", "dark": "dark", "light": "light", "pale": "pale"}

var shades = map[string]bool{"bright": true, "dark": true, "light": true, "pale": true, "navy": true}

// currencies are the words of money after a number, each with the sign
// it is written with: "500 euros" is "€500", "500 USD" is not "500 EUR".
var currencies = map[string]string{"dollars": "$", "dollar": "$", "usd": "$", "euros": "€", "euro": "€", "eur": "€",
	"pounds": "£", "gbp": "£", "yen": "¥", "jpy": "¥", "francs": "chf", "chf": "chf", "kroner": "kr", "krona": "kr"}
