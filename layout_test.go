package memory_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The house's plan (README, "Where things live"): dependencies point one
// way, cmd → the MCP surface (tools, resources, prompts) → services
// (promotion, consolidation, finetune) → store and llm → the domain. This
// test reads the imports the Go toolchain sees and fails when a file breaks
// the plan, so a new package is held to it the day it arrives.

const module = "github.com/memory-mcp/memory-mcp"

// services are the service packages: governed write paths composed from the
// store's transactions, reachable by every surface.
var services = []string{"promotion", "consolidation", "finetune"}

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

func isSQL(imp string) bool {
	return imp == "database/sql" || strings.HasPrefix(imp, "github.com/ncruces/go-sqlite3")
}

func TestLayout(t *testing.T) {
	for _, p := range listPackages(t) {
		dir := p.dir()
		// Only the store speaks SQL, in its code and in its tests.
		if !within(dir, "store") {
			for _, imp := range p.direct() {
				if isSQL(imp) {
					t.Errorf("%s imports %s: only store/ may; use the store's methods", dir, imp)
				}
			}
		}
		// A service reaches the MCP layer through nothing it imports.
		if slices.ContainsFunc(services, func(s string) bool { return within(dir, s) }) {
			for _, dep := range p.Deps {
				if strings.HasPrefix(dep, "github.com/mark3labs/mcp-go") {
					t.Errorf("%s depends on %s: a service must not reach the MCP layer (LLM templates live in llm/prompt)", dir, dep)
				}
			}
		}
		// The store serves the services; it never calls one, nor the surface.
		if within(dir, "store") {
			for _, dep := range p.Deps {
				rel := strings.TrimPrefix(dep, module+"/")
				for _, up := range slices.Concat(services, []string{"tools", "resources", "prompts", "cmd"}) {
					if strings.HasPrefix(dep, module+"/") && within(rel, up) {
						t.Errorf("%s depends on %s: the store must not depend on a service or the MCP surface", dir, rel)
					}
				}
			}
		}
		// The domain does no I/O and depends on nothing of the module.
		if dir == "" {
			for _, imp := range p.Imports {
				if strings.HasPrefix(imp, module+"/") || strings.Contains(imp, ".") ||
					slices.Contains([]string{"os", "os/exec", "io/fs", "net", "net/http", "database/sql", "log/slog"}, imp) {
					t.Errorf("the domain package imports %s: it holds types, rules and errors, and does no I/O", imp)
				}
			}
		}
	}
}
