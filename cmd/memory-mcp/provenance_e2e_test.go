package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// verifyCmd runs `memory-mcp verify` on dir as a process with env added to
// the clean environment, and returns its stdout, stderr and exit code.
func verifyCmd(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"verify", "--data-dir", dir}, args...)...)
	cmd.Env = append(cleanEnv(t, dir), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// verifyJSON runs verify --json and decodes its report.
func verifyJSON(t *testing.T, dir string, env []string, args ...string) (verifyReport, int) {
	t.Helper()
	out, errs, code := verifyCmd(t, dir, env, append(args, "--json")...)
	var r verifyReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("verify --json (exit %d): %v\n%s\n%s", code, err, out, errs)
	}
	return r, code
}

// totals sums a report's tables.
func totals(r verifyReport) (checked, valid, unstamped, mismatched int) {
	for _, t := range r.Tables {
		checked, valid, unstamped, mismatched = checked+t.Checked, valid+t.Valid, unstamped+t.Unstamped, mismatched+t.Mismatched
	}
	return
}

// writeEveryKind has a server write rows of every stamped table.
func writeEveryKind(s *proc, word string) string {
	var m struct {
		ID string `json:"id"`
	}
	s.ok("remember", map[string]any{"content": "The vendor contact is " + word + " at extension 4411.", "tags": []string{"vendor"}}, &m)
	s.ok("remember", map[string]any{"content": "The staging host is db-staging-1."}, nil)
	s.ok("remember", map[string]any{"content": "the staging host is db-staging-1"}, nil) // a repeat, its words kept
	s.ok("publish_memory", map[string]any{"id": m.ID}, nil)
	s.ok("publish_fact", map[string]any{"fact_id": "conv-tabs", "content": "Indent with tabs.", "category": "convention"}, nil)
	s.ok("memory", map[string]any{"command": "insert", "path": "/memories/persona", "insert_line": 0, "insert_text": "I keep notes."}, nil)
	s.ok("write_note", map[string]any{"text": "learned: the vendor answers mornings", "promote": true}, nil)
	return m.ID
}

