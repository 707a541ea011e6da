package memory

import (
	"fmt"
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

// CheckContent rejects text that is empty (or only white space), or that
// CheckText rejects. field names the argument in the message.
func CheckContent(field, text string, maxBytes int) error {
	if strings.TrimSpace(text) == "" {
		return Errorf(EINVALID, "%s is empty", field)
	}
	return CheckText(field, text, maxBytes)
}

// CheckText rejects text a caller may not store: invalid UTF-8, a control
// character other than tab, line feed and carriage return, or more than
// maxBytes bytes (0: no limit). Empty text passes; whether it may be empty is
// the caller's rule. Stored text is shown to other models and printed in
// terminals and logs, where NUL ends strings and ESC starts a terminal
// command, so such characters are refused rather than kept or replaced.
func CheckText(field, text string, maxBytes int) error {
	if !utf8.ValidString(text) {
		return Errorf(EINVALID, "%s is not valid UTF-8", field)
	}
	if i := strings.IndexFunc(text, forbiddenControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(text[i:])
		return Errorf(EINVALID, "%s holds control character %s at byte %d: remove it", field, controlName(r), i)
	}
	if maxBytes > 0 && len(text) > maxBytes {
		return Errorf(EINVALID, "%s is %d bytes; the limit is %d bytes (%d over): shorten it or split it into several entries",
			field, len(text), maxBytes, len(text)-maxBytes)
	}
	return nil
}

// CheckReason rejects a reason (why a fact is retracted, a memory forgotten)
// that CheckText rejects or that is longer than MaxReasonBytes.
func CheckReason(field, reason string) error {
	if err := CheckText(field, reason, 0); err != nil {
		return err
	}
	if len(reason) > MaxReasonBytes {
		return Errorf(EINVALID, "%s is %d bytes; the limit is %d", field, len(reason), MaxReasonBytes)
	}
	return nil
}

// forbiddenControl reports whether r is a control character stored text may
// not hold: C0 (NUL, ESC, ...) but tab, line feed and carriage return; DEL;
// and C1 (U+0080-U+009F, among them CSI, which terminals read as ESC [).
func forbiddenControl(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r >= 0x7f && r <= 0x9f
}

// controlNames are the standard abbreviations of the C0 and C1 controls.
var controlNames = [...]string{
	"NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR", "SO", "SI",
	"DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US",
	"PAD", "HOP", "BPH", "NBH", "IND", "NEL", "SSA", "ESA", "HTS", "HTJ", "VTS", "PLD", "PLU", "RI", "SS2", "SS3",
	"DCS", "PU1", "PU2", "STS", "CCH", "MW", "SPA", "EPA", "SOS", "SGCI", "SCI", "CSI", "ST", "OSC", "PM", "APC",
}

// controlName names a control character for a message: "U+001B (ESC)".
func controlName(r rune) string {
	name := ""
	switch {
	case r < 0x20:
		name = controlNames[r]
	case r == 0x7f:
		name = "DEL"
	case r >= 0x80 && r <= 0x9f:
		name = controlNames[r-0x80+0x20]
	}
	if name == "" {
		return fmt.Sprintf("U+%04X", r)
	}
	return fmt.Sprintf("U+%04X (%s)", r, name)
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
