package text

import (
	"crypto/sha256"
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
	value string // the value, normalised ("15:00", "2026-03-03", "5000"); for a polarity claim "+" or "-"
	raw   string // the value as written
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
			if o.key != n.key || o.value == n.value {
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
}

// claims are the claims content makes, sentence by sentence.
func claims(content string) []claim {
	var out []claim
	for _, s := range sentences(content) {
		toks := words(s)
		out = append(out, polarityClaim(toks)...)
		out = append(out, valueClaims(toks)...)
	}
	return out
}

// polarityClaim is a sentence's statement with its polarity: the words
// without negations, opposites folded to one word, and whether it says or
// denies. A sentence of fewer than three words besides the negations
// states too little to be denied.
func polarityClaim(toks []token) []claim {
	neg := false
	var key []string
	for i, t := range toks {
		switch {
		case t.slot != "":
			key = append(key, t.slot+":"+t.norm)
		case negations[t.norm]:
			neg = !neg
		case t.norm == "longer" && i > 0 && toks[i-1].norm == "no":
		case auxiliaries[t.norm] && i+1 < len(toks) && negations[toks[i+1].norm]:
			// "does not eat" says "eat" denied.
		default:
			if o, ok := opposites[t.norm]; ok {
				key = append(key, o.word)
				neg = neg != o.negative
				continue
			}
			key = append(key, t.norm)
		}
	}
	if len(key) < 3 {
		return nil
	}
	v := "+"
	if neg {
		v = "-"
	}
	return []claim{{key: "p|" + strings.Join(key, " "), value: v}}
}

// valueClaims are the values a sentence states of its subject: a value
// after "to be" or a verb that states one (anchors), with at most two
// linking words between ("is on Tuesday", "works at Stripe"). A value
// after any other verb ("met Bob", "bought 3 apples") is one of many that
// can all be true, and makes no claim.
func valueClaims(toks []token) []claim {
	var out []claim
	for i, t := range toks {
		if t.slot == "" || !anchored(toks, i) {
			continue
		}
		var key []string
		for j, u := range toks {
			switch {
			case j == i:
				key = append(key, "<"+t.slot+">")
			case negations[u.norm]:
				key = append(key, "not")
			case u.slot != "":
				key = append(key, u.slot+":"+u.norm)
			default:
				key = append(key, u.norm)
			}
		}
		out = append(out, claim{key: "v|" + strings.Join(key, " "), slot: t.slot, value: t.norm, raw: t.raw})
	}
	return out
}

// anchored reports whether the value at i follows "to be" or an anchor
// verb, with at most two linking words between, and after a subject.
func anchored(toks []token, i int) bool {
	for j, skipped := i-1, 0; j > 0; j-- {
		w := toks[j].norm
		if copulas[w] || anchors[w] || w == have && toks[i].slot == "number" {
			return true
		}
		if toks[j].slot != "" {
			continue // "is on Saturday at 5pm": the day is part of the frame
		}
		if !linking[w] || skipped == 2 {
			return false
		}
		skipped++
	}
	return false
}

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
func words(s string) []token {
	raw := splitWords(s)
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
func splitWords(s string) []string {
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
	for i, r := range rs {
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
		if n, ok := number(lw[len(string([]rune(lw)[0])):]); ok {
			return token{norm: n, raw: w, slot: "amount"}, 1, true
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
		if currencies[next(1)] {
			return token{norm: n, raw: w + " " + raw[i+1], slot: "amount"}, 2, true
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

// auxiliaries carry a negation and nothing else: "does not eat" is "eat"
// denied.
var auxiliaries = map[string]bool{"do": true}

// copulas are the forms of "to be" (after fold) and the verbs that, like
// it, say what something is.
var copulas = foldSet("is", "was", "will", "remain", "become", "became")

// anchors are verbs that state a value of their subject: its place, time,
// employer, price, size or name. A claim made through one can be replaced
// by the same claim with another value.
var anchors = foldSet("live", "lived", "work", "worked", "cost", "costs", "start", "started", "begin", "begins", "end", "ended", "finish", "finished", "due", "scheduled", "set", "born", "married", "named", "called", "earn", "earned", "weigh", "leave", "leaves", "depart", "departs", "arrive", "arrives", "land", "lands", "open", "opens", "close", "closes", "based", "located", "headquartered", "moved", "move", "report", "reports", "run", "runs", "expire", "expires", "renew", "renews", "founded", "established", "take", "kept", "held", "planned", "fixed", "pinned", "priced", "budgeted", "capped", "limited")

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
var linking = foldSet("on", "at", "in", "for", "to", "by", "from", "until", "around", "about", "only", "exactly", "roughly", "approximately", "of", "as", "not", "never", "over", "under", "up")

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
		{"supported", "deprecated"}, {"passed", "failed"}, {"heating", "cooling"}}
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

var currencies = map[string]bool{"dollars": true, "dollar": true, "usd": true, "euros": true, "euro": true,
	"eur": true, "pounds": true, "gbp": true, "yen": true, "francs": true, "chf": true, "kroner": true, "krona": true}
