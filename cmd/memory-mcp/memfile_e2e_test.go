package main

import (
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

// memoryCall calls the memory tool and returns its text, failing the test
// when the call's outcome is not the one wanted.
func (s *proc) memory(wantErr bool, args map[string]any) string {
	s.t.Helper()
	res := s.call("memory", args)
	if res.IsError != wantErr {
		s.t.Fatalf("memory(%v): isError %v, want %v: %s", args, res.IsError, wantErr, text(res))
	}
	return text(res)
}

// expect fails unless got holds every part of want, in order.
func expect(t *testing.T, what, got string, want ...string) {
	t.Helper()
	rest := got
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("%s: lacks %q (in order) in:\n%s", what, w, got)
		}
		rest = rest[i+len(w):]
	}
}

// TestMemoryToolReplaysTheReference replays, through MCP, what the
// reference implementation of Claude's memory tool (memory_20250818, the
// Anthropic SDKs' local filesystem memory tool) documents for each command
// and each error: its messages after our error code, its directory and file
// views, its line numbers.
func TestMemoryToolReplaysTheReference(t *testing.T) {
	s := startIn(t, options{args: []string{"--agent-id", "ann", "--blocks", "[]"}})
	const notes = "/memories/notes.txt"

	// view of the empty root: the header and the root's own line.
	got := s.memory(false, map[string]any{"command": "view", "path": "/memories"})
	if got != "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n0B\t/memories" {
		t.Fatalf("empty root view = %q", got)
	}
	// create, and create again.
	got = s.memory(false, map[string]any{"command": "create", "path": notes, "file_text": "Meeting notes:\n- Discussed project timeline\n- Next steps defined\n"})
	expect(t, "create", got, "File created successfully at: /memories/notes.txt")
	got = s.memory(true, map[string]any{"command": "create", "path": notes, "file_text": "again"})
	expect(t, "create twice", got, "ECONFLICT: File /memories/notes.txt already exists")

	// view of a file: numbered lines, the number right-aligned in six
	// columns and a tab; the final line break makes an empty last line.
	got = s.memory(false, map[string]any{"command": "view", "path": notes})
	expect(t, "file view", got, "Here's the content of /memories/notes.txt with line numbers:\n", memory.DataDirective,
		"<memory-data label=\"/memories/notes.txt\">\n     1\tMeeting notes:\n     2\t- Discussed project timeline\n     3\t- Next steps defined\n     4\t\n</memory-data>",
		"version 1, sha256 "+memory.ShortHash("Meeting notes:\n- Discussed project timeline\n- Next steps defined\n"))
	got = s.memory(false, map[string]any{"command": "view", "path": notes, "view_range": []int{2, 3}})
	expect(t, "view_range", got, "\n     2\t- Discussed project timeline\n     3\t- Next steps defined\n</memory-data>")
	if strings.Contains(got, "Meeting notes") {
		t.Fatalf("view_range [2, 3] shows line 1:\n%s", got)
	}
	got = s.memory(false, map[string]any{"command": "view", "path": notes, "view_range": []int{3, -1}})
	expect(t, "view_range to the end", got, "\n     3\t- Next steps defined\n     4\t\n</memory-data>")
	got = s.memory(true, map[string]any{"command": "view", "path": notes, "view_range": []int{9, 10}})
	expect(t, "view_range past the end", got, "EINVALID: Invalid `view_range` parameter: [9 10]. Its first element `9` should be within the range of lines of the file: [1, 4]")

	// str_replace: no match, several matches with their lines, success
	// with a snippet of the lines around the change.
	got = s.memory(true, map[string]any{"command": "str_replace", "path": notes, "old_str": "Agenda", "new_str": "Plan"})
	expect(t, "no match", got, "EINVALID: No replacement was performed, old_str `Agenda` did not appear verbatim in /memories/notes.txt.")
	got = s.memory(true, map[string]any{"command": "str_replace", "path": notes, "old_str": "- ", "new_str": "* "})
	expect(t, "several matches", got, "EINVALID: No replacement was performed. Multiple occurrences of old_str `- ` in lines: 2, 3. Please ensure it is unique")
	// Many matches on one line are listed once, and a long list is cut:
	// the answer stays a sentence however often old_str occurs.
	const many = "/memories/many.txt"
	got = s.memory(false, map[string]any{"command": "create", "path": many, "file_text": strings.Repeat("x", 500) + "\n" + strings.Repeat("x\n", 29)})
	expect(t, "create many", got, "File created successfully at: /memories/many.txt")
	got = s.memory(true, map[string]any{"command": "str_replace", "path": many, "old_str": "x", "new_str": "y"})
	expect(t, "many matches", got, "EINVALID: No replacement was performed. Multiple occurrences of old_str `x` in lines: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 and 10 more lines. Please ensure it is unique")
	if len(got) > 300 {
		t.Fatalf("many matches answered with %d bytes:\n%s", len(got), got)
	}
	got = s.memory(false, map[string]any{"command": "delete", "path": many})
	expect(t, "delete many", got, "Successfully deleted /memories/many.txt")
	got = s.memory(false, map[string]any{"command": "str_replace", "path": notes, "old_str": "timeline", "new_str": "timeline and budget"})
	expect(t, "str_replace", got, "The memory file has been edited", "Here is the snippet showing the change (with line numbers):",
		"     1\tMeeting notes:\n     2\t- Discussed project timeline and budget\n     3\t- Next steps defined\n     4\t\n</memory-data>")

	// insert: out of range, then at a line.
	got = s.memory(true, map[string]any{"command": "insert", "path": notes, "insert_line": 9, "insert_text": "x"})
	expect(t, "insert out of range", got, "EINVALID: Invalid `insert_line` parameter: 9. It should be within the range [0, 3].")
	got = s.memory(false, map[string]any{"command": "insert", "path": notes, "insert_line": 1, "insert_text": "- Attendees: Ann, Bo\n"})
	expect(t, "insert", got, "The file /memories/notes.txt has been edited.")
	got = s.memory(false, map[string]any{"command": "view", "path": notes, "view_range": []int{1, 3}})
	expect(t, "after insert", got, "     1\tMeeting notes:\n     2\t- Attendees: Ann, Bo\n     3\t- Discussed project timeline and budget\n</memory-data>")

	// Paths: outside /memories, escaping it, missing, a directory.
	got = s.memory(true, map[string]any{"command": "view", "path": "/etc/passwd"})
	expect(t, "outside", got, "EINVALID: Path must start with /memories, got: /etc/passwd")
	got = s.memory(true, map[string]any{"command": "view", "path": "/memories/../etc/passwd"})
	expect(t, "escape", got, "EINVALID: Path /memories/../etc/passwd would escape /memories directory")
	got = s.memory(true, map[string]any{"command": "view", "path": "/memories/nope.txt"})
	expect(t, "missing", got, "ENOTFOUND: The path /memories/nope.txt does not exist. Please provide a valid path.")
	got = s.memory(true, map[string]any{"command": "view", "path": "/memories", "view_range": []int{1, 2}})
	expect(t, "view_range of a directory", got, "EINVALID: /memories is a directory: view_range applies to a file's lines")
	got = s.memory(true, map[string]any{"command": "str_replace", "path": "/memories", "old_str": "a", "new_str": "b"})
	expect(t, "directory", got, "EINVALID: The path /memories is not a file.")

	// rename: onto an existing file, a missing file, then for real.
	s.memory(false, map[string]any{"command": "create", "path": "/memories/todo.txt", "file_text": "- Review the memory tool\n"})
	got = s.memory(true, map[string]any{"command": "rename", "old_path": notes, "new_path": "/memories/todo.txt"})
	expect(t, "rename onto a file", got, "ECONFLICT: The destination /memories/todo.txt already exists")
	got = s.memory(true, map[string]any{"command": "rename", "old_path": "/memories/draft.txt", "new_path": "/memories/final.txt"})
	expect(t, "rename a missing file", got, "ENOTFOUND: The path /memories/draft.txt does not exist")
	got = s.memory(false, map[string]any{"command": "rename", "old_path": notes, "new_path": "/memories/meetings/2025-06.txt"})
	expect(t, "rename", got, "Successfully renamed /memories/notes.txt to /memories/meetings/2025-06.txt")

	// A directory view lists two levels with sizes, directories with a slash.
	got = s.memory(false, map[string]any{"command": "view", "path": "/memories"})
	body := "Meeting notes:\n- Attendees: Ann, Bo\n- Discussed project timeline and budget\n- Next steps defined\n"
	expect(t, "directory view", got, "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n",
		memory.FileSize(len(body)+len("- Review the memory tool\n"))+"\t/memories\n",
		memory.FileSize(len(body))+"\t/memories/meetings/\n",
		memory.FileSize(len(body))+"\t/memories/meetings/2025-06.txt\t(version 1, ",
		"25B\t/memories/todo.txt\t(version 1, 25/5000 characters)")

	// delete: the root, a missing file, then for real.
	got = s.memory(true, map[string]any{"command": "delete", "path": "/memories"})
	expect(t, "delete the root", got, "EINVALID: Cannot delete the /memories directory itself")
	got = s.memory(true, map[string]any{"command": "delete", "path": "/memories/meetings"})
	expect(t, "delete a directory", got, "EINVALID: The path /memories/meetings is not a file: it is a directory holding /memories/meetings/2025-06.txt")
	got = s.memory(true, map[string]any{"command": "delete", "path": "/memories/gone.txt"})
	expect(t, "delete a missing file", got, "ENOTFOUND: The path /memories/gone.txt does not exist")
	got = s.memory(false, map[string]any{"command": "delete", "path": "/memories/todo.txt"})
	expect(t, "delete", got, "Successfully deleted /memories/todo.txt")
	s.memory(true, map[string]any{"command": "view", "path": "/memories/todo.txt"})

	// Unknown commands and arguments a command does not take are refused.
	got = s.memory(true, map[string]any{"command": "copy", "path": "/memories/todo.txt"})
	expect(t, "unknown command", got, `EINVALID: Unknown command: "copy"`)
	got = s.memory(true, map[string]any{"command": "view", "path": "/memories", "file_text": "x"})
	expect(t, "stray argument", got, "EINVALID: view does not take file_text")
}

