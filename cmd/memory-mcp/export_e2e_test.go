package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

// writeRichMemory has a server write a memory of every lifecycle state and
// kind an export carries: memories active, superseded, forgotten, shared,
// consolidated with their sources archived; a conflict and its decision;
// facts with a retraction in their log; a block's versions; notes, the
// ledger and shared state.
func writeRichMemory(t *testing.T, dir string) {
	t.Helper()
	s := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--seniority", "senior", "--embedder", "none"}})
	writeEveryKind(s, "Quxzorblat")
	var lyon, paris, tmp struct {
		ID string `json:"id"`
	}
	s.ok("remember", map[string]any{"content": "The team offsite is on Tuesday.", "namespace": "home"}, &lyon)
	s.ok("remember", map[string]any{"content": "The team offsite is on Wednesday.", "namespace": "home"}, &paris)
	s.ok("remember", map[string]any{"content": "A scratch thought to drop.", "category": "working"}, &tmp)
	s.ok("forget", map[string]any{"id": tmp.ID, "reason": "scratch"}, nil)
	for _, c := range []string{"Deploys go out on Tuesdays.", "Deploys need a second reviewer.", "Deploy windows close at 16:00."} {
		s.ok("remember", map[string]any{"content": c, "category": "procedural"}, nil)
	}
	s.ok("remember", map[string]any{"content": "The team offsite is on Wednesday.", "namespace": "home"}, nil) // a repeat, kept as said
	s.ok("consolidate_memory", map[string]any{"older_than": "0"}, nil)
	s.ok("publish_fact", map[string]any{"fact_id": "conv-tls", "content": "Services use TLS 1.3.", "category": "convention"}, nil)
	s.ok("publish_fact", map[string]any{"fact_id": "conv-tls", "content": "Services use TLS 1.3 or mTLS.", "category": "convention"}, nil)
	s.fail("publish_fact", map[string]any{"fact_id": "policy-keys", "content": "Keys rotate yearly.", "category": "core_policy"}, "EHELD", "held") // an approval
	s.ok("memory", map[string]any{"command": "insert", "path": "/memories/persona", "insert_line": 0, "insert_text": "I answer briefly."}, nil)
	s.ok("write_note", map[string]any{"text": "decision: we ship on Fridays no more", "promote": true}, nil)
	s.stop()
	h := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "root", "--human", "--embedder", "none"}})
	h.ok("retract_fact", map[string]any{"fact_id": "conv-tabs", "reason": "spaces now"}, nil)
	h.stop()
}

// TestExportImportRoundTrip: export, import into an empty store, export
// again gives the same bytes; the imported store passes verify under its
// own new key; every kind the rich store holds is in the export.
func TestExportImportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	writeRichMemory(t, dir)
	human := []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}
	first := filepath.Join(t.TempDir(), "first.jsonl")
	if _, err := runCmd(t, dir, human, "export", "--output", first); err != nil {
		t.Fatalf("export: %v", err)
	}
	a, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	kinds := exportKinds(t, a)
	for _, k := range []string{"fact_op", "fact", "fact_claim", "memory", "memory_source", "memory_claim", "memory_conflict", "block", "block_version",
		"note", "event", "shared_decision", "approval", "memory_repeat"} {
		if kinds[k] == 0 {
			t.Errorf("the export holds no %s record: %v", k, kinds)
		}
	}
	for _, state := range []string{`"forgotten_at":1`, `"archive_reason":"consolidated"`, `"superseded_by":"`, `"shared":1`, `"operation_type":"RETRACT"`, `"resolution":"newer_wins"`} {
		if !bytes.Contains(a, []byte(state)) {
			t.Errorf("no record in the export has %s", state)
		}
	}

	restored := filepath.Join(t.TempDir(), "data")
	out, err := runCmd(t, restored, human, "import", first, "--embedder", "none")
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if !strings.Contains(out, "imported") {
		t.Errorf("import printed %q", out)
	}
	if out, err := runCmd(t, restored, nil, "verify"); err != nil {
		t.Fatalf("verify of the imported store: %v\n%s", err, out)
	}
	var second bytes.Buffer
	if err := exportTo(t, restored, human, &second); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, second.Bytes()) {
		la, lb := strings.Split(string(a), "\n"), strings.Split(second.String(), "\n")
		for i := range min(len(la), len(lb)) {
			if la[i] != lb[i] {
				t.Fatalf("the second export differs at line %d:\n%s\n%s", i+1, la[i], lb[i])
			}
		}
		t.Fatalf("the second export has %d lines, the first %d", len(lb), len(la))
	}
	if a, b := searches(t, dir), searches(t, restored); a != b {
		t.Errorf("the same searches found other results in the imported store:\n%s\n---\n%s", a, b)
	}
	// Each imported memory names the import as where it came from: the
	// file, its checksum, who imported it.
	sum := sha256.Sum256(a)
	s := startIn(t, options{dataDir: restored, args: []string{"--agent-id", "ann", "--embedder", "none"}})
	var listed memory.EntryPage
	s.ok("list_memories", map[string]any{"limit": 500}, &listed)
	s.stop()
	if len(listed.Memories) == 0 {
		t.Fatal("ann has no memory after the import")
	}
	for _, e := range listed.Memories {
		if imp := e.Provenance.Imported; imp == nil || imp.File != first || imp.SHA256 != hex.EncodeToString(sum[:]) || imp.By != "human:root" {
			t.Fatalf("memory %s shows import %+v", e.ID, imp)
		}
	}
}

