package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memory-mcp/memory-mcp/store"
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
	s.ok("consolidate_memory", map[string]any{"older_than": "0"}, nil)
	s.ok("publish_fact", map[string]any{"fact_id": "conv-tls", "content": "Services use TLS 1.3.", "category": "convention"}, nil)
	s.ok("publish_fact", map[string]any{"fact_id": "conv-tls", "content": "Services use TLS 1.3 or mTLS.", "category": "convention"}, nil)
	s.fail("publish_fact", map[string]any{"fact_id": "policy-keys", "content": "Keys rotate yearly.", "category": "core_policy"}, "EHELD", "held") // an approval
	s.ok("memory_block_append", map[string]any{"label": "persona", "text": "I answer briefly."}, nil)
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
	if _, err := runCmd(t, dir, human, "export", "--output", first, "--embedder", "none"); err != nil {
		t.Fatalf("export: %v", err)
	}
	a, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	kinds := exportKinds(t, a)
	for _, k := range []string{"fact_op", "fact", "fact_claim", "memory", "memory_source", "memory_claim", "memory_conflict", "block", "block_version",
		"note", "event", "shared_decision", "approval"} {
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
	if _, err := runCmd(t, restored, human, "import", first, "--embedder", "none"); err == nil {
		t.Error("a second exact import into the same store was not refused")
	}
}

// exportTo runs export to standard output.
func exportTo(t *testing.T, dir string, env []string, w *bytes.Buffer) error {
	t.Helper()
	out, err := runCmd(t, dir, env, "export", "--embedder", "none")
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

var _ = store.ExportFormat
