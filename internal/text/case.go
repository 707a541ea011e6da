package text

import (
	_ "embed"
	"slices"
	"strings"
	"unicode"
)

// Case is folded where it carries no meaning ("The staging database is
// Postgres 16." and "the staging database is postgres 16." are one
// statement) and kept where it does, in every dedup tier alike:
//
//   - an all-capital word of two to five letters that spells an English
//     word in lower case ("IT", "US", "WHO", "AM", "CAT"): the capitals
//     make it another word. One that spells none ("UTC", "API", "IOS") is
//     the same in any case, and so is a capitalised word of emphasis
//     ("NEVER", "NOT", see emphasis);
//   - a unit after a number written in both cases ("5 Gb" is bits, "5 GB"
//     bytes; "20 mB", "20 MB"), but for "AM" and "PM" ("10 AM", "10 am");
//   - an identifier with an underscore and a capital ("MAX_RETRIES"), or in
//     camel case ("getURL" is not "getUrl");
//   - a word of emphasis in capitals after a determiner ("the NOT gate");
//   - a path ("/var/log/App.log", see pathSpans), as file systems have it.
//
// A shouted sentence (no lower-case letter, two words or more) is the same
// as its lower-case form, but for its identifiers with underscores.

// englishWords are the English words of two to five letters, lower case:
// SCOWL's American English list as Debian's wamerican package ships it
// (see THIRD_PARTY_NOTICES.md), less proper nouns and words with marks.
//
//go:embed words.txt
var englishWordList string

var englishWords = set(strings.Fields(englishWordList)...)

// wordNames are the names that are also English words, as capitalised
// words ("Bill", "China", "Turkey", "Apple", "Polish"): the same list's
// capitalised entries whose lower-case form it lists too, but for
// function words ("At", "As", "Will"), which a capital inside a sentence
// rarely makes a name.
//
//go:embed names.txt
var wordNameList string

var wordNames = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(wordNameList) {
		if !StopWords[strings.ToLower(w)] {
			m[w] = true
		}
	}
	return m
}()

// emphasis are words written in capitals to stress them (or, as "NOTE:",
// to label a sentence), not to name something else: "NEVER force-push" is
// "never force-push".
var emphasis = set(strings.Fields(`not no never always only all must do dont none every each any both
	very just still now ever yes so too note`)...)

// caseFold is s with case folded where it carries none (see above); every
// rune stays where it was.
func caseFold(s string) string {
	rs := []rune(s)
	out := make([]rune, len(rs))
	for i, r := range rs {
		out[i] = unicode.ToLower(r)
	}
	for _, w := range keptSpans(rs) {
		copy(out[w[0]:w[1]], rs[w[0]:w[1]])
	}
	return string(out)
}

// keptCase is the set of the words of s whose case is kept.
func keptCase(s string) map[string]bool {
	rs := []rune(s)
	m := map[string]bool{}
	for _, w := range keptSpans(rs) {
		m[string(rs[w[0]:w[1]])] = true
	}
	return m
}

// keptSpans are where the words of rs whose case carries meaning stand.
func keptSpans(rs []rune) [][2]int {
	var kept [][2]int
	for _, sen := range sentenceSpans(rs) {
		words := wordSpans(rs, sen[0], sen[1])
		shouted := shout(rs, sen, words)
		for k, w := range words {
			afterNumber := k > 0 && allDigits(rs[words[k-1][0]:words[k-1][1]])
			named := k > 0 && determiners[strings.ToLower(string(rs[words[k-1][0]:words[k-1][1]]))]
			if keepsCase(string(rs[w[0]:w[1]]), afterNumber, named, shouted) {
				kept = append(kept, w)
			}
		}
	}
	return append(kept, pathSpans(rs)...)
}

// determiners are the words after which a word in capitals names a thing
// rather than stressing one: "the NOT gate" is not "the not gate", though
// "do NOT restart" is "do not restart".
var determiners = set("the", "a", "an", "this", "that", "these", "those", "each", "every", "our", "your", "my",
	"their", "its", "his", "her")

// keepsCase reports whether word w's capitals carry meaning, after a
// number or not, after a determiner (named) or not, in a shouted sentence
// or not.
func keepsCase(w string, afterNumber, named, shouted bool) bool {
	upper := strings.IndexFunc(w, unicode.IsUpper) >= 0
	if !upper {
		return false
	}
	if strings.ContainsRune(w, '_') || camel(w) {
		return true // "MAX_RETRIES", "getURL" (not "getUrl")
	}
	unit := strings.TrimLeftFunc(w, unicode.IsDigit)
	if unit != w {
		afterNumber = true // "5GB"
	}
	lower := strings.ToLower(unit)
	if afterNumber && (lower == "am" || lower == "pm") {
		return false
	}
	letters := len([]rune(unit))
	if afterNumber && letters <= 3 && strings.IndexFunc(unit, unicode.IsLower) >= 0 && strings.IndexFunc(unit, unicode.IsDigit) < 0 {
		return true // "Gb", "mB": another unit than "GB", "MB"
	}
	if shouted || letters < 2 || letters > 5 || unit != strings.ToUpper(unit) || unit != w {
		return false
	}
	return englishWords[lower] && (!emphasis[lower] || named)
}

