package text

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DedupKeys are the keys remember finds a repeated memory by: Exact, the
// content with case and runs of white space folded; Words, the sequence of
// its words with case, punctuation, "the", the present of "to be", British
// spellings and plural endings folded, so that "The deploy window is
// Friday." and "deploy window: Friday" are one statement while "Alice owes
// Bob" and "Bob owes Alice", "is" and "is not", "is" and "was", "Tuesday"
// and "Wednesday", "A+" and "A-", "10%" and "$10", "-$250" and "$250" stay
// apart. A plural ending stays where the word is one thing: after "a" ("a
// daughter" is not "daughters"), before "is", "was", "has" or "does"
// ("Lucas is"), and on a name inside a sentence. Both are hex SHA-256.
//
// Case folds in both keys only where it carries no meaning (see caseFold:
// "IT" is not "it", "5 Gb" not "5 GB", "MAX_RETRIES" not "max_retries"); a
// number keeps its separators ("1,5" is not "15", "1.10" not "1.1"), but
// for thousands ("$1,000" is "$1000"); an identifier ("user_ids",
// "getUsers", "app.logs") and an -s noun of a meaning of its own ("news",
// "customs", see ownPlurals) keep their s.
func DedupKeys(content string) (exact, words string) {
	e := sha256.Sum256([]byte(strings.Join(strings.Fields(caseFold(content)), " ")))
	w := sha256.Sum256([]byte(strings.Join(dedupWords(content), " ")))
	return hex.EncodeToString(e[:]), hex.EncodeToString(w[:])
}

// foldedWords are left out of a memory's word key: they change how a
// statement reads, not what it says. The past of "to be" is not among
// them: "Dana was the lead" is not "Dana is the lead"; nor is "been":
// "Ann has been the lead" is not "Ann has the lead".
var foldedWords = map[string]bool{"a": true, "an": true, "the": true, "is": true, "are": true, "am": true,
	"be": true}

// wordForms fold what differs only in form: "were" says what "was" says.
var wordForms = map[string]string{"were": "was"}

// negated spells out the verb of a contraction with n't, so that "doesn't"
// and "does not" are the same words.
var negated = map[string]string{"is": "is", "are": "are", "was": "was", "were": "was", "do": "do", "does": "does",
	"did": "did", "ca": "can", "wo": "will", "should": "should", "would": "would", "could": "could", "has": "has",
	"have": "have", "had": "had", "must": "must", "need": "need", "ai": "is"}

// signs are the characters that are words of their own in a word key:
// they change what a statement says ("C++", "10%", "UTC+2", ">= 18", "3/4").
// A backtick marks code in Markdown and says nothing itself: "`make
// test`" is "make test".
func sign(r rune) bool {
	return r != '`' && (unicode.IsSymbol(r) || strings.ContainsRune("#%&@/*", r))
}

// currencySigns are the signs of money: after one, a whole amount's ".00"
// says nothing ("$20.00" is "$20").
var currencySigns = set("$", "€", "£", "¥")

// measureUnits are the units written after a number with or without a space
// ("10MB", "10 MB"; "30s", "30 s"; "250ms"), in lower case.
var measureUnits = set("b", "kb", "mb", "gb", "tb", "pb", "kib", "mib", "gib", "tib", "bit", "bits", "kbps", "mbps",
	"gbps", "ns", "us", "µs", "ms", "s", "sec", "secs", "min", "mins", "h", "hr", "hrs", "d", "am", "pm", "hz",
	"khz", "mhz", "ghz", "px", "kg", "km", "cm", "mm", "rpm", "rps", "qps", "fps")

// numberUnit splits a word that is a number and a unit ("10MB", "250ms",
// "5Gb") into the two; any other word is n as it is, without a unit.
func numberUnit(w string) (n, unit string) {
	i := strings.LastIndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && r != 'µ' })
	if i < 0 || i+1 == len(w) || !measureUnits[strings.ToLower(w[i+1:])] || !allDigits([]rune(strings.NewReplacer(".", "", ",", "").Replace(w[:i+1]))) || !unicode.IsDigit(rune(w[i])) {
		return w, ""
	}
	return w[:i+1], w[i+1:]
}

