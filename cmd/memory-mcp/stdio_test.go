package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestNotText(t *testing.T) {
	tests := []struct {
		line string
		want string // "" = text; else a part of the problem
	}{
		{`{"a":"plain"}`, ""},
		{`{"a":"é 🚀 \u00e9 \ud83d\ude80 \uD83D\uDE80"}`, ""},
		{`{"a":"C:\\udc80 is a path"}`, ""},              // an escaped backslash, then the letters udc80
		{`{"a":"\\\udc80"}`, `holds \udc80 at offset 8`}, // an escaped backslash, then an escape
		{`{"a":"\udc80"}`, `holds \udc80 at offset 6`},
		{`{"a":"\ud83d"}`, `holds \ud83d at offset 6`},
		{`{"a":"\ud83d\u0041"}`, `holds \ud83d at offset 6`}, // a high half not followed by a low one
		{`{"a":"\ud83d\ud83d\ude80"}`, `holds \ud83d at offset 6`},
		{`{"a":"x\ud83d`, `holds \ud83d at offset 7`}, // cut short after the escape
		{`{"a":"\u12"}`, ""},                          // malformed: the JSON parser's business
		{"{\"a\":\"\xc3\"}", "byte 0xC3 at offset 6"},
		{"{\"a\":\"\xed\xb2\x80\"}", "byte 0xED at offset 6"}, // a surrogate encoded in UTF-8 is invalid UTF-8
	}
	for _, tt := range tests {
		got := notText([]byte(tt.line))
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("notText(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

// FuzzNotText holds notText to what it is for: a message it passes decodes
// to exactly the text sent (encoding/json puts U+FFFD only where the message
// itself has one), and a valid JSON message it refuses would not have.
func FuzzNotText(f *testing.F) {
	for _, s := range []string{`{"a":"plain"}`, `{"a":"\ud83d\ude80"}`, `{"a":"\udc80"}`, "{\"a\":\"\xc3\"}", `{"\ud83d":1}`,
		`{"a":["\\\udc80",{"b":"\uFFFD"}]}`, "{\"a\":\"\xef\xbf\xbd\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		problem := notText(line)
		var v any
		if json.Unmarshal(line, &v) != nil {
			return // not JSON: mcp-go refuses it, whatever notText says
		}
		sent := bytes.Contains(line, []byte("\uFFFD")) || bytes.Contains(bytes.ToLower(line), []byte(`\ufffd`))
		replaced := strings.Contains(strings.Join(decodedStrings(v, nil), "\x00"), "\uFFFD")
		switch {
		case problem == "" && replaced && !sent:
			t.Errorf("notText passed %q, which decodes with U+FFFD in place of what was sent", line)
		case problem != "" && !replaced:
			t.Errorf("notText refused %q (%s), which decodes to what was sent", line, problem)
		}
	})
}

// decodedStrings collects every string, keys included, of a decoded JSON value.
func decodedStrings(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case []any:
		for _, e := range v {
			out = decodedStrings(e, out)
		}
	case map[string]any:
		for k, e := range v {
			out = decodedStrings(e, append(out, k))
		}
	}
	return out
}
