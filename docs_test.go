package memory_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/memory-mcp/memory-mcp/internal/mdlinks"
)

// Every relative link of the README and the docs/ pages reaches a file of
// the repository, and every #anchor a heading of its page, as GitHub makes
// anchors: a page moved or a heading renamed breaks no link unnoticed.
func TestDocLinksResolve(t *testing.T) {
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 5 {
		t.Fatalf("only %d pages in docs/", len(pages))
	}
	pages = append([]string{"README.md"}, pages...)
	for i := range pages {
		pages[i] = filepath.ToSlash(pages[i])
	}
	for _, problem := range mdlinks.Broken(os.DirFS("."), pages) {
		t.Error(problem)
	}
}