func dedupWords(content string) []string {
	content = spelledOut(content)
	orig := []rune(content)
	rs := []rune(caseFold(content))
	var out []string
	start := -1              // where the word being read began
	sentenceStart := true    // no word yet since the sentence began
	afterColon := false      // the sentence began at a colon
	opener := ""             // the sentence's first word, in lower case
	ended := false           // a sentence ended since the last word
	listed := map[int]bool{} // the commas between names in a list (see nameComma)
	for _, m := range nameComma.FindAllStringSubmatchIndex(content, -1) {
		listed[utf8.RuneCountInString(content[:m[2]])] = true
	}
	// boundary keeps where one sentence ends and the next begins: "Don't
	// deploy. On Friday, run the tests." is not "Don't deploy on Friday.
	// Run the tests."
	boundary := func() {
		if ended && len(out) > 0 {
			out = append(out, sentenceMark)
		}
		ended = false
	}
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := string(rs[start:end])
		boundary()
		if sentenceStart {
			opener = ""
		}
		if opener == "" && !openerSkips[strings.ToLower(w)] {
			opener = strings.ToLower(w) // the first word but for "also", "so"...
		}
		switch {
		case identifier(string(orig[start:end])) || strings.IndexFunc(w, unicode.IsDigit) >= 0:
			// "user_ids", "getUsers", "1.5", "1,000": as written (but for
			// thousands separators), never stemmed; a number and its unit
			// are two words however spaced ("10MB", "10 MB").
			n, unit := numberUnit(strings.Trim(w, "'’"))
			n = thousandsFolded(n)
			if len(out) > 0 && currencySigns[out[len(out)-1]] {
				n = strings.TrimSuffix(n, ".00") // "$20.00" is "$20"
			}
			if out = append(out, n); unit != "" {
				out = append(out, unit)
			}
		case w == "a" && orig[start] == 'A' && !sentenceStart:
			// "plan A" is not "a plan": a capital A inside a sentence is a name.
			out = append(out, "A")
		case w == "am" && len(out) > 0 && endsInDigit(out[len(out)-1]):
			out = append(out, w) // "9 am" is not "9"
		case (w == "a" || w == "an") && start+len(w) < len(rs) && rs[start+len(w)] == ' ':
			// "a daughter" is one, "daughters" many: the article stays
			// where it counts a word.
			out = append(out, "a")
		case unicode.IsUpper(orig[start]) && (!sentenceStart || afterColon):
			// A capital inside a sentence: a name, "Lucas" is not "Luca".
			out = appendName(out, w)
		case unicode.IsUpper(orig[start]):
			// A sentence's first word: a name or not, so its plural ending
			// stays before "is" and the like ("Lucas is", "Carlos: ...").
			n := len(out)
			if out = appendWord(out, w); len(out) == n+1 && strings.HasPrefix(out[n], pluralMark) {
				out[n] = capitalMark + out[n][len(pluralMark):]
			}
		default:
			out = appendWord(out, w)
		}
		start, sentenceStart, afterColon = -1, false, false
	}
	alnum := func(i int) bool { return i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i])) }
	inner := func(i int) bool {
		// A number's separators ("1,5", "1.10", "10:30") and an
		// identifier's joints ("user_id", "app.logs") are inside a word.
		switch rs[i] {
		case ',', ':':
			return i > 0 && unicode.IsDigit(rs[i-1]) && i+1 < len(rs) && unicode.IsDigit(rs[i+1])
		case '.', '_':
			return alnum(i-1) && alnum(i+1)
		}
		return false
	}
	pathAt := map[int]int{} // where each path begins, to where it ends
	for _, p := range pathSpans(orig) {
		pathAt[p[0]] = p[1]
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if end, ok := pathAt[i]; ok && start < 0 {
			// A path is one word, as written: "scripts/deploy/" is not
			// "deploy/scripts/", nor "/opt/scripts" "/opt/script".
			boundary()
			out = append(out, string(orig[i:end]))
			if sentenceStart || opener == "" {
				opener = string(orig[i:end]) // "/var/log is full?" asks nothing
			}
			sentenceStart, afterColon = false, false
			i = end - 1
			continue
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' || start >= 0 && inner(i) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
		switch {
		case r == ':':
			// "Carlos: the accountant" reads as "Carlos is the accountant".
			out, sentenceStart, afterColon = append(out, colonMark), true, true
		case r == '?':
			// A question asks what a statement says: "Is the API
			// public?" is not "The API is public." A statement with a
			// question mark ("The printer is on floor 3?") still says it.
			if questionOpeners[opener] {
				out = append(out, "?")
			}
			sentenceStart, afterColon, ended = true, false, true
		case r == '.' || r == '!' && !(i+1 < len(rs) && rs[i+1] == '=') || r == '\n':
			sentenceStart, afterColon, ended = true, false, true
		case r == ',' && listed[i]:
			// A comma between two names parts two people: "Invite Dana,
			// Lee and Kim" is not "Invite Dana Lee and Kim".
			out = append(out, ",")
		case r == ';':
			sentenceStart, afterColon = true, false // "formatting; ESLint", "formatting, ESLint"
		case r == '=' && i+1 < len(rs) && rs[i+1] == '>':
			out = append(out, "=>") // an arrow, not "x >"
			i++
		case r == '=':
			// "x = y" reads as "x: y", but "<=", ">=", "!=", "==" are signs.
			if i > 0 && strings.ContainsRune("<>!=", rs[i-1]) && len(out) > 0 {
				out[len(out)-1] += "="
			} else if i+1 < len(rs) && rs[i+1] == '=' {
				out = append(out, "=")
			}
		case r == '!':
			out = append(out, "!") // of "!="
		case sign(r):
			out = append(out, string(r))
		case (r == '–' || r == '−') && i+1 < len(rs) && (unicode.IsDigit(rs[i+1]) || sign(rs[i+1])) && !alnum(i-1):
			out = append(out, "-") // a minus written as a dash: "–$250", "−5°C"
		case r == '-' && !(alnum(i-1) && alnum(i+1)) && (alnum(i-1) || alnum(i+1) || i+1 < len(rs) && sign(rs[i+1])):
			// A minus ("-4") or a trailing sign ("A-"), not a hyphen
			// ("read-only", "2026-03-01"), which folds like a space.
			out = append(out, "-")
		}
	}
	flush(len(rs))
	return settle(out)
}

