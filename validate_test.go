package memory

import (
	"strings"
	"testing"
	"time"
)

func TestCheckText(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // "" = accepted
	}{
		{"plain", "Use JWT.", ""},
		{"tab, newline, carriage return", "a\tb\r\nc\n", ""},
		{"non-breaking space and line separator", "a\u00a0b\u2028c", ""},
		{"emoji", "go 🚀", ""},
		{"NUL only", "\x00\x00\x00", "content holds control character U+0000 (NUL) at byte 0: remove it"},
		{"terminal escape", "red: \x1b[31m", "content holds control character U+001B (ESC) at byte 5: remove it"},
		{"bell", "ding\a", "content holds control character U+0007 (BEL) at byte 4: remove it"},
		{"vertical tab", "a\vb", "content holds control character U+000B (VT) at byte 1: remove it"},
		{"form feed", "a\fb", "content holds control character U+000C (FF) at byte 1: remove it"},
		{"unit separator", "a\x1fb", "content holds control character U+001F (US) at byte 1: remove it"},
		{"DEL", "abc\x7f", "content holds control character U+007F (DEL) at byte 3: remove it"},
		{"C1 first", "é\u0080", "content holds control character U+0080 (PAD) at byte 2: remove it"},
		{"C1 NEL", "a\u0085b", "content holds control character U+0085 (NEL) at byte 1: remove it"},
		{"C1 CSI", "\u009b31m", "content holds control character U+009B (CSI) at byte 0: remove it"},
		{"C1 last", "x\u009f", "content holds control character U+009F (APC) at byte 1: remove it"},
		{"first of several", "ok\x00\x1b", "content holds control character U+0000 (NUL) at byte 2: remove it"},
		{"invalid UTF-8", "a\xffb", "content is not valid UTF-8"},
		{"too long", strings.Repeat("x", 11), "content is 11 bytes; the limit is 10 bytes (1 over)"},
	}
	for _, tt := range tests {
		err := CheckText("content", tt.text, 10)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if ErrorCode(err) != EINVALID || !strings.HasPrefix(ErrorMessage(err), tt.want) {
			t.Errorf("%s: %v, want EINVALID %q", tt.name, err, tt.want)
		}
	}
	if err := CheckText("reason", "", 0); err != nil {
		t.Errorf("empty text is the caller's rule: %v", err)
	}
	if err := CheckContent("content", "\x1b", 0); ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), "ESC") {
		t.Errorf("CheckContent takes escape-only content: %v", err)
	}
	if err := CheckContent("content", " \n\t", 0); ErrorMessage(err) != "content is empty" {
		t.Errorf("blank content: %v", err)
	}
}

var testNow = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// TestStoredTextRefusesControlCharacters: every free text a caller can store
// goes through CheckText, so each refuses an escape sequence and names the
// argument.
func TestStoredTextRefusesControlCharacters(t *testing.T) {
	const esc = "look \x1b]0;pwned\a here"
	intp := func(i int) *int { return &i }
	tests := []struct {
		field string
		check func() error
	}{
		{"content", func() error { w := FactWrite{Content: esc, Category: FactADR}; return w.Validate(0) }},
		{"content", func() error { w := EntryWrite{Content: esc}; return w.Validate(0, testNow) }},
		{"source", func() error { w := EntryWrite{Content: "x", Source: esc}; return w.Validate(0, testNow) }},
		{"text", func() error { w := NoteWrite{Text: esc}; return w.Validate(0) }},
		{"value", func() error { s := BlockSpec{Label: "b", Description: "d", Value: esc}; return s.Validate() }},
		{"description of block b", func() error { s := BlockSpec{Label: "b", Description: esc}; return s.Validate() }},
		{"text", func() error { e := BlockEdit{Label: "b", Op: BlockAppend, Text: esc}; return e.Validate() }},
		{"text", func() error { e := BlockEdit{Label: "b", Op: BlockInsert, Text: esc}; return e.Validate() }},
		{"text", func() error {
			e := BlockEdit{Label: "b", Op: BlockRethink, Text: esc, ExpectedVersion: intp(1)}
			return e.Validate()
		}},
		{"new_text", func() error {
			e := BlockEdit{Label: "b", Op: BlockReplace, OldText: "x", NewText: esc}
			return e.Validate()
		}},
		{"drop_reason", func() error { return PendingDecision{PendingID: 1, DropReason: esc}.Validate() }},
		{"reason", func() error { return CheckReason("reason", esc) }},
		{"query", func() error { q := Query{Text: esc}; return q.Validate() }},
	}
	for _, tt := range tests {
		err := tt.check()
		if ErrorCode(err) != EINVALID || ErrorMessage(err) != tt.field+" holds control character U+001B (ESC) at byte 5: remove it" {
			t.Errorf("%s: %v", tt.field, err)
		}
	}
	// old_text is looked for, not stored: it may name a control character
	// an older block holds, so that it can be removed.
	e := BlockEdit{Label: "b", Op: BlockReplace, OldText: esc, NewText: "look here"}
	if err := e.Validate(); err != nil {
		t.Errorf("old_text with a control character: %v", err)
	}
	// What the interpreter proposes is held to the same rule.
	r := WriteRequest{Decision: DecisionAccept, Bucket: BucketLearnings, Operation: OpAppend, Payload: Payload{Text: esc}, Confidence: 0.9}
	if v := r.Check(); v == nil || v.Message != "payload.text holds control character U+001B (ESC) at byte 5: remove it" {
		t.Errorf("write request: %v", v)
	}
}
