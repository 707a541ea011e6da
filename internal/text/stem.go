package text

import "strings"

// Stem reduces an English word to its stem by inflection alone: the
// inflectional steps of the Porter2 ("English") stemmer of the Snowball
// project (M.F. Porter, steps 0, 1a-1c and 5), written from the
// algorithm's published description. "fails", "failed" and "failing"
// become "fail"; "internal" and "international", "product" and
// "production", "account" and "accounts" stay apart from each other as
// words of other meanings do. Every rule that compares word forms (dedup,
// contradictions, promotion's word binding, consolidation's grouping)
// uses it, so a word meets its inflections alike everywhere. The original
// Porter (1980) stemmer was not used: it makes "deploy" "deploi" but
// "deployment" "deploy".
//
// Words of two letters or fewer, and words with anything but the letters a-z
// (digits, non-ASCII), are left as they are. R1 starts after "gener",
// "commun" or "arsen" (the description's three; later revisions add more).
func Stem(w string) string { return stem(w, false) }

// Root is Stem that also folds a few derivational suffixes (see
// derivational and able), "deployment" to "deploy", "connection" to
// "connect", "reachable" to "reach": for promotion's word binding, where a
// note names a row's subject in another part of speech. Dedup must not use
// it: "product" is not "production".
func Root(w string) string { return stem(w, true) }

func stem(w string, derive bool) string {
	if s, ok := invariantStems[w]; ok {
		return s
	}
	if len(w) <= 2 || strings.TrimLeft(w, "abcdefghijklmnopqrstuvwxyz") != "" {
		return w
	}
	s := newStemWord(w)
	s.step1a()
	if stopAfter1a[s.String()] {
		return s.String()
	}
	s.step1b()
	s.step1c()
	if derive {
		s.apply(derivational, s.r2)
		s.able()
	}
	s.step5()
	return s.String()
}

// able cuts "-able" and "-ible" in R1 from a stem that keeps at least four
// letters, so that "reachable" meets "reach" and "deployable" "deploy"
// (Porter2 cuts them in R2 only, which leaves "reachabl"). Shorter stems
// ("capable", "notable", "visible") and the nouns in invariantStems keep
// theirs.
func (s *stemWord) able() {
	for _, suf := range []string{"able", "ible"} {
		if at := s.before(suf); s.has(suf) && at >= s.r1 && at >= 4 {
			s.b = s.b[:at]
			return
		}
	}
}

// invariantStems are the algorithm's exceptional forms, stemmed as a whole.
var invariantStems = map[string]string{
	"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
	"idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli", "singly": "singl",
	"sky": "sky", "news": "news", "constable": "constabl", "constables": "constabl", "vegetable": "vegetabl", "vegetables": "vegetabl", "howe": "howe", "atlas": "atlas", "cosmos": "cosmos", "bias": "bias", "andes": "andes",
}

// stopAfter1a are words left as step 1a leaves them.
var stopAfter1a = set(strings.Fields(`inning outing canning herring earring proceed exceed succeed`)...)

// stemWord is a word being stemmed: its letters, with a 'y' that acts as a
// consonant (at the start or after a vowel) written 'Y', and where its
// regions R1 and R2 start. Suffixes are only ever removed, so the regions
// keep their starts.
type stemWord struct {
	b      []byte
	r1, r2 int
}

func newStemWord(w string) *stemWord {
	b := []byte(w)
	for i := range b {
		if b[i] == 'y' && (i == 0 || isVowel(b[i-1])) {
			b[i] = 'Y'
		}
	}
	s := &stemWord{b: b, r1: region(b, 0)}
	for _, p := range []string{"gener", "commun", "arsen"} {
		if strings.HasPrefix(w, p) {
			s.r1 = len(p)
		}
	}
	s.r2 = region(b, s.r1)
	return s
}

func (s *stemWord) String() string { return strings.ReplaceAll(string(s.b), "Y", "y") }

// isVowel: 'Y' (a consonant y) is not one.
func isVowel(c byte) bool {
	return strings.IndexByte("aeiouy", c) >= 0
}

// region returns where the region after the first non-vowel that follows a
// vowel at or after from starts (len(b) when there is none).
func region(b []byte, from int) int {
	for i := from + 1; i < len(b); i++ {
		if isVowel(b[i-1]) && !isVowel(b[i]) {
			return i + 1
		}
	}
	return len(b)
}

func containsVowel(b []byte) bool {
	for _, c := range b {
		if isVowel(c) {
			return true
		}
	}
	return false
}

// endsShort reports whether b ends in a short syllable: a non-vowel, a
// vowel and a non-vowel other than w, x and Y; or, as the whole of b, a
// vowel and a non-vowel.
func endsShort(b []byte) bool {
	n := len(b)
	switch {
	case n == 2:
		return isVowel(b[0]) && !isVowel(b[1])
	case n > 2:
		last := b[n-1]
		return !isVowel(b[n-3]) && isVowel(b[n-2]) && !isVowel(last) && last != 'w' && last != 'x' && last != 'Y'
	}
	return false
}

func (s *stemWord) has(suffix string) bool { return strings.HasSuffix(string(s.b), suffix) }

// before is the index where suffix would start.
func (s *stemWord) before(suffix string) int { return len(s.b) - len(suffix) }

// replace swaps the word's suffix (which it ends with) for with.
func (s *stemWord) replace(suffix, with string) {
	s.b = append(s.b[:s.before(suffix)], with...)
}

// longest returns the longest of suffixes the word ends with ("" for none).
// Each step acts on that one alone: when its condition fails, a shorter
// suffix is not tried.
func (s *stemWord) longest(suffixes []string) string {
	best := ""
	for _, x := range suffixes {
		if len(x) > len(best) && s.has(x) {
			best = x
		}
	}
	return best
}