// sentenceMark stands between two sentences in a words key.
const sentenceMark = "\x06"

// openerSkips are the words before a question's auxiliary that do not
// make it a statement: "Also, is the cache warm?"
var openerSkips = set("also", "so", "and", "but", "then", "now", "ok", "okay", "well", "hey", "again", "still")

// questionOpeners are the words a question opens with: an auxiliary or a
// question word.
var questionOpeners = set("is", "are", "am", "was", "were", "do", "does", "did", "have", "has", "had", "can",
	"could", "will", "would", "shall", "should", "may", "might", "must", "isn't", "aren't", "wasn't", "weren't",
	"don't", "doesn't", "didn't", "haven't", "hasn't", "can't", "won't", "wouldn't", "shouldn't", "who", "whom",
	"whose", "what", "which", "when", "where", "why", "how")

// Marks on the words appendWord adds, settled once the next word is known.
const (
	pluralMark  = "\x01" // a word whose plural ending goes
	droppedMark = "\x02" // a word left out of the key
	manyMark    = "\x03" // a verb whose subject is many
	capitalMark = "\x04" // a sentence's first word, with a capital, whose plural ending goes
	colonMark   = "\x05" // a colon, which after a name reads as "is"
)

// settle drops the plural ending of each word that has one but is the
// subject of "is", "was", "has" or "does" ("Lucas is", "news is": not a
// plural), and leaves out the words marked to go.
func settle(marked []string) []string {
	out := marked[:0]
	for i, w := range marked {
		switch {
		case strings.HasPrefix(w, droppedMark):
			continue
		case strings.HasPrefix(w, pluralMark):
			w = w[len(pluralMark):]
			if i+1 == len(marked) || !singularVerbs[strings.TrimPrefix(marked[i+1], droppedMark)] {
				w = singular(w)
			}
		case strings.HasPrefix(w, capitalMark):
			w = w[len(capitalMark):]
			if i+1 == len(marked) || !singularVerbs[strings.TrimPrefix(marked[i+1], droppedMark)] && marked[i+1] != colonMark {
				w = singular(w)
			}
		case w == colonMark:
			continue
		case strings.HasPrefix(w, manyMark):
			w = w[len(manyMark):]
		}
		out = append(out, w)
	}
	return out
}

