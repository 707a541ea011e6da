package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The memory tool shows core memory blocks as the files of Claude's memory
// tool (type memory_20250818): a block is a file under /memories, a shared
// block a file under /memories/shared, and a ':' in a label a directory
// level ("projects:web" is /memories/projects/web). Its messages follow the
// reference implementation's, word for word where a model may have learned
// them, after our error code.

// Memory tool paths.
const (
	MemoryRoot = "/memories"
	SharedRoot = MemoryRoot + "/shared"
)

// MemoryPath is a path of the memory tool, read: the block label it names
// and whether it lies in the shared area. Root is /memories itself; Dir is
// true for the root and the shared area, which are always directories.
type MemoryPath struct {
	Path   string // as given, without a trailing slash
	Label  string // "" for /memories and /memories/shared
	Shared bool
}

// IsDir reports whether p is one of the two directories that always exist.
func (p MemoryPath) IsDir() bool { return p.Label == "" }

// ParseMemoryPath reads path (argument arg) as a memory tool path. A path
// outside /memories, or with a segment a label cannot hold, is EINVALID.
func ParseMemoryPath(arg, path string) (MemoryPath, error) {
	if path == "" {
		return MemoryPath{}, Errorf(EINVALID, "%s is missing: give a path under %s, e.g. %s/notes.md", arg, MemoryRoot, MemoryRoot)
	}
	p := strings.TrimRight(path, "/")
	if p != MemoryRoot && !strings.HasPrefix(p, MemoryRoot+"/") {
		return MemoryPath{}, Errorf(EINVALID, "Path must start with %s, got: %s", MemoryRoot, path)
	}
	out := MemoryPath{Path: p}
	rest := strings.TrimPrefix(strings.TrimPrefix(p, MemoryRoot), "/")
	if rest == "" {
		return out, nil
	}
	segs := strings.Split(rest, "/")
	if segs[0] == "shared" {
		out.Shared, segs = true, segs[1:]
	}
	for _, s := range segs {
		switch {
		case s == "" || s == "." || s == "..":
			return MemoryPath{}, Errorf(EINVALID, "Path %s would escape %s directory: write it without empty, '.' or '..' parts", path, MemoryRoot)
		case strings.Contains(s, ":"):
			return MemoryPath{}, Errorf(EINVALID, "path %s: a name may not contain ':'; use letters, digits, '.', '_' and '-'", path)
		}
	}
	out.Label = strings.Join(segs, ":")
	if out.Label == "" {
		return out, nil
	}
	if err := CheckID("path "+path+": the name", out.Label); err != nil {
		return MemoryPath{}, err
	}
	return out, nil
}

// BlockPath returns the memory tool path of block b.
func BlockPath(b BlockSummary) string {
	dir := MemoryRoot
	if b.Shared {
		dir = SharedRoot
	}
	return dir + "/" + strings.ReplaceAll(b.Label, ":", "/")
}

// BlockHash is the content hash a memory tool view shows and expected_hash
// compares: SHA-256 of the value, in hex.
func BlockHash(value string) string {
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:])
}

// ShortHash is the part of BlockHash a view shows; any prefix of at least
// MinHashLen hex digits is accepted back.
func ShortHash(value string) string { return BlockHash(value)[:16] }

// MinHashLen is the shortest expected_hash accepted.
const MinHashLen = 8

// CheckExpectedHash checks an expected_hash argument's form.
func CheckExpectedHash(h string) error {
	if len(h) < MinHashLen || len(h) > 64 {
		return Errorf(EINVALID, "expected_hash must be %d to 64 hex digits of the content hash a view shows", MinHashLen)
	}
	if _, err := hex.DecodeString(h + strings.Repeat("0", len(h)%2)); err != nil {
		return Errorf(EINVALID, "expected_hash %q is not hex: copy the sha256 a view shows", h)
	}
	return nil
}

// PathNotFound is the reference's answer for a path that names nothing.
func PathNotFound(path string) error {
	return Errorf(ENOTFOUND, "The path %s does not exist. Please provide a valid path.", path)
}

// FileLines splits a file's text into lines as the reference does for
// views: an empty file has one empty line, a final line break one more.
func FileLines(text string) []string { return strings.Split(text, "\n") }