// TestMemoryToolAddsWhatBlocksKeep: history and restore of a path,
// compare-and-set by version or content hash, the shared area another
// agent sees, and the risk tier of a write there.
func TestMemoryToolAddsWhatBlocksKeep(t *testing.T) {
	dir := t.TempDir()
	ann := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--blocks", "[]"}})
	const plan = "/memories/plan.md"
	ann.memory(false, map[string]any{"command": "create", "path": plan, "file_text": "Ship v1.", "description": "The release plan.", "limit": 40})
	ann.memory(false, map[string]any{"command": "str_replace", "path": plan, "old_str": "v1", "new_str": "v1 in May"})
	got := ann.memory(true, map[string]any{"command": "str_replace", "path": plan, "old_str": "May", "new_str": "June", "expected_version": 1})
	expect(t, "stale version", got, "ECONFLICT: /memories/plan.md is at version 2, you sent expected_version 1")
	got = ann.memory(true, map[string]any{"command": "insert", "path": plan, "insert_line": 0, "insert_text": "x", "expected_hash": memory.BlockHash("Ship v1.")[:10]})
	expect(t, "stale hash", got, "ECONFLICT: /memories/plan.md has content hash "+memory.ShortHash("Ship v1 in May."))
	ann.memory(false, map[string]any{"command": "insert", "path": plan, "insert_line": 0, "insert_text": "# Plan", "expected_hash": memory.ShortHash("Ship v1 in May.")})
	got = ann.memory(true, map[string]any{"command": "insert", "path": plan, "insert_line": 0, "insert_text": strings.Repeat("x", 40)})
	expect(t, "over the limit", got, "EINVALID: block plan.md: it would be 64 characters; its limit is 40 characters (24 over)")
	got = ann.memory(false, map[string]any{"command": "view", "path": plan})
	expect(t, "view", got, "version 3, sha256 "+memory.ShortHash("# Plan\nShip v1 in May.\n")+", 23/40 characters", "<memory-data label=\"/memories/plan.md description\">\nThe release plan.\n</memory-data>")

	got = ann.memory(true, map[string]any{"command": "create", "path": plan + "/x.md", "file_text": ""})
	expect(t, "a file below a file", got, "EINVALID: /memories/plan.md is a file, so /memories/plan.md/x.md cannot lie below it")
	ann.memory(false, map[string]any{"command": "create", "path": "/memories/docs/a.md", "file_text": ""})
	got = ann.memory(true, map[string]any{"command": "rename", "old_path": "/memories/docs/a.md", "new_path": "/memories/docs"})
	expect(t, "a file onto a directory", got, "EINVALID: /memories/docs is a directory (it holds /memories/docs/a.md)")

	got = ann.memory(false, map[string]any{"command": "history", "path": plan})
	expect(t, "history", got, "versions of /memories/plan.md (3):", "- v3 insert by ann", "- v2 replace by ann", "- v1 create by ann",
		"<memory-data label=\"plan.md v1\">\nShip v1.\n</memory-data>")
	ann.memory(false, map[string]any{"command": "delete", "path": plan})
	got = ann.memory(true, map[string]any{"command": "view", "path": plan})
	expect(t, "deleted", got, "ENOTFOUND: The path /memories/plan.md does not exist.")
	got = ann.memory(false, map[string]any{"command": "restore", "path": plan, "version": 1})
	expect(t, "restore", got, "Restored /memories/plan.md to version 1: now version 5")
	got = ann.memory(false, map[string]any{"command": "view", "path": plan})
	expect(t, "restored", got, "     1\tShip v1.\n</memory-data>")

	// The shared area: another agent sees it; a write there queues a
	// review (risk medium), a personal write does not.
	ann.memory(false, map[string]any{"command": "create", "path": "/memories/shared/team.md", "file_text": "Standup at nine.", "writers": []string{"*"}})
	bob := start(t, options{dataDir: dir, args: []string{"--agent-id", "bob", "--blocks", "[]"}}).in(t)
	got = bob.memory(false, map[string]any{"command": "view", "path": "/memories"})
	expect(t, "bob's root", got, "\t/memories/shared/\n", "\t/memories/shared/team.md\t(version 1, ")
	if strings.Contains(got, "plan.md") {
		t.Fatalf("bob sees ann's personal file:\n%s", got)
	}
	bob.memory(true, map[string]any{"command": "view", "path": plan})
	bob.memory(false, map[string]any{"command": "str_replace", "path": "/memories/shared/team.md", "old_str": "nine", "new_str": "ten"})
	got = bob.memory(true, map[string]any{"command": "view", "path": "/memories/team.md"})
	expect(t, "a shared file by a personal path", got, "ENOTFOUND: The path /memories/team.md does not exist.")
	got = bob.memory(true, map[string]any{"command": "history", "path": "/memories/team.md"})
	expect(t, "the history of a shared file by a personal path", got, "ENOTFOUND: The path /memories/team.md does not exist.")
	res := bob.call("list_approvals", map[string]any{})
	expect(t, "bob's reviews", text(res), "memory:shared")
	if strings.Count(text(res), "memory:shared") != 1 {
		t.Fatalf("one shared write, reviews:\n%s", text(res))
	}
}