// exportTo runs export to standard output.
func exportTo(t *testing.T, dir string, env []string, w *bytes.Buffer) error {
	t.Helper()
	out, err := runCmd(t, dir, env, "export")
	w.WriteString(out)
	return err
}

// exportKinds counts an export's records by kind, checking its frame.
func exportKinds(t *testing.T, b []byte) map[string]int {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if !strings.HasPrefix(lines[0], `{"format":"memory-mcp","version":1`) || !strings.HasPrefix(lines[len(lines)-1], `{"end":true,"records":`) {
		t.Fatalf("export frame: %s ... %s", lines[0], lines[len(lines)-1])
	}
	kinds := map[string]int{}
	for _, l := range lines[1 : len(lines)-1] {
		var rec struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("record %s: %v", l, err)
		}
		kinds[rec.Kind]++
	}
	return kinds
}

// TestImportMergesThroughGates imports an export into a store that holds
// memory: a dry run says what would change and changes nothing; the import
// stores the active memories and standing facts through the gates (a memory
// the store has already is a duplicate, a forgotten one is not revived);
// a second import stores nothing new; verify passes.
func TestImportMergesThroughGates(t *testing.T) {
	src := t.TempDir()
	writeRichMemory(t, src)
	human := []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}
	file := filepath.Join(t.TempDir(), "ann.jsonl")
	if _, err := runCmd(t, src, human, "export", "--output", file); err != nil {
		t.Fatal(err)
	}

	dst := t.TempDir()
	s := startIn(t, options{dataDir: dst, args: []string{"--agent-id", "ann", "--seniority", "senior", "--embedder", "none"}})
	s.ok("remember", map[string]any{"content": "The team offsite is on Wednesday.", "namespace": "home"}, nil)
	s.ok("remember", map[string]any{"content": "Bob's own memory stays."}, nil)
	s.stop()
	var before bytes.Buffer
	if err := exportTo(t, dst, human, &before); err != nil {
		t.Fatal(err)
	}

	// a merge writes as whoever imports: ann, here as a human, so that her
	// memory already in the store is what the import repeats
	importer := []string{"MEMORY_MCP_AGENT_ID=ann", "MEMORY_MCP_HUMAN=true"}
	out, err := runCmd(t, dst, importer, "import", file, "--dry-run", "--embedder", "none")
	if err != nil || !strings.Contains(out, "would import through the write gates:") || !strings.Contains(out, "duplicate 1") || !strings.Contains(out, "stored ") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	var after bytes.Buffer
	if err := exportTo(t, dst, human, &after); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before.Bytes(), after.Bytes()) {
		t.Fatal("a dry run changed the store")
	}

	out, err = runCmd(t, dst, importer, "import", file, "--embedder", "none")
	if err != nil || !strings.Contains(out, "imported through the write gates:") || !strings.Contains(out, "duplicate 1") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if !strings.Contains(out, "memory not active") {
		t.Errorf("the forgotten and archived memories are not reported as left out:\n%s", out)
	}
	again, err := runCmd(t, dst, importer, "import", file, "--embedder", "none")
	if err != nil || strings.Contains(again, "stored ") || !strings.Contains(again, "imported before ") {
		t.Fatalf("a second import: %v\n%s", err, again)
	}
	if out, err := runCmd(t, dst, nil, "verify"); err != nil {
		t.Fatalf("verify: %v\n%s", err, out)
	}
	var merged bytes.Buffer
	if err := exportTo(t, dst, human, &merged); err != nil {
		t.Fatal(err)
	}
	m := merged.String()
	for _, want := range []string{`"content":"Services use TLS 1.3 or mTLS."`, `"content":"Bob's own memory stays."`} {
		if !strings.Contains(m, want) {
			t.Errorf("the merged store lacks %s", want)
		}
	}
	if strings.Contains(m, "A scratch thought to drop.") {
		t.Error("a forgotten memory was revived by the import")
	}
	var stored int
	fmt.Sscanf(out[strings.Index(out, "stored "):], "stored %d", &stored)
	b, a := exportKinds(t, before.Bytes()), exportKinds(t, merged.Bytes())
	if grew := a["memory"] - b["memory"] + a["fact"] - b["fact"]; stored == 0 || grew != stored {
		t.Errorf("the import says it stored %d, the store grew by %d memories and facts", stored, grew)
	}
}