// lineWidth is the reference's width of a line number in a view.
const lineWidth = 6

// NumberLines renders lines as a view shows them, the first numbered first.
func NumberLines(lines []string, first int) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%*d\t%s", lineWidth, first+i, l)
	}
	return b.String()
}

// FileSize renders a size in bytes as the reference's directory view does:
// 0B, 512B, 1.5K, 2M.
func FileSize(n int) string {
	if n == 0 {
		return "0B"
	}
	units := []string{"B", "K", "M", "G"}
	i, size := 0, float64(n)
	for size >= 1024 && i < len(units)-1 {
		size /= 1024
		i++
	}
	if size == float64(int(size)) {
		return fmt.Sprintf("%d%s", int(size), units[i])
	}
	return fmt.Sprintf("%.1f%s", size, units[i])
}

// fileReplace is str_replace's rule with the reference's messages: old must
// occur exactly once in the file at path.
func fileReplace(path, value, old, new string) (string, error) {
	switch n := strings.Count(value, old); n {
	case 1:
		return strings.Replace(value, old, new, 1), nil
	case 0:
		return "", Errorf(EINVALID, "No replacement was performed, old_str `%s` did not appear verbatim in %s.", Neutralise(old), path)
	default:
		return "", Errorf(EINVALID, "No replacement was performed. Multiple occurrences of old_str `%s` in lines: %s. Please ensure it is unique",
			Neutralise(old), joinLines(occurrenceLines(value, old)))
	}
}

// fileInsert is insert's rule with the reference's messages: text goes in
// as its own lines after line `after` (0: at the top), and the file ends
// with a line break.
func fileInsert(path, value, text string, after int) (string, error) {
	lines := Lines(strings.TrimSuffix(value, "\n"))
	if after < 0 || after > len(lines) {
		return "", Errorf(EINVALID, "Invalid `insert_line` parameter: %d. It should be within the range [0, %d].", after, len(lines))
	}
	added := strings.TrimRight(text, "\n")
	out := make([]string, 0, len(lines)+1)
	out = append(append(append(out, lines[:after]...), added), lines[after:]...)
	return strings.Join(out, "\n") + "\n", nil
}

// Snippet is what str_replace shows after an edit, as the reference does:
// the lines of value from two before to two after line index changed
// (0-based), numbered.
func Snippet(value string, changed int) string {
	lines := FileLines(value)
	from, to := max(0, changed-2), min(len(lines), changed+3)
	if from >= to {
		return ""
	}
	return NumberLines(lines[from:to], from+1)
}

// LineOf returns the 0-based line on which old first starts in value, and
// whether it occurs.
func LineOf(value, old string) (int, bool) {
	i := strings.Index(value, old)
	if i < 0 {
		return 0, false
	}
	return strings.Count(value[:i], "\n"), true
}

// validateFile checks an edit the memory tool asks for, naming its
// arguments: the reference's insert may add an empty line, and its
// str_replace may not look for nothing.
func (e *BlockEdit) validateFile() error {
	for field, text := range map[string]string{"insert_text": e.Text, "new_str": e.NewText} {
		if err := checkText(field, text); err != nil {
			return err
		}
	}
	if !utf8.ValidString(e.OldText) {
		return Errorf(EINVALID, "old_str is not valid UTF-8")
	}
	switch e.Op {
	case BlockReplace:
		if e.OldText == "" {
			return Errorf(EINVALID, "old_str is empty: give the exact text to replace, copied from a view of %s (without the line numbers)", e.Path)
		}
		if e.OldText == e.NewText {
			return Errorf(EINVALID, "old_str and new_str are the same: nothing would change")
		}
	case BlockInsert:
		if e.AfterLine < 0 {
			return Errorf(EINVALID, "Invalid `insert_line` parameter: %d. It should be 0 or more.", e.AfterLine)
		}
	case BlockRestore:
		if e.Version < 1 {
			return Errorf(EINVALID, "version %d is not a version: the history command lists the versions of %s", e.Version, e.Path)
		}
	case BlockDelete, BlockRethink:
	default:
		return Errorf(EINVALID, "unknown block edit %q", e.Op)
	}
	return nil
}
