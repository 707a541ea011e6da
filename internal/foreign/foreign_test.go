package foreign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRead reads each committed sample, written from its format's
// documented shape, and checks what each becomes.
func TestRead(t *testing.T) {
	cases := []struct {
		path, format string
		n            int
		want         Item // one of the items, whole
	}{
		{"memory.jsonl", OfficialMemory, 7, Item{Content: "John Smith (person): Speaks fluent Spanish", Category: "social",
			Tags: []string{"john-smith"}, Source: "official-memory:memory.jsonl entity John_Smith"}},
		{"memory.jsonl", OfficialMemory, 7, Item{Content: "John Smith works at Anthropic.", Category: "semantic",
			Tags: []string{"john-smith", "anthropic"}, Source: "official-memory:memory.jsonl relation"}},
		{"memory.jsonl", OfficialMemory, 7, Item{Content: "John Smith reports to Sarah Lee.", Category: "social",
			Tags: []string{"john-smith", "sarah-lee"}, Source: "official-memory:memory.jsonl relation"}},
		{"CLAUDE.md", ClaudeMD, 7, Item{Content: "Integration tests need Docker running: `make itest`.", Category: "procedural",
			Tags: []string{"build-and-test"}, Source: "claude-md:CLAUDE.md line 8"}},
		{"CLAUDE.md", ClaudeMD, 7, Item{Content: "Squash commits when merging.", Category: "procedural",
			Tags: []string{"workflow"}, Source: "claude-md:CLAUDE.md line 18"}},
		{"MEMORY.md", ClaudeMD, 3, Item{Content: "The user prefers pnpm over npm in this repository.", Category: "semantic",
			Tags: []string{"project-memory"}, Source: "claude-md:MEMORY.md line 4"}},
		{"notes", Markdown, 2, Item{Content: "2026-10-02-billing\n\nDecided to move invoicing to the new queue. Sarah owns the migration and reports on Friday.",
			Category: "semantic", Tags: []string{"meeting", "billing"}, OccurredAt: time.Date(2026, 10, 2, 0, 0, 0, 0, time.UTC),
			Source: "markdown:meetings/2026-10-02-billing.md"}},
		{"mem0-export.json", Mem0, 2, Item{Content: "Is a vegetarian and allergic to nuts", Category: "semantic", Tags: []string{"food", "health"},
			OccurredAt: time.Date(2024, 7, 20, 8, 30, 36, 275141000, time.UTC), Source: "mem0:mem0-export.json 892db2ae-06d9-49e5-8b3e-585ef9b85b8e"}},
	}
	for _, c := range cases {
		t.Run(c.path+"/"+c.want.Source, func(t *testing.T) {
			path := filepath.Join("testdata", c.path)
			format, err := Detect(path)
			if err != nil || format != c.format {
				t.Fatalf("Detect = %q, %v; want %s", format, err, c.format)
			}
			items, err := Read(format, path)
			if err != nil || len(items) != c.n {
				t.Fatalf("Read = %d items, %v; want %d: %+v", len(items), err, c.n, items)
			}
			for _, it := range items {
				if it.Content == c.want.Content {
					if it.Category != c.want.Category || strings.Join(it.Tags, ",") != strings.Join(c.want.Tags, ",") ||
						!it.OccurredAt.Equal(c.want.OccurredAt) || it.Source != c.want.Source {
						t.Fatalf("item %+v, want %+v", it, c.want)
					}
					return
				}
			}
			t.Fatalf("no item says %q: %+v", c.want.Content, items)
		})
	}
}

// TestReadBasicMemoryNote: a basic-memory note keeps its title, its
// observations in its body, and its front matter's block list of tags.
func TestReadBasicMemoryNote(t *testing.T) {
	items, err := Read(Markdown, filepath.Join("testdata", "notes", "coffee-brewing-methods.md"))
	if err != nil || len(items) != 1 {
		t.Fatalf("%+v, %v", items, err)
	}
	it := items[0]
	if !strings.HasPrefix(it.Content, "Coffee Brewing Methods\n\n# Coffee Brewing Methods") || !strings.Contains(it.Content, "94°C") ||
		strings.Join(it.Tags, ",") != "coffee,brewing" || it.Source != "markdown:coffee-brewing-methods.md" {
		t.Fatalf("%+v", it)
	}
}

// TestDetectRefuses: a file of no known format is named as such.
func TestDetectRefuses(t *testing.T) {
	if f, err := Detect(filepath.Join("testdata", "notes", ".obsidian", "workspace.json")); err != ErrUnknown {
		t.Fatalf("Detect = %q, %v", f, err)
	}
	if _, err := Read("yaml", "x"); err == nil || !strings.Contains(err.Error(), "official-memory, claude-md, markdown, mem0") {
		t.Fatalf("Read of an unknown format: %v", err)
	}
}

// FuzzStatements: no Markdown makes the splitter fail or lose a line's text.
func FuzzStatements(f *testing.F) {
	f.Add("# h\n- a\n- b\n\npara\n```\ncode\n```\n")
	f.Add("---\ntags: [a]\n---\nbody")
	f.Fuzz(func(t *testing.T, md string) {
		for _, s := range statements(md) {
			if strings.TrimSpace(s.text) == "" {
				t.Fatalf("an empty statement from %q", md)
			}
		}
		frontMatter(md)
	})
}

// TestReadMarkdownSkipsSymlinks: a note that is a symbolic link, to a file
// or a folder outside, is not read but named as skipped.
func TestReadMarkdownSkipsSymlinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	os.WriteFile(secret, []byte("root:x:0:0 Quxzorblat secret"), 0o600)
	os.WriteFile(filepath.Join(dir, "kept.md"), []byte("A note of the folder."), 0o600)
	os.Mkdir(filepath.Join(dir, "sub"), 0o700)
	if err := os.Symlink(secret, filepath.Join(dir, "passwd.md")); err != nil {
		t.Fatal(err)
	}
	os.Symlink(outside, filepath.Join(dir, "sub", "elsewhere"))
	items, skipped, err := ReadSkipping(Markdown, dir)
	if err != nil || len(items) != 1 || !strings.Contains(items[0].Content, "A note of the folder.") {
		t.Fatalf("ReadSkipping = %+v, %v", items, err)
	}
	if strings.Join(skipped, "|") != "passwd.md: a symbolic link, not followed|sub/elsewhere: a symbolic link, not followed" {
		t.Fatalf("skipped %q", skipped)
	}
}
