// Package foreign reads the memory of other tools into neutral items a
// memory store can remember: the official MCP memory server's
// memory.jsonl, Claude Code's CLAUDE.md and auto-memory MEMORY.md, folders
// of Markdown notes with YAML front matter (basic-memory, Obsidian) and
// mem0's export JSON. It imports nothing of the module.
package foreign

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The formats Read knows.
const (
	OfficialMemory = "official-memory"
	ClaudeMD       = "claude-md"
	Markdown       = "markdown"
	Mem0           = "mem0"
)

// Formats are the foreign formats, in the order Detect tries them.
var Formats = []string{OfficialMemory, ClaudeMD, Markdown, Mem0}

// Item is one memory read from a foreign file.
type Item struct {
	Content string
	// Category is semantic, episodic, procedural, social or working.
	Category   string
	Tags       []string
	OccurredAt time.Time // zero: unknown
	// Source names where it came from: the format and the file (and, where
	// the format has one, the record's own id or line).
	Source string
}

// ErrUnknown is Detect's answer to a file of no format it knows.
var ErrUnknown = errors.New("not a format this build reads")

// Detect names the format of the file or folder at path: a folder is
// Markdown notes; CLAUDE.md and MEMORY.md are Claude Code's; another .md
// file is one Markdown note; JSON Lines of entities and relations are the
// official memory server's; JSON of objects with a "memory" field is mem0's.
func Detect(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if info.IsDir() {
		return Markdown, nil
	}
	switch base := strings.ToUpper(filepath.Base(path)); {
	case base == "CLAUDE.MD" || base == "MEMORY.MD" || strings.HasSuffix(base, ".CLAUDE.MD"):
		return ClaudeMD, nil
	case strings.HasSuffix(base, ".MD"):
		return Markdown, nil
	}
	b, err := readHead(path, 4096)
	if err != nil {
		return "", err
	}
	first, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
	var line struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(first, &line) == nil && (line.Type == "entity" || line.Type == "relation") {
		return OfficialMemory, nil
	}
	if t := bytes.TrimSpace(b); len(t) > 0 && (t[0] == '[' || t[0] == '{') && bytes.Contains(b, []byte(`"memory"`)) {
		return Mem0, nil
	}
	return "", ErrUnknown
}

func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := f.Read(b)
	if k > 0 {
		err = nil
	}
	return b[:k], err
}

// Read reads the file or folder at path in format.
func Read(format, path string) ([]Item, error) {
	items, _, err := ReadSkipping(format, path)
	return items, err
}

// ReadSkipping is Read that also says what in a folder it left unread,
// and why (a symbolic link, which could point out of the folder: at
// /etc/passwd, or a key), one "path: reason" each.
func ReadSkipping(format, path string) ([]Item, []string, error) {
	var items []Item
	var err error
	switch format {
	case OfficialMemory:
		items, err = readOfficial(path)
	case ClaudeMD:
		items, err = readClaudeMD(path)
	case Markdown:
		return readMarkdown(path)
	case Mem0:
		items, err = readMem0(path)
	default:
		err = fmt.Errorf("unknown format %q: use one of %s", format, strings.Join(Formats, ", "))
	}
	return items, nil, err
}

// officialLine is a line of the official memory server's memory.jsonl: an
// entity with its observations, or a relation between two entities.
type officialLine struct {
	Type         string   `json:"type"`
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
	From         string   `json:"from"`
	To           string   `json:"to"`
	RelationType string   `json:"relationType"`
}

