package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"
	"unicode"

	memory "github.com/memory-mcp/memory-mcp"
)

// funcs are the templates' helpers. None of them returns markup: every value
// reaches the page through html/template's escaping, memory text included.
var funcs = template.FuncMap{
	"when":   when,
	"whenp":  func(t *time.Time) string { return when(deref(t)) },
	"args":   arguments,
	"pct":    func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
	"ms":     func(f float64) string { return fmt.Sprintf("%.2f", f) },
	"num":    func(f float64) string { return fmt.Sprintf("%.2f", f) },
	"join":   strings.Join,
	"add":    func(a, b int) int { return a + b },
	"mod":    func(a, b int) int { return a % b },
	"newKey": newKey,
	"under":  func(path, section string) bool { return path == section || strings.HasPrefix(path, section+"/") },
	"deref":  func(s *string) string { return derefString(s) },
	"side":   side,
}

// factSide is one side of a conflict between facts, for the conflicts page.
type factSide struct {
	Prefix, Which, ID string
	Version           int // the version that clashed
	Fact              *memory.Fact
}

func side(prefix, which, id string, version int, f *memory.Fact) factSide {
	return factSide{Prefix: prefix, Which: which, ID: id, Version: version, Fact: f}
}

// when renders a time in UTC to the second; the zero time as a dash.
func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// argument is one argument of a held call, for reading: a string as it
// is, anything else as JSON.
type argument struct {
	Name, Value string
}

// arguments lays out a call's arguments (a JSON object) one by one, in
// name order; anything else as one unnamed value.
func arguments(s string) []argument {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &m) != nil {
		return []argument{{Value: s}}
	}
	out := make([]argument, 0, len(m))
	for k, v := range m {
		a := argument{Name: k, Value: string(v)}
		var str string
		if json.Unmarshal(v, &str) == nil {
			a.Value = str
		} else {
			var b bytes.Buffer
			if json.Indent(&b, v, "", "  ") == nil {
				a.Value = b.String()
			}
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b argument) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// visible shows, as a marker like ⟨U+202E⟩, each character that changes how
// text reads without being seen itself: format characters (bidirectional
// overrides and isolates, zero-width spaces and joiners, tags), control
// characters other than tab and line breaks, line and paragraph
// separators, and the Hangul fillers that render as nothing. A human
// approving a write must read what is stored, not a reordering of it
// ("Trojan Source"). The markers are plain text, so they need no escaping
// of their own and can go anywhere on a page.
func visible(s string) string {
	if strings.IndexFunc(s, invisible) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if invisible(r) {
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func invisible(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	case 0x115F, 0x1160, 0x3164, 0xFFA0: // Hangul fillers
		return true
	}
	return unicode.In(r, unicode.Cf, unicode.Cc, unicode.Zl, unicode.Zp)
}