// TestExportFilters: an agent exports only its own memory, a namespace or
// a time range narrows an export, a filtered export imports into an empty
// store whole, and a damaged export is refused without storing anything.
func TestExportFilters(t *testing.T) {
	dir := t.TempDir()
	writeRichMemory(t, dir)
	s := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "bob", "--embedder", "none"}})
	s.ok("remember", map[string]any{"content": "Bob keeps his own notes.", "namespace": "home"}, nil)
	s.stop()
	ann := []string{"MEMORY_MCP_AGENT_ID=ann"}
	human := []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}

	own, err := runCmd(t, dir, ann, "export")
	if err != nil {
		t.Fatal(err)
	}
	kinds := exportKinds(t, []byte(own))
	if kinds["memory"] == 0 || kinds["note"] == 0 || kinds["fact"] != 0 || kinds["shared_decision"] != 0 || strings.Contains(own, "Bob keeps") ||
		!strings.Contains(own, `"filter":{"agent_id":"ann"}`) {
		t.Errorf("ann's own export: %v\n%s", kinds, own)
	}
	if _, err := runCmd(t, dir, ann, "export", "--agent-id", "bob"); err == nil || !strings.Contains(err.Error(), "may export only its own memory") {
		t.Errorf("ann exporting bob's memory: %v", err)
	}
	bob, err := runCmd(t, dir, human, "export", "--agent-id", "bob")
	if err != nil || !strings.Contains(bob, "Bob keeps") || strings.Contains(bob, "Quxzorblat") {
		t.Errorf("a human exporting bob's memory: %v\n%s", err, bob)
	}

	home, err := runCmd(t, dir, human, "export", "--namespace", "home")
	if err != nil {
		t.Fatal(err)
	}
	hk := exportKinds(t, []byte(home))
	// The two offsite memories and bob's; their conflict, claims, and the repeat of one.
	if hk["memory"] != 3 || hk["memory_conflict"] != 1 || hk["memory_repeat"] != 1 || len(hk) != 4 {
		t.Errorf("namespace home: %v\n%s", hk, home)
	}
	if later, err := runCmd(t, dir, human, "export", "--since", "2100-01-01"); err != nil || len(exportKinds(t, []byte(later))) != 0 {
		t.Errorf("an export of the future: %v\n%s", err, later)
	}
	if _, err := runCmd(t, dir, human, "export", "--since", "yesterday"); err == nil || !strings.Contains(err.Error(), "is not a time such as") {
		t.Errorf("--since yesterday: %v", err)
	}

	// A filtered export is whole: it imports into an empty store, which verifies.
	file := filepath.Join(t.TempDir(), "ann.jsonl")
	os.WriteFile(file, []byte(own), 0o600)
	into := filepath.Join(t.TempDir(), "d")
	if out, err := runCmd(t, into, human, "import", file, "--embedder", "none"); err != nil {
		t.Fatalf("import ann's export: %v\n%s", err, out)
	}
	if out, err := runCmd(t, into, nil, "verify"); err != nil {
		t.Fatalf("verify: %v\n%s", err, out)
	}

	// One changed byte, and the import refuses the whole file.
	damaged := filepath.Join(t.TempDir(), "damaged.jsonl")
	os.WriteFile(damaged, []byte(strings.Replace(own, "Quxzorblat", "Quxzorblaz", 1)), 0o600)
	empty := filepath.Join(t.TempDir(), "e")
	if _, err := runCmd(t, empty, human, "import", damaged, "--embedder", "none"); err == nil || !strings.Contains(err.Error(), "the export was changed or damaged") {
		t.Fatalf("import of a damaged export: %v", err)
	}
	if again, err := runCmd(t, empty, human, "export"); err != nil || len(exportKinds(t, []byte(again))) != 0 {
		t.Errorf("a refused import left records: %v\n%s", err, again)
	}
	cut := filepath.Join(t.TempDir(), "cut.jsonl")
	os.WriteFile(cut, []byte(own[:len(own)/2]), 0o600)
	if _, err := runCmd(t, empty, human, "import", cut, "--embedder", "none"); err == nil || !strings.Contains(err.Error(), "of the export: ") {
		t.Fatalf("import of a cut export: %v", err)
	}
	if _, err := runCmd(t, empty, ann, "import", file, "--embedder", "none"); err == nil || !strings.Contains(err.Error(), "run it as a human") {
		t.Errorf("an agent's import: %v", err)
	}
}