// singularVerbs are the verbs whose subject is one thing (as the word key
// has them: "were" is "was").
var singularVerbs = set("is", "was", "has", "does")

func endsInDigit(w string) bool {
	return w != "" && unicode.IsDigit(rune(w[len(w)-1]))
}

// appendWord adds word w to a word key.
func appendWord(out []string, w string) []string {
	w = strings.Trim(w, "'’")
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	if w == "" {
		return out
	}
	if foldedWords[w] {
		return append(out, droppedMark+w)
	}
	// "isn't", "don't": the negation stays a word of its own.
	if stem, ok := strings.CutSuffix(strings.ReplaceAll(w, "’", "'"), "n't"); ok {
		if stem = negated[stem]; stem != "" && !foldedWords[stem] {
			out = append(out, pluralMark+stem)
		} else if stem != "" {
			out = append(out, droppedMark+stem)
		}
		return append(out, "not")
	}
	if w == "were" {
		return append(out, manyMark+wordForms[w]) // "were" is "was" of many
	}
	if f, ok := wordForms[w]; ok {
		w = f
	}
	return append(out, pluralMark+american(w))
}

// appendName adds a word written with a capital inside a sentence to a
// word key, as written but for case and apostrophes ("Let's Encrypt",
// "Lets Encrypt"): a name, whose plural ending stays.
func appendName(out []string, w string) []string {
	if w = unmarked(w); w == "" || foldedWords[w] {
		return out
	}
	return append(out, american(w))
}

// singular drops a plural (or third-person) s from a word of more than
// three letters, but not from -ss, -us or -is, nor from an -s noun of a
// meaning of its own ("news", "customs"), nor from a verb whose past is
// its plain form ("Ann sets the agenda" is now, "Ann set the agenda" may
// be the past, see sameInPast).
func singular(w string) string {
	if ownPlurals[w] || sameInPast[strings.TrimSuffix(w, "s")] {
		return w
	}
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") {
		return strings.TrimSuffix(w, "s")
	}
	return w
}

// sameInPast are the verbs whose past is written as their plain form:
// "sets" and "set", "reads" and "read" may be now and then.
var sameInPast = set("set", "cut", "put", "read", "hit", "let", "shut", "cost", "hurt", "quit", "spread", "split",
	"bet", "cast", "burst", "broadcast", "forecast", "upset", "fit", "rid", "shed", "thrust", "beat", "bid")

// spelledOut is s with what is written two ways written one way: a
// contraction of "are", "am", "have" or "will" spelled out ("We're" is "We
// are"), "&" between words as "and", and "percent" after a number as "%".
func spelledOut(s string) string {
	s = contraction.ReplaceAllStringFunc(s, func(m string) string {
		i := strings.IndexAny(m, "'’")
		return m[:i] + " " + contracted[strings.ToLower(m[i+len(string([]rune(m[i:])[0])):])]
	})
	s = ampersand.ReplaceAllString(s, "${1}and${2}")
	return percent.ReplaceAllString(s, "${1}%")
}

var (
	contraction = regexp.MustCompile(`(?i)\b\pL+['’](re|m|ve|ll)\b`)
	contracted  = map[string]string{"re": "are", "m": "am", "ve": "have", "ll": "will"}
	ampersand   = regexp.MustCompile(`(\s)&(\s)`)
	percent     = regexp.MustCompile(`(?i)(\d)\s*(?:percent|per cent)\b`)
)
