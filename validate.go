package memory

import (
	"math"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits shared by every kind of entry. Content size limits are configurable
// per service; these are structural.
const (
	MaxIDLen               = 128
	MaxTagLen              = 64
	MaxTags                = 32
	DefaultMaxContentBytes = 32 << 10
)

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]*$`)

// CheckID validates a caller-supplied identifier: 1..128 characters of letters,
// digits, '.', '_', ':' and '-', starting with a letter or digit. kind names the
// argument in the message ("fact_id").
func CheckID(kind, id string) error {
	switch {
	case id == "":
		return Errorf(EINVALID, "%s is empty", kind)
	case len(id) > MaxIDLen:
		return Errorf(EINVALID, "%s is %d characters long; the limit is %d", kind, len(id), MaxIDLen)
	case !idPattern.MatchString(id):
		return Errorf(EINVALID, "%s %q may contain only letters, digits, '.', '_', ':' and '-', and must start with a letter or digit", kind, id)
	}
	return nil
}

// CheckContent rejects text that is empty (or only white space), not valid
// UTF-8, or larger than maxBytes. field names the argument in the message.
func CheckContent(field, text string, maxBytes int) error {
	switch {
	case strings.TrimSpace(text) == "":
		return Errorf(EINVALID, "%s is empty", field)
	case !utf8.ValidString(text):
		return Errorf(EINVALID, "%s is not valid UTF-8", field)
	case maxBytes > 0 && len(text) > maxBytes:
		return Errorf(EINVALID, "%s is %d bytes; the limit is %d bytes (%d over): shorten it or split it into several entries",
			field, len(text), maxBytes, len(text)-maxBytes)
	}
	return nil
}

// NormalizeTags trims tags, drops empty ones and duplicates (keeping the first
// spelling), and enforces the tag limits. The result is never nil.
func NormalizeTags(tags []string) ([]string, error) {
	out := make([]string, 0, len(tags))
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t == "" || seen[t] {
			continue
		}
		if n := utf8.RuneCountInString(t); n > MaxTagLen {
			return nil, Errorf(EINVALID, "tag %q is %d characters long, longer than %d characters", clip(t, MaxTagLen), n, MaxTagLen)
		}
		if !utf8.ValidString(t) || strings.ContainsFunc(t, unicode.IsControl) {
			return nil, Errorf(EINVALID, "tag %q is not a one-line label: it holds a line break, tab or other control character, or invalid UTF-8", clip(t, MaxTagLen))
		}
		seen[t] = true
		out = append(out, t)
	}
	if len(out) > MaxTags {
		return nil, Errorf(EINVALID, "%d tags given; the limit is %d", len(out), MaxTags)
	}
	return out, nil
}

// clip shortens text to its first n characters, marking the cut with "…",
// so that a message never echoes a huge argument back whole.
func clip(text string, n int) string {
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	return string([]rune(text)[:n]) + "…"
}

// Times are stored as int64 unix nanoseconds, which span these years.
var (
	minTime = time.Unix(0, math.MinInt64).UTC()
	maxTime = time.Unix(0, math.MaxInt64).UTC()
)

// ParseTime parses an RFC 3339 timestamp given as argument field. An empty
// string yields the zero time and no error; a time outside the years
// 1678-2262 (what storage can represent) is rejected.
func ParseTime(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, Errorf(EINVALID, "%s %q is not an RFC 3339 time; use a form like 2026-03-01T12:00:00Z", field, s)
	}
	if t.Before(minTime) || t.After(maxTime) {
		return time.Time{}, Errorf(EINVALID, "%s %s is out of range: use a time between 1678 and 2262", field, s)
	}
	return t.UTC(), nil
}

// CheckLimit validates a result limit: 0 means def, otherwise 1..max.
func CheckLimit(limit, def, max int) (int, error) {
	if limit == 0 {
		return def, nil
	}
	if limit < 1 || limit > max {
		return 0, Errorf(EINVALID, "limit %d is out of range: use 1 to %d", limit, max)
	}
	return limit, nil
}