// readOfficial makes each observation a memory about its entity, and each
// relation a memory of who relates to whom (social between people, else
// semantic). Entity names are tags, so a search can narrow to one.
func readOfficial(path string) ([]Item, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	types := map[string]string{}
	var lines []officialLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		t := bytes.TrimSpace(sc.Bytes())
		if len(t) == 0 {
			continue
		}
		var l officialLine
		if err := json.Unmarshal(t, &l); err != nil {
			return nil, fmt.Errorf("%s line %d: not a JSON entity or relation: %v", path, n, err)
		}
		if l.Type == "entity" {
			types[l.Name] = l.EntityType
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var out []Item
	source := OfficialMemory + ":" + filepath.Base(path)
	for _, l := range lines {
		switch l.Type {
		case "entity":
			cat := "semantic"
			if strings.EqualFold(l.EntityType, "person") {
				cat = "social"
			}
			for _, o := range l.Observations {
				out = append(out, Item{Content: fmt.Sprintf("%s (%s): %s", readable(l.Name), l.EntityType, o), Category: cat,
					Tags: []string{tag(l.Name)}, Source: source + " entity " + l.Name})
			}
		case "relation":
			cat := "semantic"
			if strings.EqualFold(types[l.From], "person") && strings.EqualFold(types[l.To], "person") {
				cat = "social"
			}
			out = append(out, Item{Content: fmt.Sprintf("%s %s %s.", readable(l.From), readable(l.RelationType), readable(l.To)), Category: cat,
				Tags: []string{tag(l.From), tag(l.To)}, Source: source + " relation"})
		}
	}
	return out, nil
}

// readable writes an identifier such as John_Smith or works_at as words.
func readable(s string) string { return strings.ReplaceAll(s, "_", " ") }

// tag makes a name a tag: lower case, words joined by hyphens.
func tag(s string) string {
	return strings.Trim(strings.ToLower(strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.')
	}), "-")), "-")
}

// readClaudeMD reads a CLAUDE.md or MEMORY.md: instructions and notes
// under headings. Each list item, or paragraph, becomes a memory, tagged
// with its heading: procedural in a CLAUDE.md (how to work here), semantic
// in an auto-memory MEMORY.md (what was learned).
func readClaudeMD(path string) ([]Item, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	cat := "procedural"
	if strings.EqualFold(filepath.Base(path), "MEMORY.md") {
		cat = "semantic"
	}
	source := ClaudeMD + ":" + filepath.Base(path)
	var out []Item
	for _, p := range statements(string(b)) {
		it := Item{Content: p.text, Category: cat, Source: fmt.Sprintf("%s line %d", source, p.line)}
		if p.heading != "" {
			it.Tags = []string{tag(p.heading)}
		}
		out = append(out, it)
	}
	return out, nil
}

// statement is a list item or paragraph of Markdown and the heading it is under.
type statement struct {
	text, heading string
	line          int
}

// statements splits Markdown into its list items and paragraphs, skipping
// headings, code fences (kept whole as one statement) and imports (@path).
func statements(md string) []statement {
	var out []statement
	var cur []string
	var heading string
	start := 0
	flush := func() {
		if t := strings.TrimSpace(strings.Join(cur, " ")); t != "" {
			out = append(out, statement{text: t, heading: heading, line: start})
		}
		cur = nil
	}
	fenced := false
	for i, line := range strings.Split(md, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "```"):
			if !fenced {
				flush()
				start = i + 1
			}
			cur = append(cur, line)
			fenced = !fenced
			if !fenced {
				out = append(out, statement{text: strings.Join(cur, "\n"), heading: heading, line: start})
				cur = nil
			}
		case fenced:
			cur = append(cur, line)
		case t == "" || strings.HasPrefix(t, "@") || strings.HasPrefix(t, "<!--"):
			flush()
		case strings.HasPrefix(t, "#"):
			flush()
			heading = strings.TrimSpace(strings.TrimLeft(t, "#"))
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || numbered(t):
			flush()
			start = i + 1
			cur = append(cur, strings.TrimSpace(t[strings.IndexByte(t, ' ')+1:]))
		default:
			if len(cur) == 0 {
				start = i + 1
			}
			cur = append(cur, t)
		}
	}
	flush()
	return out
}

// numbered reports whether t starts an ordered list item ("1. ").
func numbered(t string) bool {
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && strings.HasPrefix(t[i:], ". ")
}

// readMarkdown reads a folder of Markdown notes (or one note): each note
// becomes one memory of its title and body, with the tags of its front
// matter, its type as the category when it is one, and its date.
// A symbolic link in the folder is skipped, never followed: what it points
// at may be outside the folder.
func readMarkdown(path string) ([]Item, []string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !info.IsDir() {
		it, ok, err := readNote(path, filepath.Base(path))
		if err != nil || !ok {
			return nil, nil, err
		}
		return []Item{it}, nil, nil
	}
	var out []Item
	var skipped []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != path && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir // .obsidian, .git
		}
		if d.Type()&fs.ModeSymlink != 0 {
			rel, _ := filepath.Rel(path, p)
			skipped = append(skipped, filepath.ToSlash(rel)+": a symbolic link, not followed")
			return nil
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			return nil
		}
		if d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".md") {
			return nil
		}
		rel, _ := filepath.Rel(path, p)
		it, ok, err := readNote(p, filepath.ToSlash(rel))
		if ok {
			out = append(out, it)
		}
		return err
	})
	return out, skipped, err
}

