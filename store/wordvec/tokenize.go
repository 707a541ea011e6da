package wordvec

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokens calls emit with each word of text, lower-cased, in the form the
// table spells it (GloVe's vocabulary: lower case, no punctuation, no
// contractions, no single letters, no digits). What it does to get there:
//   - contractions become words: "don't" -> do not, "can't" -> can not,
//     "we're" -> we are; "Caroline's" -> caroline (the possessive or "is"
//     adds nothing a vector can use);
//   - identifiers are split: "pandas_import_blocker" and "pandasImportBlocker"
//     -> pandas import blocker, plus the whole identifier joined
//     ("pandasimportblocker") so that it still matches itself exactly;
//     joined forms the table knows ("iPhone", "YouTube") stay whole;
//   - single letters ("a", "I", the "s" of "U.S.") are dropped; numbers
//     are kept, for they carry facts ("4 years", "2022").
func (t *table) tokens(text string, emit func(string)) {
	start := -1
	for i, r := range text {
		if inChunk(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			t.chunk(text[start:i], emit)
			start = -1
		}
	}
	if start >= 0 {
		t.chunk(text[start:], emit)
	}
}

var apostrophes = strings.NewReplacer("\u2019", "'", "\u2018", "'", "\u02bc", "'", "`", "'")

// inChunk reports whether r belongs to a chunk: a run of letters, digits,
// combining marks, apostrophes (typographic ones too) and underscores.
func inChunk(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '\'' || r == '_' || r == '`'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || r == '\u2019' || r == '\u2018' || r == '\u02bc'
}

// chunk emits the words of one chunk. Most chunks are plain words; only
// the rest pay for contraction and identifier handling.
func (t *table) chunk(c string, emit func(string)) {
	if !plain(c) {
		c = apostrophes.Replace(c)
	}
	c = trim(c)
	switch {
	case c == "":
	case plain(c):
		if 'A' <= c[0] && c[0] <= 'Z' {
			c = strings.ToLower(c)
		}
		word(c, emit)
	case strings.IndexByte(c, '\'') >= 0:
		t.contraction(c, emit)
	default:
		t.identifier(c, emit)
	}
}

// trim cuts leading and trailing apostrophes and underscores.
func trim(c string) string {
	for c != "" && (c[0] == '\'' || c[0] == '_') {
		c = c[1:]
	}
	for c != "" && (c[len(c)-1] == '\'' || c[len(c)-1] == '_') {
		c = c[:len(c)-1]
	}
	return c
}

// plain reports whether c is ASCII letters and digits with at most its
// first letter in upper case: one word as it stands.
func plain(c string) bool {
	for i := 0; i < len(c); i++ {
		b := c[i]
		lower := 'a' <= b && b <= 'z' || '0' <= b && b <= '9'
		if !lower && (i > 0 || b < 'A' || b > 'Z') {
			return false
		}
	}
	return true
}

// identifier emits a chunk without apostrophes: whole when it is one word
// or when the table knows its joined form, else its parts and the joined form.
func (t *table) identifier(chunk string, emit func(string)) {
	parts := splitIdentifier(chunk)
	joined := strings.ToLower(strings.Join(parts, ""))
	if _, known := t.index[joined]; len(parts) == 1 || known {
		word(joined, emit)
		return
	}
	for _, p := range parts {
		word(strings.ToLower(p), emit)
	}
	emit(joined)
}

// splitIdentifier splits at underscores and camelCase humps: "parseHTTPRequest"
// -> parse HTTP Request. A run of capitals followed by a lower-case letter
// ends before its last capital.
func splitIdentifier(s string) []string {
	var parts []string
	for _, field := range strings.Split(s, "_") {
		rs := []rune(field)
		start := 0
		for i := 1; i < len(rs); i++ {
			hump := unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i])
			acronymEnd := unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if hump || acronymEnd {
				parts = append(parts, string(rs[start:i]))
				start = i
			}
		}
		if start < len(rs) {
			parts = append(parts, string(rs[start:]))
		}
	}
	return parts
}

// contraction emits the words of a chunk holding apostrophes.
func (t *table) contraction(chunk string, emit func(string)) {
	i := strings.LastIndexByte(chunk, '\'')
	stem, suffix := chunk[:i], strings.ToLower(chunk[i+1:])
	if suffix == "t" && strings.HasSuffix(strings.ToLower(stem), "n") {
		stem = stem[:len(stem)-1]
		if full, ok := negatedStems[strings.ToLower(stem)]; ok {
			stem = full
		}
		suffix = "not"
	} else if full, ok := contractedSuffixes[suffix]; ok {
		suffix = full
	}
	for _, p := range strings.Split(stem, "'") {
		if p = trim(p); p != "" {
			t.identifier(p, emit)
		}
	}
	word(suffix, emit)
}

// negatedStems are the stems of n't that are not words: ca(n't), wo(n't).
var negatedStems = map[string]string{"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}

// contractedSuffixes expand what follows an apostrophe; "" drops it.
var contractedSuffixes = map[string]string{"s": "", "re": "are", "ve": "have", "ll": "will", "m": "am", "d": "would"}

// word emits w unless it is empty or a single letter.
func word(w string, emit func(string)) {
	r, size := utf8.DecodeRuneInString(w)
	if w == "" || (size == len(w) && !unicode.IsDigit(r)) {
		return
	}
	emit(w)
}
