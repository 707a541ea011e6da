package tools

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// FileArgs are the arguments of the memory tool: those of Claude's memory
// tool (memory_20250818), then what blocks add.
type FileArgs struct {
	Command    string  `json:"command" jsonschema:"enum=view,enum=create,enum=str_replace,enum=insert,enum=delete,enum=rename,enum=history,enum=restore" jsonschema_description:"What to do (see the tool description)."`
	Path       string  `json:"path,omitempty" jsonschema:"The file or directory, under /memories (yours) or /memories/shared (shared with other agents). Every command but rename."`
	ViewRange  []int   `json:"view_range,omitempty" jsonschema:"view of a file: [first, last] line to show, 1-based; last -1 means to the end."`
	FileText   *string `json:"file_text,omitempty" jsonschema:"create: the new file's text."`
	OldStr     *string `json:"old_str,omitempty" jsonschema:"str_replace: the exact text to replace, without line numbers; it must occur exactly once."`
	NewStr     *string `json:"new_str,omitempty" jsonschema:"str_replace: the text to put in its place (empty deletes old_str)."`
	InsertLine *int    `json:"insert_line,omitempty" jsonschema:"insert: the line to insert after (0: before the first line)."`
	InsertText *string `json:"insert_text,omitempty" jsonschema:"insert: the text to insert."`
	OldPath    string  `json:"old_path,omitempty" jsonschema:"rename: the file to move."`
	NewPath    string  `json:"new_path,omitempty" jsonschema:"rename: where to move it; it must not exist."`

	Version         *int     `json:"version,omitempty" jsonschema:"restore: the earlier version to bring back (history lists them)."`
	ExpectedVersion *int     `json:"expected_version,omitempty" jsonschema:"Edits: the version your edit is based on (a view shows it); if the file changed since, the edit fails with ECONFLICT."`
	ExpectedHash    *string  `json:"expected_hash,omitempty" jsonschema:"Edits: like expected_version, the sha256 a view shows (at least 8 hex digits)."`
	Description     *string  `json:"description,omitempty" jsonschema:"create: what belongs in the file (shown with it)."`
	Limit           *int     `json:"limit,omitempty" jsonschema:"create: the file's character limit, 1 to 100000 (default 5000); history: how many versions, newest first (default 50)."`
	Writers         []string `json:"writers,omitempty" jsonschema:"create under /memories/shared: agent ids that may edit it besides you, [\"*\"] for all (default only you)."`
	Readers         []string `json:"readers,omitempty" jsonschema:"create under /memories/shared: agent ids that may read it (default all)."`
	ReadOnly        bool     `json:"read_only,omitempty" jsonschema:"create, humans only: agents may read the file but not edit it."`
}

// FileEntry is one line of a directory view.
type FileEntry struct {
	Path    string `json:"path"`
	Dir     bool   `json:"dir,omitempty"`
	Bytes   int    `json:"bytes"`
	Chars   int    `json:"chars,omitempty"`
	Limit   int    `json:"limit,omitempty"`
	Version int    `json:"version,omitempty"`
	// ReadOnly: people keep the file; agents may read it, not edit it.
	ReadOnly bool `json:"read_only,omitempty"`
}

// FileResult is the memory tool's result: the file a command read or
// changed, the entries of a directory view, or a file's history.
type FileResult struct {
	Command  string                `json:"command"`
	Path     string                `json:"path"`
	File     *memory.Block         `json:"file,omitempty"`
	Hash     string                `json:"sha256,omitempty"`
	Entries  []FileEntry           `json:"entries,omitempty"`
	Versions []memory.BlockVersion `json:"versions,omitempty"`
}

// memoryReads are the commands that change nothing: they bypass the write
// gates (see annotation.reads).
func memoryReads(args map[string]any) bool {
	c, _ := args["command"].(string)
	return c == "view" || c == "history"
}

// memoryArgs says which arguments each command takes besides command.
var memoryArgs = map[string][]string{
	"view":        {"path", "view_range"},
	"create":      {"path", "file_text", "description", "limit", "writers", "readers", "read_only"},
	"str_replace": {"path", "old_str", "new_str", "expected_version", "expected_hash"},
	"insert":      {"path", "insert_line", "insert_text", "expected_version", "expected_hash"},
	"delete":      {"path", "expected_version", "expected_hash"},
	"rename":      {"old_path", "new_path", "expected_version", "expected_hash"},
	"history":     {"path", "limit"},
	"restore":     {"path", "version", "expected_version", "expected_hash"},
}