// TestImportForeignFormats imports each committed sample of another tool's
// memory through the binary, its format detected: a dry run stores
// nothing, the import remembers each item as the caller's own memory of
// the right kind with its source named, and a second import stores nothing.
func TestImportForeignFormats(t *testing.T) {
	samples := filepath.Join("..", "..", "internal", "foreign", "testdata")
	cases := []struct {
		file, format string
		stored       int
		content      string // one memory it makes, and its category and source
		category     string
		source       string
	}{
		{"memory.jsonl", "official-memory", 7, "John Smith works at Anthropic.", "semantic", "official-memory:memory.jsonl relation"},
		{"CLAUDE.md", "claude-md", 7, "Prefer named exports over default exports.", "procedural", "claude-md:CLAUDE.md line 13"},
		{"MEMORY.md", "claude-md", 3, "The staging database is reset every Sunday at 02:00 UTC.", "semantic", "claude-md:MEMORY.md line 3"},
		{"notes", "markdown", 2, "2026-10-02-billing\n\nDecided to move invoicing to the new queue. Sarah owns the migration and reports on Friday.",
			"semantic", "markdown:meetings/2026-10-02-billing.md"},
		{"mem0-export.json", "mem0", 2, "Plans to visit Tokyo in the spring", "semantic", "mem0:mem0-export.json 475bde34-21e6-42ab-8bef-0ab84474f156"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			dir := t.TempDir()
			path, err := filepath.Abs(filepath.Join(samples, c.file))
			if err != nil {
				t.Fatal(err)
			}
			out, err := memoryMCP(t, dir, "import", path, "--dry-run", "--agent-id", "ann")
			if err != nil || !strings.Contains(out, fmt.Sprintf("would import through the write gates: stored %d\n", c.stored)) {
				t.Fatalf("dry run: %v\n%s", err, out)
			}
			out, err = memoryMCP(t, dir, "import", path, "--agent-id", "ann")
			if err != nil || !strings.Contains(out, fmt.Sprintf("imported through the write gates: stored %d\n", c.stored)) {
				t.Fatalf("import: %v\n%s", err, out)
			}
			again, err := memoryMCP(t, dir, "import", path, "--agent-id", "ann", "--format", c.format)
			if err != nil || strings.Contains(again, "stored") {
				t.Fatalf("a second import: %v\n%s", err, again)
			}
			own, err := runCmd(t, dir, []string{"MEMORY_MCP_AGENT_ID=ann"}, "export")
			if err != nil {
				t.Fatal(err)
			}
			if n := exportKinds(t, []byte(own))["memory"]; n != c.stored {
				t.Errorf("%d memories, want %d", n, c.stored)
			}
			var found bool
			for _, l := range strings.Split(own, "\n") {
				var rec struct {
					Row struct {
						AgentID  string `json:"agent_id"`
						Content  string `json:"content"`
						Category string `json:"category"`
						Source   string `json:"source"`
					} `json:"row"`
				}
				if json.Unmarshal([]byte(l), &rec) == nil && rec.Row.Content == c.content {
					found = true
					if rec.Row.AgentID != "ann" || rec.Row.Category != c.category || rec.Row.Source != c.source {
						t.Errorf("memory %+v, want ann's %s from %s", rec.Row, c.category, c.source)
					}
				}
			}
			if !found {
				t.Errorf("no memory says %q:\n%s", c.content, own)
			}
		})
	}
	if out, err := memoryMCP(t, t.TempDir(), "import", filepath.Join(samples, "notes", ".obsidian", "workspace.json")); err == nil ||
		!strings.Contains(out, "is of no format this build reads") {
		t.Errorf("import of an unknown format: %v\n%s", err, out)
	}
}

