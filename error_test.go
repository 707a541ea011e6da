package memory_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

// TestErrorCodesDocumented: the codes error.go declares are exactly the codes
// the Errors section of docs/tools.md lists, so that no code is promised that is
// never returned and none is returned that a client was not told of.
func TestErrorCodesDocumented(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "error.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	ast.Inspect(f, func(n ast.Node) bool {
		if spec, ok := n.(*ast.ValueSpec); ok {
			for _, v := range spec.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					declared = append(declared, mustUnquote(t, lit.Value))
				}
			}
		}
		return true
	})
	readme, err := os.ReadFile("docs/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n## Errors\n")
	section, _, _ = strings.Cut(section, "\n## ")
	documented := regexp.MustCompile("`(E[A-Z]+)").FindAllStringSubmatch(section, -1)
	var listed []string
	for _, m := range documented {
		if !slices.Contains(listed, m[1]) {
			listed = append(listed, m[1])
		}
	}
	slices.Sort(declared)
	slices.Sort(listed)
	if !slices.Equal(declared, listed) {
		t.Fatalf("error.go declares %v; the Errors section of docs/tools.md lists %v", declared, listed)
	}
}

func mustUnquote(t *testing.T, s string) string {
	t.Helper()
	u, err := strconv.Unquote(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestPublicHidesInternals(t *testing.T) {
	domain := memory.Errorf(memory.ENOTFOUND, "no fact x")
	if p, internal := memory.Public(fmt.Errorf("get: %w", domain)); internal || p != domain {
		t.Errorf("a wrapped domain error = %v, %v", p, internal)
	}
	p, internal := memory.Public(errors.New("open /home/ann/.local/share/memory-mcp/memory.db: disk I/O error"))
	if !internal || p.Error() != "EINTERNAL: internal error" {
		t.Errorf("an internal error shows as %q, internal %v", p, internal)
	}
}