// camel reports whether w is an identifier in camel case: two lower-case
// letters or more, then a capital ("getURL", "userId", "macOS"), whose
// case a program keeps. "iOS" and "iPhone" are names, the same in any
// case.
func camel(w string) bool {
	i := strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLower(r) })
	return i >= 2 && unicode.IsUpper([]rune(w[i:])[0])
}

// NamesAgree reports whether neither text writes as a name, capitalised
// inside a sentence, a word that the other writes in lower case, where
// the word is a name too ("Pay Bill on Friday", "Pay bill on Friday"; "Ask
// about the China exports", "the china exports"; see wordNames): the
// capital makes it the name, the lower case the word, and the two say
// different things. A name's capital is not told apart in a text that
// writes no capital at all ("project atlas uses postgresql"), nor in a
// sentence's first word (or the first after a colon or "="), in a shouted
// sentence or a title ("Next Offsite Is In Lisbon"), nor in a name of
// several capitalised words ("the Berlin Marathon"): there case tells no
// name from a word. A name that spells no word ("Postgres", "Redis")
// names the same thing in any case, and so does one the list does not
// hold as a name ("Node", "Payments": written in lower case for the same
// product or team).
func NamesAgree(older, newer string) bool {
	an, aw, acased := namesAndWords(older)
	bn, bw, bcased := namesAndWords(newer)
	if !acased || !bcased {
		return true
	}
	for w := range an {
		if bw[w] {
			return false
		}
	}
	for w := range bn {
		if aw[w] {
			return false
		}
	}
	return true
}

// namesAndWords are the names that are also words (wordNames) that s
// writes as names, and those it writes as words, in lower case; and
// whether s writes a capital at all.
func namesAndWords(s string) (names, words map[string]bool, cased bool) {
	names, words = map[string]bool{}, map[string]bool{}
	rs := []rune(s)
	cased = slices.ContainsFunc(rs, unicode.IsUpper)
	for _, sen := range sentenceSpans(rs) {
		spans := wordSpans(rs, sen[0], sen[1])
		if shout(rs, sen, spans) || titleCase(rs, spans) {
			continue
		}
		inner := func(k int) bool { // a capitalised word inside the sentence
			return k > 0 && k < len(spans) && unicode.IsUpper(rs[spans[k][0]]) && !afterColon(rs, spans[k][0])
		}
		for k, w := range spans {
			word := string(rs[w[0]:w[1]])
			lower := strings.ToLower(word)
			switch {
			case !wordNames[capitalised(lower)]:
			case word == lower:
				words[lower] = true
			case wordNames[word] && inner(k) && !inner(k-1) && !inner(k+1):
				names[lower] = true
			}
		}
	}
	return names, words, cased
}

// capitalised is w with a capital first letter.
func capitalised(w string) string {
	rs := []rune(w)
	rs[0] = unicode.ToUpper(rs[0])
	return string(rs)
}

// afterColon reports whether only spaces stand between a colon (or "=",
// which reads as one) and rs[i]: the word there opens what follows it
// ("Priority: Fix it", "warehouse = Snowflake").
func afterColon(rs []rune, i int) bool {
	for i--; i >= 0 && unicode.IsSpace(rs[i]); i-- {
	}
	return i >= 0 && (rs[i] == ':' || rs[i] == '=')
}

// titleCase reports whether a sentence is in title case: three words or
// more, each beginning with a capital.
func titleCase(rs []rune, words [][2]int) bool {
	if len(words) < 3 {
		return false
	}
	for _, w := range words {
		if !unicode.IsUpper(rs[w[0]]) {
			return false
		}
	}
	return true
}

// shout reports whether a sentence is shouted: no lower-case letter, and
// two words or more of two letters or more.
func shout(rs []rune, sen [2]int, words [][2]int) bool {
	for _, r := range rs[sen[0]:sen[1]] {
		if unicode.IsLower(r) {
			return false
		}
	}
	n := 0
	for _, w := range words {
		if len(strings.TrimFunc(string(rs[w[0]:w[1]]), func(r rune) bool { return !unicode.IsLetter(r) })) >= 2 {
			n++
		}
	}
	return n >= 2
}