// TestMemoryToolHidesSharedFilesItCannotRead: a shared file an agent may
// not read answers every command of that agent as a path nothing is at
// does, and a create there as one at a label another agent's own file
// uses: the answer never tells the hidden file, its owner or its version
// from a label that is merely taken (a shared file needs a label of its
// own, so a create there cannot succeed).
func TestMemoryToolHidesSharedFilesItCannotRead(t *testing.T) {
	dir := t.TempDir()
	ann := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--blocks", "[]"}})
	ann.memory(false, map[string]any{"command": "create", "path": "/memories/shared/secret", "file_text": "ann and bob only\n", "readers": []string{"bob"}})
	ann.memory(false, map[string]any{"command": "create", "path": "/memories/mine", "file_text": "ann's own\n"})
	ann.stop()
	cy := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "cy", "--blocks", "[]"}})
	answer := func(args map[string]any) string { return text(cy.call("memory", args)) }
	for _, tt := range []struct {
		name string
		args func(label string) map[string]any
	}{
		{"view", func(l string) map[string]any {
			return map[string]any{"command": "view", "path": "/memories/shared/" + l}
		}},
		{"str_replace", func(l string) map[string]any {
			return map[string]any{"command": "str_replace", "path": "/memories/shared/" + l, "old_str": "ann", "new_str": "cy"}
		}},
		{"insert", func(l string) map[string]any {
			return map[string]any{"command": "insert", "path": "/memories/shared/" + l, "insert_line": 0, "insert_text": "cy\n"}
		}},
		{"delete", func(l string) map[string]any {
			return map[string]any{"command": "delete", "path": "/memories/shared/" + l}
		}},
		{"history", func(l string) map[string]any {
			return map[string]any{"command": "history", "path": "/memories/shared/" + l}
		}},
		{"restore", func(l string) map[string]any {
			return map[string]any{"command": "restore", "path": "/memories/shared/" + l, "version": 1}
		}},
		{"rename", func(l string) map[string]any {
			return map[string]any{"command": "rename", "old_path": "/memories/shared/" + l, "new_path": "/memories/shared/elsewhere"}
		}},
	} {
		hidden, nothing := answer(tt.args("secret")), answer(tt.args("nosuch"))
		if strings.ReplaceAll(hidden, "secret", "nosuch") != nothing {
			t.Errorf("%s: a hidden file answers %q; a path nothing is at %q", tt.name, hidden, nothing)
		}
	}
	for _, tt := range []struct {
		name string
		args func(label string) map[string]any
	}{
		{"create", func(l string) map[string]any {
			return map[string]any{"command": "create", "path": "/memories/shared/" + l, "file_text": "cy's\n"}
		}},
		{"rename onto", func(l string) map[string]any {
			return map[string]any{"command": "rename", "old_path": "/memories/cys", "new_path": "/memories/shared/" + l}
		}},
	} {
		cy.memory(false, map[string]any{"command": "create", "path": "/memories/cys", "file_text": "cy's\n"})
		hidden, taken := answer(tt.args("secret")), answer(tt.args("mine"))
		if strings.ReplaceAll(hidden, "secret", "mine") != taken || strings.Contains(hidden, "ann") || strings.ContainsAny(hidden, "0123456789") {
			t.Errorf("%s: a hidden file's label answers %q; another agent's own label %q", tt.name, hidden, taken)
		}
		cy.memory(false, map[string]any{"command": "delete", "path": "/memories/cys"})
	}
}
