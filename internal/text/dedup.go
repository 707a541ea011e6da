package text

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
)

// DedupKeys are the keys remember finds a repeated memory by: Exact, the
// content with case and runs of white space folded; Words, the sequence of
// its words with case, punctuation, articles, the present of "to be" and
// plural endings folded, so that "The deploy window is Friday." and "deploy
// window: Friday" are one statement while "Alice owes Bob" and "Bob owes
// Alice", "is" and "is not", "is" and "was", "Tuesday" and "Wednesday", "A+"
// and "A-", "10%" and "$10" stay apart. Both are hex SHA-256.
func DedupKeys(content string) (exact, words string) {
	e := sha256.Sum256([]byte(strings.Join(strings.Fields(strings.ToLower(content)), " ")))
	w := sha256.Sum256([]byte(strings.Join(dedupWords(content), " ")))
	return hex.EncodeToString(e[:]), hex.EncodeToString(w[:])
}

// foldedWords are left out of a memory's word key: they change how a
// statement reads, not what it says. The past of "to be" is not among
// them: "Dana was the lead" is not "Dana is the lead".
var foldedWords = map[string]bool{"a": true, "an": true, "the": true, "is": true, "are": true, "am": true,
	"be": true, "been": true}

// wordForms fold what differs only in form: "were" says what "was" says.
var wordForms = map[string]string{"were": "was"}

// negated spells out the verb of a contraction with n't, so that "doesn't"
// and "does not" are the same words.
var negated = map[string]string{"is": "is", "are": "are", "was": "was", "were": "was", "do": "do", "does": "does",
	"did": "did", "ca": "can", "wo": "will", "should": "should", "would": "would", "could": "could", "has": "has",
	"have": "have", "had": "had", "must": "must", "need": "need", "ai": "is"}

// signs are the characters that are words of their own in a word key:
// they change what a statement says ("C++", "10%", "UTC+2", ">= 18", "3/4").
func sign(r rune) bool {
	return unicode.IsSymbol(r) || strings.ContainsRune("#%&@/*", r)
}

func dedupWords(content string) []string {
	orig := []rune(content)
	rs := make([]rune, len(orig))
	for i, r := range orig {
		rs[i] = unicode.ToLower(r)
	}
	var out []string
	start := -1           // where the word being read began
	sentenceStart := true // no word yet since the sentence began
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := string(rs[start:end])
		switch {
		case w == "a" && orig[start] == 'A' && !sentenceStart:
			// "plan A" is not "a plan": a capital A inside a sentence is a name.
			out = append(out, "A")
		case w == "am" && len(out) > 0 && endsInDigit(out[len(out)-1]):
			out = append(out, w) // "9 am" is not "9"
		default:
			out = appendWord(out, w)
		}
		start, sentenceStart = -1, false
	}
	alnum := func(i int) bool { return i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i])) }
	for i, r := range rs {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
		switch {
		case r == '.' || r == '!' && !(i+1 < len(rs) && rs[i+1] == '=') || r == '?' || r == ':' || r == ';' || r == '\n':
			sentenceStart = true
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
		case r == '-' && !(alnum(i-1) && alnum(i+1)) && (alnum(i-1) || alnum(i+1)):
			// A minus ("-4") or a trailing sign ("A-"), not a hyphen
			// ("read-only", "2026-03-01"), which folds like a space.
			out = append(out, "-")
		}
	}
	flush(len(rs))
	return out
}

func endsInDigit(w string) bool {
	return w != "" && unicode.IsDigit(rune(w[len(w)-1]))
}

// appendWord adds word w to a word key.
func appendWord(out []string, w string) []string {
	w = strings.Trim(w, "'’")
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	if w == "" || foldedWords[w] {
		return out
	}
	// "isn't", "don't": the negation stays a word of its own.
	if stem, ok := strings.CutSuffix(strings.ReplaceAll(w, "’", "'"), "n't"); ok {
		if stem = negated[stem]; stem != "" && !foldedWords[stem] {
			out = append(out, singular(stem))
		}
		return append(out, "not")
	}
	if f, ok := wordForms[w]; ok {
		w = f
	}
	return append(out, singular(w))
}

// singular drops a plural (or third-person) s from a word of more than
// three letters, but not from -ss, -us or -is.
func singular(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") {
		return strings.TrimSuffix(w, "s")
	}
	return w
}