// TestExportMemoryTool: an agent pages through its own memory over MCP;
// the pages joined are the file the export command writes for it, which
// imports into an empty store; the pages after a first page come from its
// export, whatever is written meanwhile; a cursor of an export that has
// since changed, which the server no longer keeps, a made-up cursor and a limit out of range are refused.
func TestExportMemoryTool(t *testing.T) {
	dir := t.TempDir()
	bob := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "bob", "--embedder", "none"}})
	bob.ok("remember", map[string]any{"content": "Bob's secret is safe."}, nil)
	bob.stop()
	s := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--seniority", "senior", "--embedder", "none"}})
	writeEveryKind(s, "Quxzorblat")
	var joined strings.Builder
	var page memory.ExportPage
	args := map[string]any{"limit": 3}
	for pages := 0; ; pages++ {
		s.ok("export_memory", args, &page)
		if page.From != strings.Count(joined.String(), "\n") || page.Count != strings.Count(page.Lines, "\n") || page.Count > 3 {
			t.Fatalf("page %d: %+v", pages, page)
		}
		joined.WriteString(page.Lines)
		if page.NextCursor == "" {
			if pages < 2 || page.From+page.Count != page.Total {
				t.Fatalf("the last page after %d: %+v", pages, page)
			}
			break
		}
		args = map[string]any{"cursor": page.NextCursor, "limit": 3}
	}
	if strings.Contains(joined.String(), "Bob's secret") {
		t.Fatal("ann's export holds bob's memory")
	}
	want, err := runCmd(t, dir, []string{"MEMORY_MCP_AGENT_ID=ann"}, "export")
	if err != nil || want != joined.String() {
		t.Fatalf("the pages joined differ from the export command's file (%v):\n%s\n---\n%s", err, joined.String(), want)
	}

	// The pages after the first are cut from the export the first page
	// made: a write between them changes nothing they return.
	var first, rest memory.ExportPage
	s.ok("export_memory", map[string]any{"limit": 1}, &first)
	s.ok("remember", map[string]any{"content": "Something new since the first page."}, nil)
	s.ok("export_memory", map[string]any{"cursor": first.NextCursor, "limit": 1000}, &rest)
	if rest.SHA256 != first.SHA256 || rest.NextCursor != "" || first.Lines+rest.Lines != joined.String() {
		t.Fatalf("the pages after a write differ from the export of the first page:\n%s%s\n---\n%s", first.Lines, rest.Lines, joined.String())
	}
	// A server that did not make the first page exports again, and the
	// export is no longer the cursor's.
	s.stop()
	s = startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--seniority", "senior", "--embedder", "none"}})
	s.fail("export_memory", map[string]any{"cursor": first.NextCursor}, "ECONFLICT", "start again without a cursor")
	s.fail("export_memory", map[string]any{"cursor": "7.nonsense"}, "EINVALID", "is not one this tool gave")
	s.fail("export_memory", map[string]any{"limit": 5000}, "EINVALID", "give 1 to 1000")
	s.stop()

	file := filepath.Join(t.TempDir(), "ann.jsonl")
	os.WriteFile(file, []byte(joined.String()), 0o600)
	if out, err := runCmd(t, filepath.Join(t.TempDir(), "d"), []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}, "import", file, "--embedder", "none"); err != nil {
		t.Fatalf("import of the pages joined: %v\n%s", err, out)
	}
}

