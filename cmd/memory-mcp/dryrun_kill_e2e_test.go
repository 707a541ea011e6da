package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// syntheticExport writes an export of n memories of agent ann to a file and
// returns its path.
func syntheticExport(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"format":"memory-mcp","version":1,"filter":{}}` + "\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"kind":"memory","row":{"pk":%d,"id":"mem_synth%06d","agent_id":"ann","namespace":"default","category":"semantic",`+
			`"content":"Crate %d of the zebra order holds %d striped paint tins for barn %d.","tags":"[]","confidence":1.0,`+
			`"created_at":%d,"updated_at":%d,"occurred_at":%d,"filters":""}}`+"\n", i, i, i, i*7, i*13, 1000+i, 1000+i, 1000+i)
	}
	sum := sha256.Sum256([]byte(b.String()))
	fmt.Fprintf(&b, `{"end":true,"records":%d,"kinds":{"memory":%d},"sha256":"%s"}`+"\n", n, n, hex.EncodeToString(sum[:]))
	file := filepath.Join(t.TempDir(), "synthetic.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// dryRunCopies lists what dry runs left in the data directory and the
// temporary directory.
func dryRunCopies(t *testing.T, dataDir, tmp string) []string {
	t.Helper()
	var out []string
	for _, pattern := range []string{filepath.Join(dataDir, dryRunPrefix+"*"), filepath.Join(tmp, "*")} {
		found, _ := filepath.Glob(pattern)
		out = append(out, found...)
	}
	return out
}

// TestDryRunKilledLeavesNothing kills a real `import --dry-run` process
// with SIGKILL while it works on its copy of the store: the copy it leaves
// (nothing can remove it as the process dies) is removed by the next
// command that opens the data directory, and nothing of it is left in the
// temporary directory either; the store itself is as it was.
func TestDryRunKilledLeavesNothing(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	s := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ops", "--embedder", "none"}})
	s.ok("remember", map[string]any{"content": "The store holds memory, so the import is a merge."}, nil)
	s.stop()
	file := syntheticExport(t, 5000)
	env := append(cleanEnv(t, dir), "TMPDIR="+tmp, "MEMORY_MCP_AGENT_ID=ops", "MEMORY_MCP_HUMAN=true", "MEMORY_MCP_EMBEDDER=none")
	cmd := exec.Command(binary(t), "import", file, "--dry-run", "--data-dir", dir)
	cmd.Env = env
	out := &lockedWriter{w: &bytes.Buffer{}}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once its copy is made and it has begun to write to it.
	deadline := time.Now().Add(60 * time.Second)
	for {
		copies := dryRunCopies(t, dir, tmp)
		if len(copies) > 0 && strings.Contains(out.String(), "import [") {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no dry-run copy appeared: %v\n%s", copies, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || strings.Contains(out.String(), "would import") {
		t.Fatalf("the dry run ended before it was killed: %v\n%s", err, out.String())
	}
	left := dryRunCopies(t, dir, tmp)
	if len(left) == 0 {
		t.Fatal("the killed dry run left no copy: the test did not kill it mid-run")
	}

	// The next command on the data directory removes the copy.
	next := exec.Command(binary(t), "verify", "--data-dir", dir)
	next.Env = env
	if b, err := next.CombinedOutput(); err != nil {
		t.Fatalf("verify: %v\n%s", err, b)
	}
	if left := dryRunCopies(t, dir, tmp); len(left) != 0 {
		t.Fatalf("the copy a killed dry run left is still there: %v", left)
	}
	if n := activeWith(t, dir, "Crate 1 of the zebra order holds 7 striped paint tins for barn 13."); n != 0 {
		t.Fatalf("the killed dry run wrote to the store: %d", n)
	}
}

// TestCleanDryRunsSparesARunningOne: a dry run's copy is removed only once
// its process has stopped, never from under a dry run that runs.
func TestCleanDryRunsSparesARunningOne(t *testing.T) {
	dir := t.TempDir()
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Skip(err)
	}
	copyDir := filepath.Join(dir, fmt.Sprintf("%s%d-123", dryRunPrefix, other.Process.Pid))
	if err := os.MkdirAll(copyDir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(copyDir, "memory.db"), []byte("a copy"), 0o600)
	cleanDryRuns(dir)
	if _, err := os.Stat(copyDir); err != nil {
		t.Fatalf("the copy of a running dry run was removed: %v", err)
	}
	other.Process.Kill()
	other.Wait()
	cleanDryRuns(dir)
	if _, err := os.Stat(copyDir); !os.IsNotExist(err) {
		t.Fatalf("the copy of a stopped dry run is still there: %v", err)
	}
}