func registerMemoryFiles(s *server.MCPServer, svc Services) {
	add(s, svc, mcp.NewTool("memory",
		mcp.WithDescription("Your persistent memory as files under /memories (Claude's memory tool), kept across conversations; "+
			"/memories/shared holds files other agents share. View /memories before a task, record what you learn as you go. "+
			"Commands: view (a directory with sizes, or a file with numbered lines), create, str_replace, insert, delete, rename, "+
			"and history and restore (every edit is a version; nothing is lost). Each file has a character limit."),
		mcp.WithInputSchema[FileArgs](), mcp.WithOutputSchema[FileResult](),
	), func(ctx context.Context, a FileArgs) (FileResult, string, error) {
		if err := checkMemoryArgs(a); err != nil {
			return FileResult{}, "", err
		}
		m := memoryFiles{blocks: svc.Blocks}
		switch a.Command {
		case "view":
			return m.view(ctx, a)
		case "create":
			return m.create(ctx, a)
		case "rename":
			return m.rename(ctx, a)
		case "history":
			return m.history(ctx, a)
		}
		return m.edit(ctx, a)
	})
}

// checkMemoryArgs refuses an unknown command and an argument its command
// does not take (which would otherwise be silently ignored).
func checkMemoryArgs(a FileArgs) error {
	takes, ok := memoryArgs[a.Command]
	if !ok {
		return memory.Errorf(memory.EINVALID, "Unknown command: %q; use one of view, create, str_replace, insert, delete, rename, history, restore", a.Command)
	}
	given := map[string]bool{"path": a.Path != "", "view_range": a.ViewRange != nil, "file_text": a.FileText != nil,
		"old_str": a.OldStr != nil, "new_str": a.NewStr != nil, "insert_line": a.InsertLine != nil, "insert_text": a.InsertText != nil,
		"old_path": a.OldPath != "", "new_path": a.NewPath != "", "version": a.Version != nil, "expected_version": a.ExpectedVersion != nil,
		"expected_hash": a.ExpectedHash != nil, "description": a.Description != nil, "limit": a.Limit != nil,
		"writers": a.Writers != nil, "readers": a.Readers != nil, "read_only": a.ReadOnly}
	var extra []string
	for name, is := range given {
		if is && !slices.Contains(takes, name) {
			extra = append(extra, name)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return memory.Errorf(memory.EINVALID, "%s does not take %s; it takes: %s", a.Command, strings.Join(extra, ", "), strings.Join(takes, ", "))
	}
	return nil
}

// memoryFiles runs the memory tool's commands over the block service.
type memoryFiles struct{ blocks memory.BlockService }

func (m memoryFiles) view(ctx context.Context, a FileArgs) (FileResult, string, error) {
	p, err := memory.ParseMemoryPath("path", a.Path)
	if err != nil {
		return FileResult{}, "", err
	}
	bs, err := m.blocks.List(ctx)
	if err != nil {
		return FileResult{}, "", err
	}
	if b, ok := fileAt(bs, p); ok {
		return viewFile(a, p, b)
	}
	entries, ok := dirEntries(bs, p)
	if !ok {
		return FileResult{}, "", memory.PathNotFound(a.Path)
	}
	if a.ViewRange != nil {
		return FileResult{}, "", memory.Errorf(memory.EINVALID, "%s is a directory: view_range applies to a file's lines; leave it out", a.Path)
	}
	return FileResult{Command: "view", Path: p.Path, Entries: entries}, renderDir(a.Path, entries), nil
}

// fileAt returns the block at p, if p names a file.
func fileAt(bs []memory.Block, p memory.MemoryPath) (memory.Block, bool) {
	for _, b := range bs {
		if !p.IsDir() && b.Label == p.Label && b.Shared == p.Shared {
			return b, true
		}
	}
	return memory.Block{}, false
}

// dirEntries lists what lies up to two levels below directory p, with
// sizes (a directory's is what it holds), or reports that p is no
// directory. /memories and /memories/shared always are.
func dirEntries(bs []memory.Block, p memory.MemoryPath) ([]FileEntry, bool) {
	prefix := p.Path + "/"
	found := p.IsDir()
	sizes := map[string]*FileEntry{}
	for _, b := range bs {
		path := memory.BlockPath(b.BlockSummary)
		rest, ok := strings.CutPrefix(path, prefix)
		if !ok {
			continue
		}
		found = true
		parts := strings.Split(rest, "/")
		n := len(b.Value)
		for i := 1; i < len(parts) && i <= 2; i++ { // the directories on the way, two levels deep
			dir := prefix + strings.Join(parts[:i], "/")
			if sizes[dir] == nil {
				sizes[dir] = &FileEntry{Path: dir, Dir: true}
			}
			sizes[dir].Bytes += n
		}
		if len(parts) <= 2 {
			sizes[path] = &FileEntry{Path: path, Bytes: n, Chars: b.Chars, Limit: b.Limit, Version: b.Version, ReadOnly: b.ReadOnly}
		}
	}
	if !found {
		return nil, false
	}
	out := make([]FileEntry, 0, len(sizes))
	for _, e := range sizes {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, true
}

func renderDir(path string, entries []FileEntry) string {
	total := 0
	for _, e := range entries {
		if !strings.Contains(strings.TrimPrefix(e.Path, strings.TrimRight(path, "/")+"/"), "/") {
			total += e.Bytes
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Here're the files and directories up to 2 levels deep in %s, excluding hidden items:\n%s\t%s", path, memory.FileSize(total), strings.TrimRight(path, "/"))
	for _, e := range entries {
		fmt.Fprintf(&b, "\n%s\t%s", memory.FileSize(e.Bytes), e.Path)
		if e.Dir {
			b.WriteString("/")
			continue
		}
		ro := ""
		if e.ReadOnly {
			ro = ", read-only"
		}
		fmt.Fprintf(&b, "\t(version %d, %d/%d characters%s)", e.Version, e.Chars, e.Limit, ro)
	}
	return b.String()
}

func viewFile(a FileArgs, p memory.MemoryPath, b memory.Block) (FileResult, string, error) {
	lines := memory.FileLines(b.Value)
	first := 1
	if a.ViewRange != nil {
		from, to, err := viewRange(a.ViewRange, len(lines))
		if err != nil {
			return FileResult{}, "", err
		}
		lines, first = lines[from-1:to], from
	}
	res := FileResult{Command: "view", Path: p.Path, File: &b, Hash: memory.BlockHash(b.Value)}
	text := fmt.Sprintf("Here's the content of %s with line numbers:\n%s\n%s\n%s", a.Path, memory.DataDirective,
		memory.Fence(p.Path, memory.NumberLines(lines, first)), fileFacts(b))
	return res, text, nil
}

// viewRange checks view_range against a file of n lines and returns the
// lines to show, 1-based and inclusive.
func viewRange(r []int, n int) (int, int, error) {
	if len(r) != 2 {
		return 0, 0, memory.Errorf(memory.EINVALID, "Invalid `view_range`: it should be a list of two integers, [first, last]")
	}
	from, to := r[0], r[1]
	if from < 1 || from > n {
		return 0, 0, memory.Errorf(memory.EINVALID, "Invalid `view_range` parameter: %v. Its first element `%d` should be within the range of lines of the file: [1, %d]", r, from, n)
	}
	if to == -1 {
		return from, n, nil
	}
	if to < from || to > n {
		return 0, 0, memory.Errorf(memory.EINVALID, "Invalid `view_range` parameter: %v. Its second element `%d` should be -1 or within [%d, %d]", r, to, from, n)
	}
	return from, to, nil
}

// fileFacts is what blocks add to a file view: version and hash for
// compare-and-set, size against the limit, who may edit it, and its
// description (written by an agent: fenced).
func fileFacts(b memory.Block) string {
	return fmt.Sprintf("version %d, sha256 %s, %d/%d characters%s, last edited by %s at %s; what belongs in it:\n%s",
		b.Version, memory.ShortHash(b.Value), b.Chars, b.Limit, blockFlags(b), b.UpdatedBy, b.UpdatedAt.Format(time.RFC3339),
		memory.Fence(memory.BlockPath(b.BlockSummary)+" description", b.Description))
}

func (m memoryFiles) create(ctx context.Context, a FileArgs) (FileResult, string, error) {
	p, err := memory.ParseMemoryPath("path", a.Path)
	if err != nil {
		return FileResult{}, "", err
	}
	if p.IsDir() {
		return FileResult{}, "", memory.Errorf(memory.EINVALID, "%s is a directory: create a file in it, e.g. %s/notes.md", p.Path, p.Path)
	}
	if a.FileText == nil {
		return FileResult{}, "", memory.Errorf(memory.EINVALID, "file_text is missing: give the new file's text (it may be empty)")
	}
	if err := m.checkPlace(ctx, p); err != nil {
		return FileResult{}, "", err
	}
	if err := memory.CheckText("file_text", *a.FileText, 0); err != nil {
		return FileResult{}, "", err
	}
	limit, err := count("limit", a.Limit)
	if err != nil {
		return FileResult{}, "", err
	}
	desc := "Notes kept at " + p.Path + " with the memory tool."
	if a.Description != nil {
		desc = *a.Description
	}
	b, err := m.blocks.Create(ctx, memory.BlockSpec{Label: p.Label, Description: desc, Value: *a.FileText, Limit: limit,
		Shared: p.Shared, Writers: a.Writers, Readers: a.Readers, ReadOnly: a.ReadOnly, Path: p.Path})
	if err != nil {
		return FileResult{}, "", err
	}
	return fileResult("create", p, b), fmt.Sprintf("File created successfully at: %s (version %d, sha256 %s, %d/%d characters)",
		a.Path, b.Version, memory.ShortHash(b.Value), b.Chars, b.Limit), nil
}

// edit runs the commands that are one block edit: str_replace, insert,
// delete, restore.
func (m memoryFiles) edit(ctx context.Context, a FileArgs) (FileResult, string, error) {
	p, err := memory.ParseMemoryPath("path", a.Path)
	if err != nil {
		return FileResult{}, "", err
	}
	if p.IsDir() {
		if a.Command == "delete" && p.Path == memory.MemoryRoot {
			return FileResult{}, "", memory.Errorf(memory.EINVALID, "Cannot delete the %s directory itself", memory.MemoryRoot)
		}
		return FileResult{}, "", memory.Errorf(memory.EINVALID, "The path %s is not a file.", a.Path)
	}
	e := memory.BlockEdit{Label: p.Label, Path: p.Path, ExpectedVersion: a.ExpectedVersion, ExpectedHash: deref(a.ExpectedHash)}
	var before memory.Block
	switch a.Command {
	case "str_replace":
		if a.OldStr == nil {
			return FileResult{}, "", memory.Errorf(memory.EINVALID, "old_str is missing: give the exact text to replace")
		}
		e.Op, e.OldText, e.NewText = memory.BlockReplace, *a.OldStr, deref(a.NewStr)
		before, _ = m.blocks.Get(ctx, p.Label) // for the snippet: the line the change starts on
	case "insert":
		line, err := required("insert_line", a.InsertLine, "0 inserts before the first line")
		if err != nil {
			return FileResult{}, "", err
		}
		if a.InsertText == nil {
			return FileResult{}, "", memory.Errorf(memory.EINVALID, "insert_text is missing: give the text to insert")
		}
		e.Op, e.AfterLine, e.Text = memory.BlockInsert, line, *a.InsertText
	case "delete":
		e.Op = memory.BlockDelete
	case "restore":
		v, err := required("version", a.Version, "the history command lists the versions")
		if err != nil {
			return FileResult{}, "", err
		}
		e.Op, e.Version = memory.BlockRestore, v
	}
	b, err := m.blocks.Edit(ctx, e)
	if memory.ErrorCode(err) == memory.ENOTFOUND {
		err = m.orDirectory(ctx, p, err)
	}
	if err != nil {
		return FileResult{}, "", err
	}
	return fileResult(a.Command, p, b), editedText(a, p, b, before), nil
}

// orDirectory returns, for a path no file is at, the error that it is a
// directory if files lie below it, else notFound. A directory is not
// deleted whole: each file is a block, deleted (and restorable) one at a
// time, and a tree of them could only be deleted as several writes.
func (m memoryFiles) orDirectory(ctx context.Context, p memory.MemoryPath, notFound error) error {
	bs, err := m.blocks.List(ctx)
	if err != nil {
		return err
	}
	var below []string
	for _, b := range bs {
		if path := memory.BlockPath(b.BlockSummary); strings.HasPrefix(path, p.Path+"/") {
			below = append(below, path)
		}
	}
	if len(below) == 0 {
		return notFound
	}
	return memory.Errorf(memory.EINVALID, "The path %s is not a file: it is a directory holding %s; delete or edit its files one at a time",
		p.Path, strings.Join(below, ", "))
}

func editedText(a FileArgs, p memory.MemoryPath, b, before memory.Block) string {
	now := fmt.Sprintf("version %d, sha256 %s, %d/%d characters", b.Version, memory.ShortHash(b.Value), b.Chars, b.Limit)
	switch a.Command {
	case "str_replace":
		line, ok := memory.LineOf(before.Value, deref(a.OldStr))
		if !ok || before.Version != b.Version-1 { // edited by someone else in between: find the new text instead
			line, _ = memory.LineOf(b.Value, deref(a.NewStr))
		}
		return fmt.Sprintf("The memory file has been edited. Here is the snippet showing the change (with line numbers):\n%s\n%s\nNow %s.",
			memory.DataDirective, memory.Fence(p.Path, memory.Snippet(b.Value, line)), now)
	case "insert":
		return fmt.Sprintf("The file %s has been edited. Now %s.", a.Path, now)
	case "delete":
		return fmt.Sprintf("Successfully deleted %s (as version %d: restore with version %d brings it back)", a.Path, b.Version, b.Version-1)
	}
	return fmt.Sprintf("Restored %s to version %d: now %s.", a.Path, *a.Version, now)
}

func (m memoryFiles) rename(ctx context.Context, a FileArgs) (FileResult, string, error) {
	from, err := memory.ParseMemoryPath("old_path", a.OldPath)
	if err != nil {
		return FileResult{}, "", err
	}
	to, err := memory.ParseMemoryPath("new_path", a.NewPath)
	if err != nil {
		return FileResult{}, "", err
	}
	if err := m.checkPlace(ctx, to); err != nil {
		return FileResult{}, "", err
	}
	b, err := m.blocks.Rename(ctx, memory.BlockRename{From: from, To: to, ExpectedVersion: a.ExpectedVersion, ExpectedHash: deref(a.ExpectedHash)})
	if err != nil {
		return FileResult{}, "", err
	}
	return fileResult("rename", to, b), fmt.Sprintf("Successfully renamed %s to %s (its history up to now stays with %s)", a.OldPath, a.NewPath, a.OldPath), nil
}

// checkPlace refuses a new file at p where a directory is (a file lies
// below p), or below a file (p's parent is a file): a path is one or the
// other.
func (m memoryFiles) checkPlace(ctx context.Context, p memory.MemoryPath) error {
	bs, err := m.blocks.List(ctx)
	if err != nil {
		return err
	}
	for _, b := range bs {
		path := memory.BlockPath(b.BlockSummary)
		switch {
		case strings.HasPrefix(path, p.Path+"/"):
			return memory.Errorf(memory.EINVALID, "%s is a directory (it holds %s): choose another name for the file", p.Path, path)
		case strings.HasPrefix(p.Path, path+"/"):
			return memory.Errorf(memory.EINVALID, "%s is a file, so %s cannot lie below it: choose another path", path, p.Path)
		}
	}
	return nil
}

func (m memoryFiles) history(ctx context.Context, a FileArgs) (FileResult, string, error) {
	p, err := memory.ParseMemoryPath("path", a.Path)
	if err != nil {
		return FileResult{}, "", err
	}
	if p.IsDir() {
		return FileResult{}, "", memory.Errorf(memory.EINVALID, "The path %s is not a file.", a.Path)
	}
	limit, err := count("limit", a.Limit)
	if err != nil {
		return FileResult{}, "", err
	}
	// A live block in the other area than the path's is not at this path
	// (a deleted one cannot be told apart here: its history is shown).
	if bs, err := m.blocks.List(ctx); err == nil {
		for _, b := range bs {
			if b.Label == p.Label && b.Shared != p.Shared {
				return FileResult{}, "", memory.PathNotFound(a.Path)
			}
		}
	}
	vs, err := m.blocks.History(ctx, p.Label, limit)
	if memory.ErrorCode(err) == memory.ENOTFOUND {
		err = memory.PathNotFound(a.Path)
	}
	if err != nil {
		return FileResult{}, "", err
	}
	return FileResult{Command: "history", Path: p.Path, Versions: vs}, memory.RenderBlockVersions("versions of "+p.Path, vs), nil
}

func fileResult(command string, p memory.MemoryPath, b memory.Block) FileResult {
	return FileResult{Command: command, Path: p.Path, File: &b, Hash: memory.BlockHash(b.Value)}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
