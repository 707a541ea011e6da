package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestProgressBarSays100OnlyWhenDone: the bar's share is rounded down, so
// that it reaches 100% and fills exactly when done is total, never before
// (19,999 of 20,000 is 99%, not a rounded 100%); nothing to do is done.
func TestProgressBarSays100OnlyWhenDone(t *testing.T) {
	full := "[" + strings.Repeat("=", 30) + "]"
	for _, c := range []struct {
		done, total int
		want        string
		isFull      bool
	}{
		{0, 10, "0/10   0%", false},
		{19_899, 20_000, "19899/20000  99%", false},
		{19_999, 20_000, "19999/20000  99%", false},
		{20_000, 20_000, "20000/20000 100%", true},
		{25_000, 20_000, "20000/20000 100%", true},
		{0, 0, "0/0 100%", true},
	} {
		var b bytes.Buffer
		progressBar(&b, "import", time.Now())(c.done, c.total)
		if got := b.String(); !strings.Contains(got, c.want) || strings.Contains(got, full) != c.isFull {
			t.Errorf("%d of %d drew %q, want %q (full %v)", c.done, c.total, got, c.want, c.isFull)
		}
	}
}

// drawnShares are the shares an output's progress bars drew, in order.
func drawnShares(out string) []string {
	return regexp.MustCompile(`\d+/\d+ +(\d+)%`).FindAllString(out, -1)
}

// TestImportProgressReaches100AtCommit: an exact import's bar counts the
// file read, and says 100% once, when the import is done (read, indexed,
// stamped, committed), not when reading ends; a failed import never says
// 100%.
func TestImportProgressReaches100AtCommit(t *testing.T) {
	var b bytes.Buffer
	p := &readProgress{r: strings.NewReader(strings.Repeat("x", 5000)), total: 5000, draw: progressBar(&b, "import kB", time.Now())}
	if _, err := io.ReadAll(p); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "100%") || !strings.Contains(b.String(), "4/5  80%") {
		t.Fatalf("reading the whole file drew %q: short of 100%% until the import is done", b.String())
	}
	p.finish()
	if drawn := drawnShares(b.String()); drawn[len(drawn)-1] != "5/5 100%" {
		t.Fatalf("finished, the bar drew %v", drawn)
	}

	dir := t.TempDir()
	writeRichMemory(t, dir)
	human := map[string]string{"MEMORY_MCP_AGENT_ID": "root", "MEMORY_MCP_HUMAN": "true"}
	file := filepath.Join(t.TempDir(), "all.jsonl")
	if _, err := runCmd(t, dir, []string{"MEMORY_MCP_AGENT_ID=root", "MEMORY_MCP_HUMAN=true"}, "export", "--output", file); err != nil {
		t.Fatal(err)
	}
	imp := func(into string) (string, error) {
		vars := map[string]string{}
		for _, kv := range cleanEnv(t, into) {
			k, v, _ := strings.Cut(kv, "=")
			vars[k] = v
		}
		for k, v := range human {
			vars[k] = v
		}
		var out, errb bytes.Buffer
		err := run(context.Background(), []string{"import", file, "--data-dir", into, "--embedder", "none"},
			func(k string) string { return vars[k] }, strings.NewReader(""), &out, &errb)
		return errb.String(), err
	}
	stderr, err := imp(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	drawn := drawnShares(stderr)
	if len(drawn) == 0 || !strings.HasSuffix(drawn[len(drawn)-1], " 100%") || strings.Count(strings.Join(drawn, ","), "100%") != 1 {
		t.Fatalf("an exact import drew %v: 100%% once, at the end", drawn)
	}
	// Into a store that holds memory, the merge's bar counts its writes to
	// the end, even when there is none to make.
	stderr, err = imp(dir)
	if drawn := drawnShares(stderr); err != nil || len(drawn) == 0 || !strings.HasSuffix(drawn[len(drawn)-1], " 100%") {
		t.Fatalf("a merge import drew %v (%v)", drawn, err)
	}
}