// verify reports every row the server wrote as valid; a memory changed in
// the file behind the store's back is listed by id (never its content) and
// verify fails, in text and in JSON.
func TestVerifyCommand(t *testing.T) {
	sqliteOnly(t, "it edits the bytes of the SQLite file; the store's provenance tests run on both engines")
	const word = "Quxzorblat"
	dir := t.TempDir()
	s := start(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--seniority", "senior", "--embedder", "none"}})
	id := writeEveryKind(s, word)
	s.stop()

	out, errs, code := verifyCmd(t, dir, nil)
	if code != 0 || !strings.Contains(out, "memories") || strings.Contains(out, "do not match") {
		t.Fatalf("verify of an untouched directory: exit %d\n%s\n%s", code, out, errs)
	}
	r, code := verifyJSON(t, dir, nil)
	checked, valid, unstamped, mismatched := totals(r)
	if code != 0 || len(r.Tables) != 6 || checked == 0 || valid != checked || unstamped != 0 || mismatched != 0 || len(r.Mismatched) != 0 {
		t.Fatalf("report = %+v (exit %d)", r, code)
	}
	for _, tb := range r.Tables {
		// Only an exact import writes an imports row (TestExportImportRoundTrip verifies one).
		if tb.Valid == 0 && tb.Table != "imports" {
			t.Errorf("no %s row was written to check: %+v", tb.Table, tb)
		}
	}

	// Rewrite the word in the file itself, as someone editing it would.
	path := filepath.Join(dir, store.FileName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(word)) {
		t.Fatal("the memory's text is not in the database file (still in the write-ahead log?)")
	}
	if err := os.WriteFile(path, bytes.ReplaceAll(b, []byte(word), []byte("Mallorybob")), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code = verifyCmd(t, dir, nil)
	if code != 1 || !strings.Contains(out, "memories "+id) || strings.Contains(out, "Mallorybob") || strings.Contains(out, word) {
		t.Fatalf("verify after the edit: exit %d\n%s", code, out)
	}
	r, code = verifyJSON(t, dir, nil)
	// The personal memory and its shared copy both held the word.
	if code != 1 || len(r.Mismatched) != 2 || r.Mismatched[0] != (store.ProvenanceRow{Table: "memories", ID: id}) {
		t.Fatalf("report after the edit = %+v (exit %d)", r.Mismatched, code)
	}
	if _, valid2, _, mismatched2 := totals(r); mismatched2 != 2 || valid2 != valid-2 {
		t.Fatalf("after the edit: %d valid, %d mismatched; before %d valid", valid2, mismatched2, valid)
	}
}

// The key file is made on first run, 0600, and reused after; one with wider
// permissions or the wrong size is refused.
func TestProvenanceKeyFile(t *testing.T) {
	dir := t.TempDir()
	if _, errs, code := verifyCmd(t, dir, nil); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errs)
	}
	keyPath := filepath.Join(dir, ProvenanceKeyFile)
	info, err := os.Stat(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 || info.Size() != 65 {
		t.Fatalf("key file mode %v, %d bytes", info.Mode().Perm(), info.Size())
	}
	first, _ := os.ReadFile(keyPath)
	s := start(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--embedder", "none"}})
	writeEveryKind(s, "Plinthwort")
	s.stop()
	if again, _ := os.ReadFile(keyPath); !bytes.Equal(first, again) {
		t.Fatal("the key file changed")
	}
	if r, code := verifyJSON(t, dir, nil); code != 0 || r.KeyFrom != keyPath {
		t.Fatalf("verify after the server: %+v (exit %d)", r, code)
	}
	if entries, _ := filepath.Glob(filepath.Join(dir, ProvenanceKeyFile+".new-*")); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}

	if err := os.Chmod(keyPath, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := verifyCmd(t, dir, nil); code != 1 || !strings.Contains(errs, "chmod 600") {
		t.Fatalf("a key others may read: exit %d: %s", code, errs)
	}
	if err := os.WriteFile(keyPath, first[:40], 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(keyPath, 0o600)
	if _, errs, code := verifyCmd(t, dir, nil); code != 1 || !strings.Contains(errs, "not a provenance key") {
		t.Fatalf("a short key file: exit %d: %s", code, errs)
	}
	os.Remove(keyPath)
	if _, errs, code := verifyCmd(t, dir, nil); code != 1 || !strings.Contains(errs, "is missing") {
		t.Fatalf("a lost key file: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(keyPath); err == nil {
		t.Fatal("a new key was made for a database stamped with another")
	}
}

// A key in the environment wins over the file: none is made, the rows are
// stamped with it, and a process with another key is refused.
func TestProvenanceKeyFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	key := hex.EncodeToString(bytes.Repeat([]byte{7}, 32))
	env := []string{"MEMORY_MCP_PROVENANCE_KEY=" + key}
	s := start(t, options{dataDir: dir, env: env, args: []string{"--agent-id", "ann", "--embedder", "none"}})
	writeEveryKind(s, "Plinthwort")
	s.stop()
	if _, err := os.Stat(filepath.Join(dir, ProvenanceKeyFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a key file was made beside the environment's key: %v", err)
	}
	r, code := verifyJSON(t, dir, env)
	if checked, valid, _, _ := totals(r); code != 0 || r.KeyFrom != "env MEMORY_MCP_PROVENANCE_KEY" || checked == 0 || valid != checked {
		t.Fatalf("verify with the environment's key: %+v (exit %d)", r, code)
	}
	other := []string{"MEMORY_MCP_PROVENANCE_KEY=" + strings.Repeat("ab", 32)}
	if _, errs, code := verifyCmd(t, dir, other); code != 1 || !strings.Contains(errs, "not the one the rows") {
		t.Fatalf("another key: exit %d: %s", code, errs)
	}
	if _, errs, code := verifyCmd(t, dir, []string{"MEMORY_MCP_PROVENANCE_KEY=abc"}); code != 1 || !strings.Contains(errs, "64 hex digits") {
		t.Fatalf("a malformed key: exit %d: %s", code, errs)
	}
	if out, errs, _ := verifyCmd(t, dir, env); strings.Contains(out+errs, key) {
		t.Fatal("verify printed the key")
	}
}

// Processes started at once on a fresh data directory agree on one key
// (whichever made the file first), and two servers writing at once stamp
// rows that all verify.
func TestProcessesShareTheKeyFile(t *testing.T) {
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for range 4 {
		cmd := exec.Command(binary(t), "verify", "--data-dir", dir)
		cmd.Env = cleanEnv(t, dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("verify %d of 4 started at once: %v", i, err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ProvenanceKeyFile+"*")); len(left) != 1 {
		t.Fatalf("key files: %v", left)
	}
	var servers []*proc
	for _, agent := range []string{"ann", "bob"} {
		servers = append(servers, start(t, options{dataDir: dir, args: []string{"--agent-id", agent, "--embedder", "none"}}))
	}
	err := concurrently(servers, func(p int, s *proc) error {
		for i := range 5 {
			res := s.call("remember", map[string]any{"content": strings.Repeat("x", p+1) + " memory " + string(rune('a'+i))})
			if res.IsError {
				return errors.New(text(res))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range servers {
		s.stop()
	}
	r, code := verifyJSON(t, dir, nil)
	var mem store.ProvenanceTable
	for _, tb := range r.Tables {
		if tb.Table == "memories" {
			mem = tb
		}
	}
	if code != 0 || mem.Checked != 10 || mem.Valid != 10 {
		t.Fatalf("memories = %+v (exit %d)", mem, code)
	}
}

// Rows written without a key (as before the upgrade) are reported as
// unstamped, not tampered, and verify passes; --trust-unstamped stamps them
// and says it trusted them.
func TestVerifyTrustUnstamped(t *testing.T) {
	dir := t.TempDir()
	db := openDir(t, dir) // no key: the rows it writes are unstamped
	ctx := memory.WithIdentity(context.Background(), memory.Identity{AgentID: "ann", Seniority: memory.SeniorityMid})
	if _, err := store.NewMemoryService(db, nil).Remember(ctx, memory.EntryWrite{Content: "written before stamps"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	out, _, code := verifyCmd(t, dir, nil)
	if code != 0 || !strings.Contains(out, "1 rows are unstamped") || !strings.Contains(out, "--trust-unstamped") {
		t.Fatalf("verify of unstamped rows: exit %d\n%s", code, out)
	}
	out, _, code = verifyCmd(t, dir, nil, "--trust-unstamped")
	if code != 0 || !strings.Contains(out, "stamped 1 unstamped rows as they are now, trusting their content") {
		t.Fatalf("--trust-unstamped: exit %d\n%s", code, out)
	}
	r, code := verifyJSON(t, dir, nil)
	if checked, valid, unstamped, _ := totals(r); code != 0 || checked != 1 || valid != 1 || unstamped != 0 {
		t.Fatalf("after stamping: %+v (exit %d)", r, code)
	}
}

// verify checks the memory counts the database keeps: they match what the
// server wrote, and a count edited by hand is named (agent, state,
// category, namespace, both numbers) and fails verify, in text and in
// JSON.
func TestVerifyChecksTheKeptCounts(t *testing.T) {
	dir := t.TempDir()
	s := start(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--seniority", "senior", "--embedder", "none"}})
	writeEveryKind(s, "Quxzorblat")
	s.stop()
	if out, errs, code := verifyCmd(t, dir, nil); code != 0 || !strings.Contains(out, "the memory counts the database keeps match the memories") {
		t.Fatalf("verify of an untouched directory: exit %d\n%s\n%s", code, out, errs)
	}
	if err := storetest.MiscountMemories(context.Background(), storeAt(t, dir), "ann", 3); err != nil {
		t.Fatal(err)
	}
	out, errs, code := verifyCmd(t, dir, nil)
	if code != 1 || !strings.Contains(out, "agent ann, active semantic in default: kept 5, counted 2") ||
		!strings.Contains(errs, "memory counts the database keeps differ") {
		t.Fatalf("verify after the edit: exit %d\n%s\n%s", code, out, errs)
	}
	r, code := verifyJSON(t, dir, nil)
	if code != 1 || len(r.CountsMismatched) == 0 || len(r.Mismatched) != 0 {
		t.Fatalf("report after the edit = %+v (exit %d)", r, code)
	}
	for _, m := range r.CountsMismatched {
		if m.AgentID != "ann" || m.Kept != m.Counted+3 {
			t.Errorf("%+v: not the count edited", m)
		}
	}
}
