package memory_test

import (
	"bytes"
	"encoding/json"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The house's plan (docs/development.md, "Where things live"): dependencies point one
// way, cmd → the MCP surface (tools, resources, prompts, and the review
// page ui, which holds to the same rules) → services
// (promotion, consolidation, finetune) → store and llm → the domain. This
// test reads the imports the Go toolchain sees and fails when a file breaks
// the plan, so a new package is held to it the day it arrives.

const module = "github.com/memory-mcp/memory-mcp"

// Every top-level package is in one layer; a package in none of these is a
// service (promotion today; consolidation and finetune next), so a new
// service is held to the rules the day it arrives.
var (
	surface = []string{"tools", "resources", "prompts", "ui"}
	lower   = []string{"store", "llm"}
	outside = []string{"cmd", "internal", "scripts"} // wiring, benchmark data, generators
	// leaves hold rules every layer shares (the English text rules); a
	// leaf imports nothing of the module, so any package but the domain
	// may import one.
	leaves = []string{"internal/text"}
)

// domainImports are the standard packages the domain may use: none of them
// does I/O. Adding one is a decision, made here.
var domainImports = []string{"context", "crypto/sha256", "encoding/hex", "encoding/json", "errors", "fmt", "maps", "math",
	"regexp", "slices", "sort", "strconv", "strings", "time", "unicode", "unicode/utf8"}

// goPackage is what go list says of a package.
type goPackage struct {
	ImportPath   string
	Imports      []string // direct, of its non-test files
	Deps         []string // transitive, of its non-test files
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
}

func (p goPackage) dir() string {
	return strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
}

// direct lists every package a file of p imports, tests included.
func (p goPackage) direct() []string {
	return slices.Concat(p.Imports, p.TestImports, p.XTestImports)
}

func listPackages(t *testing.T) []goPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-e", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []goPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Error != nil {
			t.Errorf("%s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 8 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

// within reports whether dir is top or lies under it.
func within(dir, top string) bool { return dir == top || strings.HasPrefix(dir, top+"/") }

// layer names the layer of a package directory: "domain", "leaf",
// "surface", "lower", "outside" or "service".
func layer(dir string) string {
	top, _, _ := strings.Cut(dir, "/")
	switch {
	case dir == "":
		return "domain"
	case slices.ContainsFunc(leaves, func(l string) bool { return within(dir, l) }):
		return "leaf"
	case slices.Contains(surface, top):
		return "surface"
	case slices.Contains(lower, top):
		return "lower"
	case slices.Contains(outside, top):
		return "outside"
	}
	return "service"
}

// ofModule returns the directory of a package of this module, or false.
func ofModule(imp string) (string, bool) {
	if imp == module {
		return "", true
	}
	rel, ok := strings.CutPrefix(imp, module+"/")
	return rel, ok
}

func isMCP(imp string) bool {
	return strings.HasPrefix(imp, "github.com/mark3labs/mcp-go") || strings.HasPrefix(imp, "github.com/modelcontextprotocol/")
}

func isSQL(imp string) bool {
	return imp == "database/sql" || strings.HasPrefix(imp, "github.com/ncruces/go-sqlite3") ||
		strings.HasPrefix(imp, "modernc.org/sqlite") || strings.HasPrefix(imp, "github.com/mattn/go-sqlite3") ||
		isPostgresDriver(imp)
}

func isPostgresDriver(imp string) bool {
	return strings.HasPrefix(imp, "github.com/jackc/pgx") || strings.HasPrefix(imp, "github.com/lib/pq")
}

// TestPostgresDriverStaysInTheEngine holds the store's design (one store,
// two dialects; docs/DESIGN.md): the services and their rules are the same
// Go code on either engine, and only the PostgreSQL engine's own files
// (named postgres*.go) import its driver. A service file reaching for pgx
// would be a rule written for one engine.
func TestPostgresDriverStaysInTheEngine(t *testing.T) {
	fset := token.NewFileSet()
	seen := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, is := range f.Imports {
			imp, _ := strconv.Unquote(is.Path.Value)
			if !isPostgresDriver(imp) {
				continue
			}
			seen++
			base := filepath.Base(path)
			if !within(filepath.ToSlash(filepath.Dir(path)), "store") || !strings.HasPrefix(base, "postgres") {
				t.Errorf("%s imports %s: only the PostgreSQL engine's files (store/**/postgres*.go) may", path, imp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("no file imports the PostgreSQL driver: the engine moved, and this test no longer holds it")
	}
}

func TestLayout(t *testing.T) {
	for _, p := range listPackages(t) {
		for _, problem := range layoutProblems(p) {
			t.Errorf("%s: %s", p.ImportPath, problem)
		}
	}
}

// layoutProblems lists how package p breaks the plan. SQL and the MCP
// layer count in test files too; between the module's own layers only the
// code counts, since a test may use the real store (real parts, not fakes).
func layoutProblems(p goPackage) []string {
	dir, l := p.dir(), layer(p.dir())
	var out []string
	for _, imp := range p.direct() {
		switch {
		case isSQL(imp) && !within(dir, "store"):
			out = append(out, "imports "+imp+": only store/ speaks SQL; use the store's methods")
		case l == "service" && isMCP(imp):
			out = append(out, "imports "+imp+": a service must not reach the MCP layer (LLM templates live in llm/prompt)")
		}
	}
	for _, imp := range p.Imports {
		mod, ours := ofModule(imp)
		switch {
		case l == "domain" && !ours && !slices.Contains(domainImports, imp):
			out = append(out, "imports "+imp+": the domain holds types, rules and errors, and does no I/O (see domainImports)")
		case l == "domain" && ours:
			out = append(out, "imports "+mod+": the domain depends on nothing of the module")
		case l == "leaf" && ours:
			out = append(out, "imports "+mod+": a leaf package (internal/text) imports nothing of the module")
		case ours && layer(mod) == "leaf":
			// Every layer but the domain may use a leaf.
		case l == "lower" && ours && layer(mod) != "domain" && layer(mod) != "lower":
			out = append(out, "imports "+mod+": store/ and llm/ serve the services; they never call one, nor the MCP surface")
		case l == "surface" && ours && layer(mod) != "domain" && layer(mod) != "surface":
			out = append(out, "imports "+mod+": the MCP surface reaches services only through the domain's interfaces")
		case l == "service" && ours && (layer(mod) == "surface" || layer(mod) == "outside"):
			out = append(out, "imports "+mod+": a service must not reach the MCP surface or cmd")
		}
	}
	if l == "service" {
		for _, dep := range p.Deps {
			if isMCP(dep) {
				out = append(out, "depends on "+dep+" through its imports: a service must not reach the MCP layer")
				break
			}
		}
	}
	return out
}

// TestLayoutLeaf holds the leaf rule to its word: a leaf that imports the
// module is refused, and any layer but the domain may import a leaf.
func TestLayoutLeaf(t *testing.T) {
	text := module + "/internal/text"
	if got := layoutProblems(goPackage{ImportPath: text, Imports: []string{module}}); len(got) != 1 {
		t.Errorf("a leaf importing the domain: %v, want one problem", got)
	}
	for _, dir := range []string{"store", "tools", "promotion", "cmd/memory-mcp"} {
		if got := layoutProblems(goPackage{ImportPath: module + "/" + dir, Imports: []string{text, "strings"}}); len(got) != 0 {
			t.Errorf("%s importing the leaf: %v", dir, got)
		}
	}
	if got := layoutProblems(goPackage{ImportPath: module, Imports: []string{text}}); len(got) != 1 {
		t.Errorf("the domain importing the leaf: %v, want one problem", got)
	}
}
