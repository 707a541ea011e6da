package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// exportedMemories reads the memory records of dir's whole export.
func exportedMemories(t *testing.T, dir string) []exportedMemory {
	t.Helper()
	var b bytes.Buffer
	if err := exportTo(t, dir, []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}, &b); err != nil {
		t.Fatal(err)
	}
	var out []exportedMemory
	for _, l := range strings.Split(b.String(), "\n") {
		var rec struct {
			Kind string         `json:"kind"`
			Row  exportedMemory `json:"row"`
		}
		if json.Unmarshal([]byte(l), &rec) == nil && rec.Kind == "memory" {
			out = append(out, rec.Row)
		}
	}
	return out
}

// activeWith counts the memories of dir in force that hold content.
func activeWith(t *testing.T, dir, content string) int {
	t.Helper()
	n := 0
	for _, m := range exportedMemories(t, dir) {
		if m.Content == content && m.ForgottenAt == nil && m.ArchivedAt == nil && m.SupersededBy == nil {
			n++
		}
	}
	return n
}

// TestImportNeverRevives: a merge import recognises for good what the store
// holds already, whatever became of it, long after the idempotency keys of
// the first import expired (here at once: idempotency-ttl 1ms). A memory
// imported and then forgotten, one the import found a duplicate of that was
// then forgotten, and, imported back into the store it was exported from,
// a memory forgotten there since the export (mem0#6214: an old export
// cannot bring back a refuted memory), all stay forgotten, and a fact
// retracted there since stays retracted; a second import stores nothing.
func TestImportNeverRevives(t *testing.T) {
	const kept, dup = "Quxzorblat keeps the spare keys.", "The lab opens at nine."
	src := t.TempDir()
	s := startIn(t, options{dataDir: src, args: []string{"--agent-id", "ann", "--embedder", "none"}})
	var a struct {
		ID string `json:"id"`
	}
	s.ok("remember", map[string]any{"content": kept}, &a)
	s.ok("remember", map[string]any{"content": dup}, nil)
	s.ok("publish_fact", map[string]any{"fact_id": "conv-tabs", "content": "Code is indented with tabs.", "category": "convention"}, nil)
	s.stop()
	human := []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}
	file := filepath.Join(t.TempDir(), "ann.jsonl")
	if _, err := runCmd(t, src, human, "export", "--output", file); err != nil {
		t.Fatal(err)
	}

	dst := t.TempDir()
	ops := startIn(t, options{dataDir: dst, args: []string{"--agent-id", "ops", "--embedder", "none"}})
	var d struct {
		ID string `json:"id"`
	}
	ops.ok("remember", map[string]any{"content": dup}, &d)
	ops.stop()
	importer := []string{"MEMORY_MCP_AGENT_ID=ops", "MEMORY_MCP_HUMAN=true", "MEMORY_MCP_IDEMPOTENCY_TTL=1ms"}
	imp := func(dir string) string {
		t.Helper()
		out, err := runCmd(t, dir, importer, "import", file, "--embedder", "none")
		if err != nil {
			t.Fatalf("import: %v\n%s", err, out)
		}
		return out
	}
	if out := imp(dst); !strings.Contains(out, "stored 2") || !strings.Contains(out, "duplicate 1") {
		t.Fatalf("the first import:\n%s", out)
	}
	var imported string
	for _, m := range exportedMemories(t, dst) {
		if m.Content == kept {
			imported = m.ID
		}
	}
	ops = startIn(t, options{dataDir: dst, args: []string{"--agent-id", "ops", "--embedder", "none"}})
	ops.ok("forget", map[string]any{"id": imported, "reason": "refuted"}, nil)
	ops.ok("forget", map[string]any{"id": d.ID, "reason": "refuted"}, nil)
	ops.stop()
	for range 2 {
		out := imp(dst)
		if strings.Contains(out, "stored") || strings.Contains(out, "duplicate") || !strings.Contains(out, "imported before 3") {
			t.Errorf("an import after the keys expired:\n%s", out)
		}
	}
	for _, c := range []string{kept, dup} {
		if n := activeWith(t, dst, c); n != 0 {
			t.Errorf("%d memories %q in force after they were forgotten and imported again", n, c)
		}
	}

	// Back into the store it came from, where ann forgot it since.
	s = startIn(t, options{dataDir: src, args: []string{"--agent-id", "ann", "--embedder", "none"}})
	s.ok("forget", map[string]any{"id": a.ID, "reason": "refuted"}, nil)
	s.stop()
	h := startIn(t, options{dataDir: src, args: []string{"--agent-id", "root", "--human", "--embedder", "none"}})
	h.ok("retract_fact", map[string]any{"fact_id": "conv-tabs", "reason": "spaces now"}, nil)
	h.stop()
	if out := imp(src); strings.Contains(out, "stored") || !strings.Contains(out, "already in the store 2") || !strings.Contains(out, "retracted in the store 1") {
		t.Errorf("an import into the store the export came from:\n%s", out)
	}
	if n := activeWith(t, src, kept); n != 0 {
		t.Errorf("the forgotten memory came back: %d in force", n)
	}
	var after bytes.Buffer
	if err := exportTo(t, src, human, &after); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(after.String(), `"operation_type":"RETRACT"`) || strings.Count(after.String(), `"kind":"fact_op"`) != 2 {
		t.Errorf("the retracted fact was published again:\n%s", after.String())
	}
}

// TestImportOwnExportStoresNothing: a store's export imported back into it
// stores nothing, consolidation summaries included (which dedup does not
// catch: a summary is no agent's repeat), and the store's export after is
// what it was.
func TestImportOwnExportStoresNothing(t *testing.T) {
	dir := t.TempDir()
	writeRichMemory(t, dir)
	human := []string{"MEMORY_MCP_AGENT_ID=ann", "MEMORY_MCP_HUMAN=true"}
	file := filepath.Join(t.TempDir(), "all.jsonl")
	if _, err := runCmd(t, dir, human, "export", "--output", file); err != nil {
		t.Fatal(err)
	}
	before := exportedMemories(t, dir)
	summaries := 0
	for _, m := range before {
		if m.Source != nil && strings.HasPrefix(*m.Source, "consolidat") {
			summaries++
		}
	}
	out, err := runCmd(t, dir, human, "import", file, "--embedder", "none")
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if strings.Contains(out, "stored") || strings.Contains(out, "rejected") || !strings.Contains(out, "already in the store") {
		t.Errorf("an import of the store's own export:\n%s", out)
	}
	if after := exportedMemories(t, dir); len(after) != len(before) {
		t.Errorf("the store held %d memories, after importing its own export %d", len(before), len(after))
	}
	t.Logf("summaries in the store: %d\n%s", summaries, out)
}
