package main

import "testing"

// TestStoredTextRefusesControlCharacters: content made of NUL or terminal
// escapes is refused, naming the character and where it is, in every tool
// that stores free text (tags already were).
func TestStoredTextRefusesControlCharacters(t *testing.T) {
	s := start(t, options{args: []string{"--agent-id", "ctl"}})
	var f factResult
	s.ok("publish_fact", map[string]any{"fact_id": "f", "content": "Clean.", "category": "adr"}, &f)
	var m memoryResult
	s.ok("remember", map[string]any{"content": "Clean."}, &m)
	const at0 = " at byte 0: remove it"
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"publish_fact", map[string]any{"content": "\x1b[2J\x1b[H", "category": "adr"}, "content holds control character U+001B (ESC)" + at0},
		{"remember", map[string]any{"content": "\x00\x00\x00"}, "content holds control character U+0000 (NUL)" + at0},
		{"remember", map[string]any{"content": "ok", "source": "web\a"}, "source holds control character U+0007 (BEL) at byte 3"},
		{"write_note", map[string]any{"text": "issue: \u009b31m red"}, "text holds control character U+009B (CSI) at byte 7"},
		{"memory_block_append", map[string]any{"label": "persona", "text": "x\x7f"}, "text holds control character U+007F (DEL) at byte 1"},
		{"memory_block_create", map[string]any{"label": "b", "description": "d\x1b"}, "description of block b holds control character U+001B (ESC) at byte 1"},
		{"retract_fact", map[string]any{"fact_id": "f", "reason": "\x1b]0;x\a"}, "reason holds control character U+001B (ESC)" + at0},
		{"forget", map[string]any{"id": m.ID, "reason": "gone\x00"}, "reason holds control character U+0000 (NUL) at byte 4"},
	}
	for _, tt := range tests {
		s.fail(tt.tool, tt.args, "EINVALID", tt.want)
	}
	var facts factsResult
	s.ok("list_facts", map[string]any{"category": "adr"}, &facts)
	if len(facts.Facts) != 1 || !facts.Facts[0].Active() {
		t.Fatalf("a refused write changed the facts: %+v", facts.Facts)
	}
}
