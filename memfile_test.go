package memory_test

import (
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

func TestParseMemoryPath(t *testing.T) {
	for _, tt := range []struct {
		path, label string
		shared      bool
		err         string
	}{
		{"/memories", "", false, ""},
		{"/memories/", "", false, ""},
		{"/memories/shared", "", true, ""},
		{"/memories/notes.md", "notes.md", false, ""},
		{"/memories/projects/web/todo.md", "projects:web:todo.md", false, ""},
		{"/memories/shared/team/plan.md", "team:plan.md", true, ""},
		{"/etc/passwd", "", false, "Path must start with /memories, got: /etc/passwd"},
		{"/memoriesX/a", "", false, "Path must start with /memories"},
		{"memories/a", "", false, "Path must start with /memories"},
		{"/memories/../etc", "", false, "would escape /memories directory"},
		{"/memories/a//b", "", false, "would escape /memories directory"},
		{"/memories/a:b", "", false, "may not contain ':'"},
		{"/memories/-a", "", false, "must start with a letter or digit"},
		{"", "", false, "path is missing"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			p, err := memory.ParseMemoryPath("path", tt.path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || p.Label != tt.label || p.Shared != tt.shared {
				t.Fatalf("= %+v, %v; want label %q shared %v", p, err, tt.label, tt.shared)
			}
		})
	}
}

func TestFileSize(t *testing.T) {
	for n, want := range map[int]string{0: "0B", 25: "25B", 1024: "1K", 1536: "1.5K", 5 << 20: "5M"} {
		if got := memory.FileSize(n); got != want {
			t.Errorf("FileSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// FuzzParseMemoryPath: a path that parses names a block whose path is the
// one given (without a trailing slash), so a file is found where it was
// asked for and nowhere else.
func FuzzParseMemoryPath(f *testing.F) {
	for _, p := range []string{"/memories", "/memories/shared/x", "/memories/a/b.md", "/memories/../x", "/memories/a:b", "/memories//"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		p, err := memory.ParseMemoryPath("path", path)
		if err != nil || p.IsDir() {
			return
		}
		if err := memory.CheckID("label", p.Label); err != nil {
			t.Fatalf("%q parsed to label %q, which is no label: %v", path, p.Label, err)
		}
		got := memory.BlockPath(memory.BlockSummary{Label: p.Label, Shared: p.Shared})
		if got != strings.TrimRight(path, "/") {
			t.Fatalf("%q parsed to %+v, whose path is %q", path, p, got)
		}
	})
}
