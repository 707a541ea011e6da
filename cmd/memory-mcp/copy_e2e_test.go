package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// runCopyBinary runs the memory-mcp binary on data directory dir and returns
// its stdout, stderr and error.
func runCopyBinary(t *testing.T, dir string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(binary(t), append(args, "--data-dir", dir)...)
	cmd.Env = homeEnv(dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// TestCopyIntoPostgres: a data directory used as a team uses one (memories
// remembered, forgotten and consolidated into the archive, facts with
// history, a block, a token) is copied by `memory-mcp copy` into an empty
// PostgreSQL database; verify passes there under the same key, each
// agent's memories in every state are the same on both engines, and the
// copy's refusals say what to do.
func TestCopyIntoPostgres(t *testing.T) {
	sqliteOnly(t, "its source is a SQLite data directory, and the SQLite pass copies it into PostgreSQL already")
	dir := t.TempDir()
	ann := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--seniority", "lead", "--embedder", "none"}})
	var forget struct{ ID string }
	for topic := range 2 {
		for i := range 3 {
			ann.ok("remember", map[string]any{"content": fmt.Sprintf("zeta%d omega%d kappa%d%c", topic, topic, topic, 'a'+i), "category": "episodic"}, &forget)
		}
	}
	ann.ok("remember", map[string]any{"content": "The staging cluster restarts at noon."}, &forget)
	ann.ok("forget", map[string]any{"id": forget.ID, "reason": "wrong cluster"}, nil)
	for _, day := range []string{"Tuesday", "Wednesday"} {
		ann.ok("publish_fact", map[string]any{"fact_id": "deploy-day", "content": "Deploys happen on " + day + ".", "category": "convention"}, nil)
	}
	ann.ok("memory", map[string]any{"command": "insert", "path": "/memories/persona", "insert_line": 0, "insert_text": "Ann is terse."}, nil)
	ann.stop()
	if out, errs, err := runCopyBinary(t, dir, "consolidate", "--agent-id", "ann", "--older-than", "0", "--strategy", "simple", "--embedder", "none"); err != nil ||
		!strings.HasPrefix(out, "ann: consolidated 4 memories into 2 summaries") {
		t.Fatalf("consolidate: %v\n%s%s", err, out, errs)
	}
	if _, errs, err := runCopyBinary(t, dir, "token", "add", "--agent-id", "bob", "--seniority", "mid"); err != nil {
		t.Fatalf("token add: %v\n%s", err, errs)
	}

	url := storetest.PostgresDatabaseURL(t)
	out, errs, err := runCopyBinary(t, dir, "copy", "--to", url)
	if err != nil || !regexp.MustCompile(`every table holds the rows it held, \d+ stamped rows verify, and [1-9]\d* searches find the same memories`).MatchString(out) {
		t.Fatalf("copy: %v\n%s%s", err, out, errs)
	}
	for _, table := range []string{"memories", "memory_sources", "operation_log", "block_versions", "auth_tokens", "write_log"} {
		if !regexpLine(out, table) {
			t.Errorf("copy did not list %s with its rows:\n%s", table, out)
		}
	}
	if out, errs, err := runCopyBinary(t, dir, "verify", "--database", url); err != nil {
		t.Fatalf("verify on PostgreSQL: %v\n%s%s", err, out, errs)
	}

	// Every memory of every state, as each engine lists it.
	lite, err := store.Open(context.Background(), filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	pg, err := store.OpenPostgres(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	all := memory.ListQuery{States: []memory.MemoryState{memory.StateActive, memory.StateConsolidated, memory.StateForgotten}, Limit: 500}
	ctx := memory.WithIdentity(context.Background(), memory.Identity{AgentID: "ann", Seniority: memory.SeniorityLead})
	listed := func(db *store.DB) []string {
		page, err := store.NewMemoryService(db, nil).List(ctx, all)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range page.Memories {
			out = append(out, e.ID+" "+e.Content)
		}
		slices.Sort(out)
		return out
	}
	want, got := listed(lite), listed(pg)
	if len(want) != 9 || !slices.Equal(got, want) {
		t.Fatalf("ann's memories on PostgreSQL:\n%s\nin SQLite:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A fixed query set finds the same memories, in the same order, on
	// both engines, the archive included.
	for _, text := range []string{"zeta0 omega0", "kappa1b", "omega1", "zeta1 kappa0a"} {
		q := memory.Query{Text: text, Limit: 10, IncludeArchived: true}
		want, werr := store.NewMemoryService(lite, nil).Search(ctx, q)
		got, gerr := store.NewMemoryService(pg, nil).Search(ctx, q)
		if werr != nil || gerr != nil || len(want) == 0 || hitIDs(got) != hitIDs(want) {
			t.Errorf("search %q: %s on PostgreSQL (%v), %s in SQLite (%v)", text, hitIDs(got), gerr, hitIDs(want), werr)
		}
	}

	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"not empty", []string{"copy", "--to", url}, "is not empty (its table"},
		{"not PostgreSQL", []string{"copy", "--to", "mysql://db.example.com/memory"}, "is not a PostgreSQL URL"},
		{"unreachable", []string{"copy", "--to", "postgres://memory@127.0.0.1:1/memory?connect_timeout=2"}, "postgres://127.0.0.1:1/memory"},
		{"no target", []string{"copy"}, "name the new, empty PostgreSQL database to copy into: --to"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errs, err := runCopyBinary(t, dir, tt.args...)
			if err == nil || !strings.Contains(errs, tt.want) {
				t.Fatalf("%v: %v\n%s\nwant it refused saying %q", tt.args, err, errs, tt.want)
			}
		})
	}
	if _, errs, err := runCopyBinary(t, t.TempDir(), "copy", "--to", url); err == nil || !strings.Contains(errs, "holds no memory.db") {
		t.Fatalf("copy of an empty data directory: %v\n%s", err, errs)
	}
}

// regexpLine reports whether out has a line naming table and a count.
func regexpLine(out, table string) bool {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == table && f[1] != "0" {
			return true
		}
	}
	return false
}

// TestCopyRefusalsNameTheURLsSource: a target copy cannot open is refused
// naming where its URL came from (--to, else --database or
// MEMORY_MCP_DATABASE), so the operator corrects the setting that was
// used, and never a flag that was not.
func TestCopyRefusalsNameTheURLsSource(t *testing.T) {
	url := storetest.PostgresDatabaseURL(t) // postgres://user@host:port/db?sslmode=disable
	base, query, _ := strings.Cut(url, "?")
	missing := base[:strings.LastIndex(base, "/")] + "/no_such_copy_db?" + query
	dir := t.TempDir()
	if _, errs, err := runCopyBinary(t, dir, "token", "add", "--agent-id", "bob", "--seniority", "mid"); err != nil {
		t.Fatalf("token add: %v\n%s", err, errs)
	}
	for _, tt := range []struct {
		name      string
		args, env []string
		want      []string
		notWant   string
	}{
		{"--to", []string{"--to", missing}, nil, []string{`database "no_such_copy_db" does not exist`, "flag --to"}, "--database"},
		{"--database", []string{"--database", missing}, nil, []string{`database "no_such_copy_db" does not exist`, "flag --database"}, "--to"},
		{"env", nil, []string{"MEMORY_MCP_DATABASE=" + missing}, []string{`database "no_such_copy_db" does not exist`, "env MEMORY_MCP_DATABASE"}, "--database"},
		{"not PostgreSQL", []string{"--to", "mysql://db.example.com/memory"}, nil, []string{"is not a PostgreSQL URL", "flag --to"}, "--database"},
		{"a raw @", []string{"--to", "postgres://ann:p@ss@127.0.0.1:1/memory"}, nil, []string{"percent-encode @", "flag --to"}, "--database"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(binary(t), append([]string{"copy", "--data-dir", dir}, tt.args...)...)
			cmd.Env = append(homeEnv(dir), tt.env...)
			var errb bytes.Buffer
			cmd.Stderr = &errb
			err := cmd.Run()
			msg := errb.String()
			for _, w := range tt.want {
				if err == nil || !strings.Contains(msg, w) {
					t.Errorf("copy %v: %v, and stderr does not say %q: %s", tt.args, err, w, msg)
				}
			}
			if strings.Contains(msg, tt.notWant) {
				t.Errorf("copy %v names %s, which it was not given: %s", tt.args, tt.notWant, msg)
			}
		})
	}
}
