package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// exportedMemories reads the memory records of dir's whole export.
func exportedMemories(t *testing.T, dir string) []exportedMemory {
	t.Helper()
	var out []exportedMemory
	for _, l := range strings.Split(exportOf(t, dir), "\n") {
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

// exportOf is dir's whole export.
func exportOf(t *testing.T, dir string) string {
	t.Helper()
	var b bytes.Buffer
	if err := exportTo(t, dir, []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}, &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
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

// TestImportRefusesBadRecordsOfEveryKind: an exact import holds every kind
// of record to the rules its tools hold callers to, not only memories and
// facts: a crafted export (its checksum made again) with one bad column in
// a note, a block or one of its versions, a ledger event, a pending write,
// an approval, a conflict, a summary's source, a claim, a repeat or the
// shared state is refused with the line it is on, and the store stays
// empty.
func TestImportRefusesBadRecordsOfEveryKind(t *testing.T) {
	src := t.TempDir()
	writeRichMemory(t, src)
	human := []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}
	var good bytes.Buffer
	if err := exportTo(t, src, human, &good); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(good.String(), "\n"), "\n")
	// A pending write, which the rich store has none of, goes after the
	// ledger's events, where an export puts it.
	at := len(lines) - 1
	for i, l := range lines {
		if strings.HasPrefix(l, `{"kind":"approval"`) {
			at = i
			break
		}
	}
	pending := `{"kind":"pending","row":{"pending_id":1,"bucket":"issues","note_kind":"agent","request_json":"{}","fingerprint":"f","raw_input":"the dock code",` +
		`"agent_id":"ann","run_id":"r1","interpreter":"","reason":"ambiguous","candidates_json":"[]","attempts":0,"stale":0,"status":"open","note_at":1,"created_at":1,"updated_at":1}}`
	lines = append(lines[:at], append([]string{pending}, lines[at:]...)...)
	export := func(lines []string) string { return resum(t, strings.Join(lines, "\n")+"\n") }
	importInto := func(body string, flags ...string) (string, string, error) {
		t.Helper()
		file := filepath.Join(t.TempDir(), "x.jsonl")
		os.WriteFile(file, []byte(body), 0o600)
		dst := t.TempDir()
		out, err := runCmd(t, dst, human, append([]string{"import", file, "--embedder", "none"}, flags...)...)
		return dst, out, err
	}
	if _, out, err := importInto(export(lines)); err != nil {
		t.Fatalf("the export with a pending write: %v\n%s", err, out)
	}
	// A dry run checks every record as the import does, and stores nothing.
	dst, out, err := importInto(export(lines), "--dry-run")
	if err != nil || !strings.Contains(out, "would import") || exportKinds(t, []byte(exportOf(t, dst)))["memory"] != 0 {
		t.Fatalf("a dry run of the good export: %v\n%s", err, out)
	}
	bad := slices.Clone(lines)
	at = slices.IndexFunc(bad, func(l string) bool { return strings.HasPrefix(l, `{"kind":"note"`) })
	bad[at] = strings.Replace(bad[at], `"agent_id":"`, `"agent_id":"../`, 1)
	if _, out, err := importInto(export(bad), "--dry-run"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("line %d of the export", at+1)) {
		t.Fatalf("a dry run of a bad export: %v\n%s", err, out)
	}
	for _, c := range []struct {
		kind, col string
		value     any // nil deletes the column
		want      string
	}{
		{"note", "agent_id", "../victim", "agent_id"},
		{"note", "text", "red \x1b[31m text", "control character"},
		{"note", "text", 5, "it holds text"},
		{"note", "kind", "diary", "note kind"},
		{"note", "created_at", "yesterday", "whole number"},
		{"block", "value", 42, "it holds text"},
		{"block", "writers", "ann", "not JSON"},
		{"block_version", "version", 1.5, "whole number"},
		{"block_version", "block_id", 9999, "names no block"},
		{"event", "payload_json", "{not json", "not JSON"},
		{"event", "bucket", "nowhere", "bucket"},
		{"event", "agent_id", nil, "column agent_id is missing"},
		{"pending", "request_json", "{", "not JSON"},
		{"pending", "bucket", "nowhere", "bucket"},
		{"approval", "status", "maybe", "approval status"},
		{"approval", "identity", "{", "not JSON"},
		{"approval", "principal", "root", "principal"},
		{"memory_conflict", "older_id", "mem_nope", "names no memory"},
		{"memory_source", "source_id", "mem_nope", "names no memory"},
		{"memory_claim", "memory_pk", 999999, "names no memory pk"},
		{"memory_repeat", "content", "\x00", "control character"},
		{"fact_claim", "fact_id", "nope", "names no fact"},
		{"shared_decision", "text", " ", "text is empty"},
		{"shared_learning", "text", nil, "column text is missing"},
		{"memory", "confidence", "high", "it holds a number"},
		{"memory", "category", "gossip", "category"},
	} {
		t.Run(c.kind+" "+c.col, func(t *testing.T) {
			bad := slices.Clone(lines)
			n := slices.IndexFunc(bad, func(l string) bool { return strings.HasPrefix(l, `{"kind":"`+c.kind+`"`) })
			if n < 0 {
				t.Fatalf("the export has no %s record", c.kind)
			}
			d := json.NewDecoder(strings.NewReader(bad[n]))
			d.UseNumber()
			var rec struct {
				Kind string         `json:"kind"`
				Row  map[string]any `json:"row"`
			}
			if err := d.Decode(&rec); err != nil {
				t.Fatal(err)
			}
			if c.value == nil {
				delete(rec.Row, c.col)
			} else {
				rec.Row[c.col] = c.value
			}
			b, _ := json.Marshal(rec)
			bad[n] = string(b)
			dst, out, err := importInto(export(bad))
			line := fmt.Sprintf("line %d of the export", n+1)
			if err == nil || !strings.Contains(err.Error(), "EINVALID") || !strings.Contains(err.Error(), line) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("import: %v, want EINVALID, %q and %q\n%s", err, line, c.want, out)
			}
			var after bytes.Buffer
			if err := exportTo(t, dst, human, &after); err != nil {
				t.Fatal(err)
			}
			if k := exportKinds(t, after.Bytes()); len(k) != 0 {
				t.Fatalf("a refused import left records: %v", k)
			}
		})
	}
}