// readNote reads one note; ok is false for a note with no text.
func readNote(path, rel string) (Item, bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Item{}, false, err
	}
	meta, body := frontMatter(string(b))
	title := meta["title"]
	if title == "" {
		title = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	body = strings.TrimSpace(body)
	if body == "" {
		return Item{}, false, nil
	}
	it := Item{Content: title + "\n\n" + body, Category: "semantic", Source: Markdown + ":" + rel}
	switch c := strings.ToLower(meta["type"]); c {
	case "semantic", "episodic", "procedural", "social", "working":
		it.Category = c
	}
	for _, t := range listValue(meta["tags"]) {
		if t = tag(strings.TrimPrefix(t, "#")); t != "" {
			it.Tags = append(it.Tags, t)
		}
	}
	for _, k := range []string{"date", "created"} {
		if t, ok := parseDate(meta[k]); ok {
			it.OccurredAt = t
			break
		}
	}
	return it, true, nil
}

// frontMatter splits a note into its YAML front matter, read as flat
// key: value pairs (a block list under a key is joined as [a, b]), and its
// body. Nested YAML is left as its text.
func frontMatter(s string) (map[string]string, string) {
	meta := map[string]string{}
	s = strings.TrimPrefix(s, "\ufeff")
	if !strings.HasPrefix(s, "---\n") && !strings.HasPrefix(s, "---\r\n") {
		return meta, s
	}
	rest := s[strings.IndexByte(s, '\n')+1:]
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return meta, s
	}
	body := rest[end+4:]
	if i := strings.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:]
	} else {
		body = ""
	}
	var key string
	for _, line := range strings.Split(rest[:end], "\n") {
		line = strings.TrimRight(line, "\r")
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "- ") && key != "" {
			meta[key] = strings.TrimSuffix(strings.TrimPrefix(meta[key], "["), "]")
			if meta[key] != "" {
				meta[key] += ", "
			}
			meta[key] = "[" + meta[key] + strings.TrimSpace(t[2:]) + "]"
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, " ") {
			continue
		}
		key = strings.TrimSpace(k)
		meta[key] = strings.Trim(strings.TrimSpace(v), `"'`)
	}
	return meta, body
}

// listValue reads "[a, b]" or "a, b" or "a" as a list.
func listValue(v string) []string {
	v = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(v), "["), "]")
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.Trim(strings.TrimSpace(p), `"'`); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func parseDate(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", time.DateOnly} {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// mem0Memory is one memory as mem0's get_all and export return it.
type mem0Memory struct {
	ID         string         `json:"id"`
	Memory     string         `json:"memory"`
	UserID     string         `json:"user_id"`
	AgentID    string         `json:"agent_id"`
	Categories []string       `json:"categories"`
	Metadata   map[string]any `json:"metadata"`
	CreatedAt  string         `json:"created_at"`
}

// readMem0 reads mem0's export: a list of memories, bare or under
// "results" (get_all) or "memories". Each is a semantic memory with its
// categories as tags and its creation as when it happened.
func readMem0(path string) ([]Item, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []mem0Memory
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		err = json.Unmarshal(t, &list)
	} else {
		var wrapped struct {
			Results  []mem0Memory `json:"results"`
			Memories []mem0Memory `json:"memories"`
		}
		err = json.Unmarshal(t, &wrapped)
		list = append(wrapped.Results, wrapped.Memories...)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: not mem0's export JSON: %v", path, err)
	}
	var out []Item
	for _, m := range list {
		if strings.TrimSpace(m.Memory) == "" {
			continue
		}
		it := Item{Content: m.Memory, Category: "semantic", Source: Mem0 + ":" + filepath.Base(path) + " " + m.ID}
		for _, c := range m.Categories {
			if c = tag(c); c != "" {
				it.Tags = append(it.Tags, c)
			}
		}
		if t, ok := parseDate(m.CreatedAt); ok {
			it.OccurredAt = t
		}
		out = append(out, it)
	}
	return out, nil
}