// searches runs a fixed set of searches as ann on dir and returns their
// results (ids, order and scores) as text.
func searches(t *testing.T, dir string, args ...string) string {
	t.Helper()
	s := startIn(t, options{dataDir: dir, args: append([]string{"--agent-id", "ann", "--embedder", "none"}, args...)})
	defer s.stop()
	var b strings.Builder
	for _, q := range []string{"team offsite", "vendor contact extension", "deploys", "staging host", "reviewer"} {
		var r struct {
			Results []struct {
				ID    string  `json:"id"`
				Score float64 `json:"score"`
			} `json:"results"`
		}
		s.ok("search_memory", map[string]any{"query": q, "scope": "all"}, &r)
		if len(r.Results) == 0 {
			t.Errorf("search %q found nothing in %s", q, dir)
		}
		fmt.Fprintf(&b, "%s: %v\n", q, r.Results)
	}
	return b.String()
}

// TestExportMarkdown renders the memory for people: one file per
// namespace with each memory's provenance, what is no longer in force and
// why, and the facts.
func TestExportMarkdown(t *testing.T) {
	dir := t.TempDir()
	writeRichMemory(t, dir)
	out := filepath.Join(t.TempDir(), "md")
	if _, err := runCmd(t, dir, []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}, "export", "--markdown", out); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	home, def, facts := read("home.md"), read("default.md"), read("facts.md")
	for _, c := range []struct{ file, text, want string }{
		{"home.md", home, "# Memory: home\n\n## Semantic\n\n- The team offsite is on Wednesday.\n  <sub>`mem-"},
		{"home.md", home, "## No longer in force\n\n- The team offsite is on Tuesday.\n"},
		{"home.md", home, " · ann (senior) · "},
		{"home.md", home, " · superseded by `mem-"},
		{"default.md", def, "- A scratch thought to drop.\n"},
		{"default.md", def, " by ann: scratch"},
		{"default.md", def, " · consolidated into `mem-"},
		{"default.md", def, "shared copy of `mem-"},
		{"facts.md", facts, "## conv-tls\n\nServices use TLS 1.3 or mTLS.\n\n<sub>convention · version 2 · by ann</sub>"},
		{"facts.md", facts, " · retracted "},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s lacks %q:\n%s", c.file, c.want, c.text)
		}
	}
	if _, err := runCmd(t, dir, []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}, "export", "--markdown", out); err == nil ||
		!strings.Contains(err.Error(), "is not empty") {
		t.Errorf("a second rendering into the same folder: %v", err)
	}
}

// resum gives an edited export a trailer whose checksum matches again, as
// anyone can: the checksum has no key.
func resum(t *testing.T, export string) string {
	t.Helper()
	body := export[:strings.LastIndex(strings.TrimSuffix(export, "\n"), "\n")+1]
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	sum := sha256.Sum256([]byte(body))
	return body + fmt.Sprintf(`{"end":true,"records":%d,"sha256":"%s"}`, len(lines)-1, hex.EncodeToString(sum[:])) + "\n"
}

