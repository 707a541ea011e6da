package main

import (
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
