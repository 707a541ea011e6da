package memory_test

import (
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

func intp(i int) *int { return &i }

func TestBlockEditApply(t *testing.T) {
	tests := []struct {
		name  string
		value string
		edit  memory.BlockEdit
		want  string
		err   string // substring of the error; "" for success
	}{
		{"append to empty", "", memory.BlockEdit{Op: memory.BlockAppend, Text: "likes Go"}, "likes Go", ""},
		{"append on new line", "likes Go", memory.BlockEdit{Op: memory.BlockAppend, Text: "uses vim"}, "likes Go\nuses vim", ""},
		{"append after trailing newline", "likes Go\n", memory.BlockEdit{Op: memory.BlockAppend, Text: "uses vim"}, "likes Go\nuses vim", ""},
		{"replace once", "name: Ann\nrole: dev", memory.BlockEdit{Op: memory.BlockReplace, OldText: "dev", NewText: "lead"}, "name: Ann\nrole: lead", ""},
		{"replace with nothing deletes", "a b c", memory.BlockEdit{Op: memory.BlockReplace, OldText: " b", NewText: ""}, "a c", ""},
		{"replace multi-line", "x\ny\nz", memory.BlockEdit{Op: memory.BlockReplace, OldText: "x\ny", NewText: "w"}, "w\nz", ""},
		{"replace missing", "name: Ann", memory.BlockEdit{Label: "human", Op: memory.BlockReplace, OldText: "Bob", NewText: "Bo"}, "",
			"old_text was not found in block human"},
		{"replace with line numbers copied", "name: Ann", memory.BlockEdit{Label: "human", Op: memory.BlockReplace, OldText: "  1| name: Ann", NewText: "x"}, "",
			`leave out the "N| " line numbers`},
		{"replace ambiguous", "tea\ncoffee\ntea\nmore tea", memory.BlockEdit{Label: "human", Op: memory.BlockReplace, OldText: "tea", NewText: "milk"}, "",
			"old_text occurs 3 times in block human (lines 1, 3, 4)"},
		{"replace overlapping counts distinct", "aaaa", memory.BlockEdit{Label: "b", Op: memory.BlockReplace, OldText: "aa", NewText: "b"}, "",
			"occurs 2 times in block b (lines 1)"},
		{"insert at top", "b\nc", memory.BlockEdit{Op: memory.BlockInsert, Text: "a", AfterLine: 0}, "a\nb\nc", ""},
		{"insert in middle", "a\nc", memory.BlockEdit{Op: memory.BlockInsert, Text: "b", AfterLine: 1}, "a\nb\nc", ""},
		{"insert at end", "a\nb", memory.BlockEdit{Op: memory.BlockInsert, Text: "c\n", AfterLine: 2}, "a\nb\nc", ""},
		{"insert several lines", "a\nd", memory.BlockEdit{Op: memory.BlockInsert, Text: "b\nc", AfterLine: 1}, "a\nb\nc\nd", ""},
		{"insert into empty", "", memory.BlockEdit{Op: memory.BlockInsert, Text: "a", AfterLine: 0}, "a", ""},
		{"insert past the end", "a\nb", memory.BlockEdit{Label: "project", Op: memory.BlockInsert, Text: "x", AfterLine: 3}, "",
			"after_line 3 is out of range: block project has 2 lines; use 0 (before the first line) to 2 (after the last)"},
		{"rethink", "old", memory.BlockEdit{Op: memory.BlockRethink, Text: "new\nvalue"}, "new\nvalue", ""},
		{"rethink to empty", "old", memory.BlockEdit{Op: memory.BlockRethink, Text: ""}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.edit.Apply(tt.value)
			if tt.err != "" {
				if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Apply = %q, %v; want EINVALID containing %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Apply = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestBlockEditValidate(t *testing.T) {
	tests := []struct {
		name string
		edit memory.BlockEdit
		err  string
	}{
		{"ok append", memory.BlockEdit{Label: "persona", Op: memory.BlockAppend, Text: "x"}, ""},
		{"bad label", memory.BlockEdit{Label: "no spaces", Op: memory.BlockAppend, Text: "x"}, "label \"no spaces\" may contain only"},
		{"empty label", memory.BlockEdit{Op: memory.BlockAppend, Text: "x"}, "label is empty"},
		{"empty append", memory.BlockEdit{Label: "p", Op: memory.BlockAppend, Text: "  "}, "text is empty: give the text to append"},
		{"empty insert", memory.BlockEdit{Label: "p", Op: memory.BlockInsert}, "text is empty: give the text to insert"},
		{"negative line", memory.BlockEdit{Label: "p", Op: memory.BlockInsert, Text: "x", AfterLine: -1}, "after_line -1 is negative"},
		{"empty old text", memory.BlockEdit{Label: "p", Op: memory.BlockReplace, NewText: "x"}, "old_text is empty"},
		{"same texts", memory.BlockEdit{Label: "p", Op: memory.BlockReplace, OldText: "x", NewText: "x"}, "nothing would change"},
		{"rethink without version", memory.BlockEdit{Label: "p", Op: memory.BlockRethink, Text: "x"}, "it needs expected_version"},
		{"rethink with version", memory.BlockEdit{Label: "p", Op: memory.BlockRethink, Text: "", ExpectedVersion: intp(3)}, ""},
		{"zero expected version", memory.BlockEdit{Label: "p", Op: memory.BlockDelete, ExpectedVersion: intp(0)}, "expected_version 0 is not a version"},
		{"restore version 0", memory.BlockEdit{Label: "p", Op: memory.BlockRestore}, "version 0 is not a version"},
		{"invalid utf-8", memory.BlockEdit{Label: "p", Op: memory.BlockAppend, Text: "\xff"}, "text is not valid UTF-8"},
		{"unknown op", memory.BlockEdit{Label: "p", Op: "shred"}, `unknown block edit "shred"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.edit.Validate()
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Validate = %v; want EINVALID containing %q", err, tt.err)
			}
		})
	}
}

func TestCheckBlockLimit(t *testing.T) {
	tests := []struct {
		name          string
		before, after string
		limit         int
		err           string
	}{
		{"under", "", "abc", 3, ""},
		{"over by two", "", "abcde", 3, "block b: it would be 5 characters; its limit is 3 characters (2 over)"},
		{"counts characters, not bytes", "", "ééé", 3, ""},
		{"over-limit block may shrink", "abcdef", "abcde", 3, ""},
		{"over-limit block may not grow", "abcde", "abcdef", 3, "(3 over)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := memory.CheckBlockLimit("b", tt.before, tt.after, tt.limit)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("CheckBlockLimit = %v; want EINVALID containing %q", err, tt.err)
			}
		})
	}
}

func TestBlockSpecValidate(t *testing.T) {
	tests := []struct {
		name string
		spec memory.BlockSpec
		err  string
	}{
		{"ok", memory.BlockSpec{Label: "notes", Description: "My notes."}, ""},
		{"no description", memory.BlockSpec{Label: "notes"}, "description of block notes is empty"},
		{"limit too large", memory.BlockSpec{Label: "notes", Description: "d", Limit: memory.MaxBlockLimit + 1}, "limit 100001 for block notes is out of range"},
		{"value over limit", memory.BlockSpec{Label: "notes", Description: "d", Limit: 4, Value: "abcdef"}, "its value is 6 characters; its limit is 4 characters (2 over)"},
		{"writers on personal block", memory.BlockSpec{Label: "notes", Description: "d", Writers: []string{"bob"}}, "only to shared blocks"},
		{"bad writer", memory.BlockSpec{Label: "notes", Description: "d", Shared: true, Writers: []string{"bob smith"}}, "writers entry"},
		{"any writer", memory.BlockSpec{Label: "notes", Description: "d", Shared: true, Writers: []string{"*", "*"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.Validate()
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if tt.spec.Limit == 0 {
					t.Fatal("limit not defaulted")
				}
				return
			}
			if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Validate = %v; want EINVALID containing %q", err, tt.err)
			}
		})
	}
}

func TestBlockAccess(t *testing.T) {
	ann := memory.Identity{AgentID: "ann", Seniority: memory.SeniorityMid}
	bob := memory.Identity{AgentID: "bob", Seniority: memory.SeniorityMid}
	cy := memory.Identity{AgentID: "cy", Seniority: memory.SeniorityMid}
	alice := memory.Identity{AgentID: "alice", Human: true}
	personal := memory.Block{BlockSummary: memory.BlockSummary{Label: "persona", Owner: "ann"}}
	ownerOnly := memory.Block{BlockSummary: memory.BlockSummary{Label: "plan", Shared: true, Owner: "ann"}}
	team := memory.Block{BlockSummary: memory.BlockSummary{Label: "team", Shared: true, Owner: "ann", Writers: []string{"bob"}, Readers: []string{"cy"}}}
	open := memory.Block{BlockSummary: memory.BlockSummary{Label: "board", Shared: true, Writers: []string{"*"}}}
	rules := memory.Block{BlockSummary: memory.BlockSummary{Label: "rules", Shared: true, ReadOnly: true, Writers: []string{"*"}}}
	tests := []struct {
		b       memory.Block
		id      memory.Identity
		visible bool
		err     string
	}{
		{personal, ann, true, ""},
		{personal, bob, false, "may be edited only by ann (owner)"},
		{ownerOnly, bob, true, "shared block plan may be edited only by ann (owner); you are agent \"bob\" (mid)"},
		{team, bob, true, ""},
		{team, cy, true, "may be edited only by ann (owner), bob"},
		{team, alice, false, "may be edited only by"},
		{open, cy, true, ""},
		{rules, cy, true, "block rules is read-only"},
		{rules, alice, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.b.Label+"/"+tt.id.AgentID, func(t *testing.T) {
			if got := tt.b.VisibleTo(tt.id.AgentID); got != tt.visible {
				t.Errorf("VisibleTo = %v", got)
			}
			err := tt.b.CheckWrite(tt.id)
			if tt.err == "" && err != nil || tt.err != "" && (memory.ErrorCode(err) != memory.EFORBIDDEN || !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("CheckWrite = %v; want %q", err, tt.err)
			}
		})
	}
}

func TestParseBlockSpecs(t *testing.T) {
	specs, err := memory.ParseBlockSpecs(`[{"label": "persona", "description": "Who I am.", "limit": 100}, {"label": "rules", "description": "House rules.", "value": "Be kind.", "read_only": true, "shared": true, "writers": ["*"]}]`)
	if err != nil || len(specs) != 2 || specs[0].Limit != 100 || !specs[1].ReadOnly || specs[1].Value != "Be kind." {
		t.Fatalf("ParseBlockSpecs = %+v, %v", specs, err)
	}
	if specs, err := memory.ParseBlockSpecs(`[]`); err != nil || len(specs) != 0 {
		t.Fatalf("empty = %+v, %v", specs, err)
	}
	for in, want := range map[string]string{
		`{"label": "x"}`: "must be a JSON array",
		`[{"label": "x", "description": "d", "size": 3}]`: `unknown field "size"`,
		`[{"label": "x"}]`: "description of block x is empty",
		`[{"label": "x", "description": "d"}, {"label": "x", "description": "e"}]`: "block x is listed twice",
	} {
		if _, err := memory.ParseBlockSpecs(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseBlockSpecs(%s) = %v; want %q", in, err, want)
		}
	}
}

// FuzzBlockEdit checks the edit rules on arbitrary text: no panic, and every
// successful edit does exactly what it says.
func FuzzBlockEdit(f *testing.F) {
	f.Add("name: Ann\nrole: dev", "dev", "lead", 1, "x\ny")
	f.Add("", "a", "", 0, "")
	f.Add("tea\ntea", "tea", "milk", 3, "\n")
	f.Fuzz(func(t *testing.T, value, old, new string, line int, text string) {
		if got, err := memory.ReplaceText("b", value, old, new); err == nil {
			if strings.Count(value, old) != 1 || len(got) != len(value)-len(old)+len(new) {
				t.Fatalf("replace %q with %q in %q = %q", old, new, value, got)
			}
		} else if old != "" && strings.Count(value, old) == 1 {
			t.Fatalf("replace of a unique %q failed: %v", old, err)
		}
		got, err := memory.InsertText("b", value, text, line)
		if err != nil {
			if line >= 0 && line <= len(memory.Lines(value)) {
				t.Fatalf("insert at valid line %d failed: %v", line, err)
			}
			return
		}
		added := len(memory.Lines(strings.TrimSuffix(text, "\n")))
		if n := len(memory.Lines(got)); n != len(memory.Lines(value))+added {
			t.Fatalf("insert %q after %d into %q = %q (%d lines)", text, line, value, got, n)
		}
		if a := memory.AppendText(value, text); !strings.HasPrefix(a, value) || !strings.HasSuffix(a, text) {
			t.Fatalf("append %q to %q = %q", text, value, a)
		}
	})
}