// TestImportRefusesBadRecords: an exact import holds every memory to the
// rules remember does, so a crafted export (its checksum recomputed) cannot
// smuggle in a namespace that names a path, text that is not UTF-8, or a
// memory of no agent; the store stays empty.
func TestImportRefusesBadRecords(t *testing.T) {
	src := t.TempDir()
	s := startIn(t, options{dataDir: src, args: []string{"--agent-id", "ann", "--embedder", "none"}})
	s.ok("remember", map[string]any{"content": "Quxzorblat ships on Fridays.", "namespace": "home"}, nil)
	s.stop()
	human := []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}
	var good bytes.Buffer
	if err := exportTo(t, src, human, &good); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(good.String(), `"namespace":"home"`) {
		t.Fatalf("the export lacks the namespace:\n%s", good.String())
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"namespace ../victim", `"namespace":"home"`, `"namespace":"../victim"`, "namespace"},
		{"namespace absolute", `"namespace":"home"`, `"namespace":"/tmp/x"`, "namespace"},
		{"invalid UTF-8", `Quxzorblat`, "Qux\xffzorblat", "UTF-8"},
		{"unpaired surrogate", `Quxzorblat`, `Qux\udc00zorblat`, "UTF-8"},
		{"no agent", `"agent_id":"ann"`, `"agent_id":""`, "agent_id"},
		{"too big", `Quxzorblat`, strings.Repeat("x", memory.DefaultMaxContentBytes+1), "limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(good.String(), c.from) {
				t.Fatalf("the export lacks %s", c.from)
			}
			file := filepath.Join(t.TempDir(), "x.jsonl")
			os.WriteFile(file, []byte(resum(t, strings.Replace(good.String(), c.from, c.to, 1))), 0o600)
			dst := t.TempDir()
			out, err := runCmd(t, dst, human, "import", file, "--embedder", "none")
			if err == nil || !strings.Contains(err.Error(), "EINVALID") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("import: %v\n%s", err, out)
			}
			var after bytes.Buffer
			if err := exportTo(t, dst, human, &after); err != nil {
				t.Fatal(err)
			}
			if exportKinds(t, after.Bytes())["memory"] != 0 {
				t.Fatal("a refused import left memory behind")
			}
		})
	}
	file := filepath.Join(t.TempDir(), "ok.jsonl")
	os.WriteFile(file, []byte(resum(t, good.String())), 0o600)
	if out, err := runCmd(t, t.TempDir(), human, "import", file, "--embedder", "none"); err != nil {
		t.Fatalf("a whole export re-summed: %v\n%s", err, out)
	}
}