// sentenceSpans split rs as sentences does: at ! ? ; and line breaks, and at
// a point that a space or the end follows.
func sentenceSpans(rs []rune) [][2]int {
	var out [][2]int
	start := 0
	for i, r := range rs {
		if strings.ContainsRune("!?;\n", r) || r == '.' && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])) {
			out = append(out, [2]int{start, i})
			start = i + 1
		}
	}
	return append(out, [2]int{start, len(rs)})
}

// wordSpans are the runs of letters, digits and underscores in rs[from:to].
func wordSpans(rs []rune, from, to int) [][2]int {
	var out [][2]int
	start := -1
	for i := from; i <= to; i++ {
		in := i < to && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i]) || rs[i] == '_')
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	return out
}

func allDigits(rs []rune) bool {
	for _, r := range rs {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return len(rs) > 0
}

// identifier reports whether w, as written, is an identifier rather than a
// word: it joins parts with an underscore or a point ("user_id",
// "app.logs"), mixes letters with digits ("v2", "500s"), or has a capital
// after a small letter ("userIds", "getUsers"). An identifier is never
// stemmed: "user_ids" is not "user_id".
func identifier(w string) bool {
	letter, digit, camel := false, false, false
	var prev rune
	for _, r := range w {
		switch {
		case r == '_' || r == '.':
			return true
		case unicode.IsDigit(r):
			digit = true
		case unicode.IsLetter(r):
			letter = true
			camel = camel || unicode.IsUpper(r) && unicode.IsLower(prev)
		}
		prev = r
	}
	return letter && digit || camel
}

// writtenNumber is a number as written, separators and all ("1,5" is not
// "15", "1.10" not "1.1", "10:30" not "1030"), but for thousands separators
// ("1,000" is "1000"): the first number in s, and whether there is one.
func writtenNumber(s string) (string, bool) {
	rs := []rune(s)
	start := strings.IndexFunc(s, unicode.IsDigit)
	if start < 0 {
		return "", false
	}
	i := len([]rune(s[:start]))
	j := i
	for j < len(rs) && (unicode.IsDigit(rs[j]) || strings.ContainsRune(".,:", rs[j]) && j+1 < len(rs) && unicode.IsDigit(rs[j+1])) {
		j++
	}
	return thousandsFolded(string(rs[i:j])), true
}

// thousandsFolded drops the commas of a number whose commas all separate
// thousands ("1,000", "25,000.50"), and leaves any other number as it is
// ("1,5", "1,50").
func thousandsFolded(n string) string {
	whole, frac, _ := strings.Cut(n, ".")
	groups := strings.Split(whole, ",")
	if len(groups) < 2 || len(groups[0]) < 1 || len(groups[0]) > 3 || !allDigits([]rune(groups[0])) {
		return n
	}
	for _, g := range groups[1:] {
		if len(g) != 3 || !allDigits([]rune(g)) {
			return n
		}
	}
	if strings.Contains(n, ".") {
		return strings.Join(groups, "") + "." + frac
	}
	return strings.Join(groups, "")
}

// pathSpans are where the paths in rs stand: a run without spaces,
// trimmed of the punctuation around it, that begins with "/", "./",
// "../" or "~/", or has a slash between letters or digits
// ("scripts/deploy/", "/opt/data", "https://x.io/a"). A path is one word
// whose parts keep their order and case: "scripts/deploy/" is not
// "deploy/scripts/", nor "/var/App.log" "/var/app.log".
func pathSpans(rs []rune) [][2]int {
	var out [][2]int
	for i := 0; i < len(rs); {
		if unicode.IsSpace(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) && !unicode.IsSpace(rs[j]) {
			j++
		}
		from, to := i, j
		for from < to && strings.ContainsRune("\"'`([{<“‘", rs[from]) {
			from++
		}
		for to > from && strings.ContainsRune("\"'`)]}>”’.,;:!?", rs[to-1]) {
			to--
		}
		if isPath(rs[from:to]) {
			out = append(out, [2]int{from, to})
		}
		i = j
	}
	return out
}

// isPath reports whether w is a path (see pathSpans).
func isPath(w []rune) bool {
	s := string(w)
	if strings.HasPrefix(s, "/") && len(w) > 1 || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || strings.HasPrefix(s, "~/") {
		return true
	}
	if strings.IndexFunc(s, unicode.IsLetter) < 0 {
		return false // "3/4", "2026/03/01", "24/7": numbers
	}
	for i := 1; i+1 < len(w); i++ {
		if w[i] == '/' && pathRune(w[i-1]) && pathRune(w[i+1]) {
			return true
		}
	}
	return false
}

// pathRune reports whether r may stand on either side of a path's slash.
func pathRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// paths are the paths in s, in order, as written (see pathSpans).
func paths(s string) []string {
	rs := []rune(s)
	var out []string
	for _, p := range pathSpans(rs) {
		out = append(out, string(rs[p[0]:p[1]]))
	}
	return out
}