// step1a: plurals ("sses", "ies", "s").
func (s *stemWord) step1a() {
	switch suf := s.longest([]string{"sses", "ied", "ies", "us", "ss", "s"}); suf {
	case "sses":
		s.replace(suf, "ss")
	case "ied", "ies":
		if s.before(suf) > 1 {
			s.replace(suf, "i")
		} else {
			s.replace(suf, "ie")
		}
	case "s":
		if containsVowel(s.b[:len(s.b)-2]) {
			s.replace(suf, "")
		}
	}
}

// step1b: "eed", "ed", "ing" and their "-ly" forms, then the spelling
// the removal leaves ("hoped" → "hope", "hopping" → "hop").
func (s *stemWord) step1b() {
	suf := s.longest([]string{"eed", "eedly", "ed", "edly", "ing", "ingly"})
	switch suf {
	case "":
		return
	case "eed", "eedly":
		if s.before(suf) >= s.r1 {
			s.replace(suf, "ee")
		}
		return
	}
	if !containsVowel(s.b[:s.before(suf)]) {
		return
	}
	s.replace(suf, "")
	switch {
	case s.has("at") || s.has("bl") || s.has("iz"):
		s.b = append(s.b, 'e')
	case s.endsDouble():
		s.b = s.b[:len(s.b)-1]
	case endsShort(s.b) && s.r1 >= len(s.b):
		s.b = append(s.b, 'e')
	}
}

func (s *stemWord) endsDouble() bool {
	for _, d := range []string{"bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"} {
		if s.has(d) {
			return true
		}
	}
	return false
}

// step1c: a final y after a consonant that is not the first letter → i.
func (s *stemWord) step1c() {
	n := len(s.b)
	if n > 2 && (s.b[n-1] == 'y' || s.b[n-1] == 'Y') && !isVowel(s.b[n-2]) {
		s.b[n-1] = 'i'
	}
}

// suffixRule replaces a suffix when the part before it allows (nil: any).
type suffixRule struct {
	suffix, with string
	allow        func(before []byte) bool
}

// sub is the rule that replaces suffix with with.
func sub(suffix, with string) suffixRule { return suffixRule{suffix: suffix, with: with} }

// when makes r apply only when the part before the suffix allows it.
func (r suffixRule) when(allow func(before []byte) bool) suffixRule {
	r.allow = allow
	return r
}

// derivational is all Root keeps of Porter2's steps 2 to 4: "-ment"
// and "-ion" after s or t, in R2, so that "deployment" meets "deploy" and
// "connection" meets "connect". The rest fold words of other meanings
// together ("internal" and "international" both become "intern", "operator"
// and "operation" "oper", "experiment" and "experience" "experi"), and a note
// bound to the wrong row by them.
var derivational = []suffixRule{sub("ment", ""), sub("ion", "").when(precededBy("st"))}

// precededBy allows a rule when the letter before the suffix is one of letters.
func precededBy(letters string) func([]byte) bool {
	return func(before []byte) bool {
		return len(before) > 0 && strings.IndexByte(letters, before[len(before)-1]) >= 0
	}
}

// apply applies the rule for the longest suffix among rules, when that
// suffix starts at or after from (R1 or R2) and the rule allows it.
func (s *stemWord) apply(rules []suffixRule, from int) {
	var r *suffixRule
	for i := range rules {
		if s.has(rules[i].suffix) && (r == nil || len(rules[i].suffix) > len(r.suffix)) {
			r = &rules[i]
		}
	}
	if r == nil {
		return
	}
	at := s.before(r.suffix)
	if at < from || r.allow != nil && !r.allow(s.b[:at]) {
		return
	}
	s.replace(r.suffix, r.with)
}

// step5 removes a final e (in R2, or in R1 after a syllable that is not
// short) and the second l of a final "ll" in R2.
func (s *stemWord) step5() {
	n := len(s.b)
	switch {
	case s.has("e") && (n-1 >= s.r2 || n-1 >= s.r1 && !endsShort(s.b[:n-1])):
		s.b = s.b[:n-1]
	case s.has("ll") && n-1 >= s.r2:
		s.b = s.b[:n-1]
	}
}

// set is a set of words.
func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// ownPlurals are nouns in -s whose meaning is their own, not many of what
// the word without the s names: nouns used only in the plural (pluralia
// tantum: "glasses", "goods", "customs", "savings", "clothes"), plurals
// that became words of their own ("news", "arms", "sales", "odds",
// "means", "quarters", "futures") and the names of fields in -ics
// ("physics", "politics"). Dedup keeps their s: "the news team" is not
// "the new team", nor "customs" "custom". (Stem still folds them, as the
// full-text index has them: a search reads wider than dedup writes.)
//
// A word is listed as written and as the keys spell it once British forms
// are folded (american: "premises" is read as "premizes"), so that the
// folding does not take the s it keeps.
var ownPlurals = withAmerican(set(strings.Fields(`news glasses spectacles arms goods customs savings earnings winnings means
	series species odds sales proceeds remains premises quarters headquarters damages manners spirits
	grounds futures securities shorts briefs trousers scissors pliers surroundings belongings outskirts
	whereabouts thanks clothes lodgings valuables riches physics politics economics mathematics ethics
	logistics analytics electronics mechanics athletics genetics linguistics statistics acoustics
	aesthetics optics robotics semantics dynamics particulars honors honours https`)...))

// withAmerican adds to a set of words each one's American spelling.
func withAmerican(words map[string]bool) map[string]bool {
	for w := range words {
		words[american(w)] = true
	}
	return words
}