// TestExportMarkdownFileNames: a namespace's file name stays in the folder
// whatever the namespace holds, and no two namespaces (nor a namespace and
// the facts) share a file.
func TestExportMarkdownFileNames(t *testing.T) {
	for ns, want := range map[string]string{"../victim": "___victim.md", "/etc/passwd": "_etc_passwd.md", "..": "__.md", "": "_.md"} {
		if got := fileFor(ns, map[string]bool{}); got != want || strings.ContainsAny(got, `/\`) {
			t.Errorf("namespace %q: file %q, want %q", ns, got, want)
		}
	}
	dir := t.TempDir()
	s := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--embedder", "none"}})
	for _, ns := range []string{"facts", "a:b", "a_b", "A_B"} {
		s.ok("remember", map[string]any{"content": "Quxzorblat lives in " + ns + ".", "namespace": ns}, nil)
	}
	s.ok("publish_fact", map[string]any{"fact_id": "conv-tls", "content": "Services use TLS 1.3.", "category": "convention"}, nil)
	s.stop()
	out := filepath.Join(t.TempDir(), "md")
	if _, err := runCmd(t, dir, []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}, "export", "--markdown", out); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 5 {
		t.Fatalf("%d files for 4 namespaces and the facts: %v", len(entries), entries)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(out, e.Name()))
		head, _, _ := strings.Cut(string(b), "\n")
		if seen[head] {
			t.Errorf("%s repeats %q", e.Name(), head)
		}
		seen[head] = true
	}
	for _, ns := range []string{"facts", "a:b", "a_b", "A_B"} {
		if !seen["# Memory: "+ns] {
			t.Errorf("no file holds namespace %s: %v", ns, seen)
		}
	}
	if !seen["# Facts"] {
		t.Error("the facts were overwritten")
	}
}

// TestImportMarkdownSkipsSymlinks: importing a folder of notes does not
// follow a link out of it (notes/passwd.md -> a file elsewhere), and the
// report names what it did not read.
func TestImportMarkdownSkipsSymlinks(t *testing.T) {
	notes, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "passwd")
	os.WriteFile(secret, []byte("root:x:0:0:Quxzorblat secret:/root:/bin/sh"), 0o600)
	os.WriteFile(filepath.Join(notes, "kept.md"), []byte("Deploys go out on Tuesdays."), 0o600)
	if err := os.Symlink(secret, filepath.Join(notes, "passwd.md")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, err := memoryMCP(t, dir, "import", notes, "--format", "markdown", "--agent-id", "ann", "--embedder", "none")
	if err != nil || !strings.Contains(out, "stored 1\n") || !strings.Contains(out, "not read passwd.md: a symbolic link, not followed") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	var all bytes.Buffer
	if err := exportTo(t, dir, []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}, &all); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(all.String(), "Quxzorblat") || !strings.Contains(all.String(), "Deploys go out on Tuesdays.") {
		t.Fatalf("the store after the import:\n%s", all.String())
	}
}

// TestImportMergeWritesAsImporter: a merge import writes as whoever runs
// it, whatever identity the file claims: a fact that says a human "ceo"
// wrote it, and a memory that says it is agent mallory's, are stored as the
// importer's, mallory kept only as text in the memory's source.
func TestImportMergeWritesAsImporter(t *testing.T) {
	src := t.TempDir()
	s := startIn(t, options{dataDir: src, args: []string{"--agent-id", "mallory", "--embedder", "none"}})
	s.ok("remember", map[string]any{"content": "Quxzorblat keys never rotate."}, nil)
	s.ok("publish_fact", map[string]any{"fact_id": "policy-keys", "content": "Keys never rotate.", "category": "convention"}, nil)
	s.stop()
	human := []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}
	var b bytes.Buffer
	if err := exportTo(t, src, human, &b); err != nil {
		t.Fatal(err)
	}
	crafted := b.String()
	for _, r := range [][2]string{{`"author_agent_id":"mallory"`, `"author_agent_id":"ceo"`}, {`"author_is_human":0`, `"author_is_human":1`}, {`"category":"convention"`, `"category":"core_policy"`}} {
		if !strings.Contains(crafted, r[0]) {
			t.Fatalf("the export lacks %s:\n%s", r[0], crafted)
		}
		crafted = strings.ReplaceAll(crafted, r[0], r[1])
	}
	file := filepath.Join(t.TempDir(), "crafted.jsonl")
	os.WriteFile(file, []byte(resum(t, crafted)), 0o600)

	dst := t.TempDir()
	s = startIn(t, options{dataDir: dst, args: []string{"--agent-id", "bob", "--embedder", "none"}})
	s.ok("remember", map[string]any{"content": "Bob's own memory stays."}, nil)
	s.stop()
	importer := []string{"MEMORY_MCP_AGENT_ID=ops", "MEMORY_MCP_HUMAN=true"}
	if out, err := runCmd(t, dst, importer, "import", file, "--embedder", "none"); err != nil || !strings.Contains(out, "stored 2") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	var after bytes.Buffer
	if err := exportTo(t, dst, human, &after); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(after.String(), "\n") {
		if strings.Contains(l, `"author_agent_id":"ceo"`) || strings.Contains(l, `"agent_id":"mallory"`) {
			t.Errorf("the store took the file's identity: %s", l)
		}
		if strings.Contains(l, "Quxzorblat keys never rotate.") && strings.Contains(l, `"kind":"memory"`) &&
			(!strings.Contains(l, `"agent_id":"ops"`) || !strings.Contains(l, "of agent mallory")) {
			t.Errorf("the memory is not the importer's with its author as text: %s", l)
		}
		if strings.Contains(l, `"kind":"fact"`) && strings.Contains(l, "policy-keys") && !strings.Contains(l, `"author_agent_id":"ops"`) {
			t.Errorf("the fact is not the importer's: %s", l)
		}
	}
}
