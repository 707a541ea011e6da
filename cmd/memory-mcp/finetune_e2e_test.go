package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/finetune"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// seedMemories stores n memories of agent ann in dir's database, embedded
// by the offline embedder, as a server would have: two sentences each,
// about a handful of subjects.
func seedMemories(t *testing.T, dir string, n int) {
	t.Helper()
	db, err := openTestStore(context.Background(), t, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	emb := wordvec.New()
	mem := store.NewMemoryService(db, &emb)
	ctx := memory.WithIdentity(context.Background(), memory.Identity{AgentID: "ann"})
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	at := time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC)
	for i := range n {
		text := fmt.Sprintf("%s %s in week %d. %s", pick("Ann", "The release manager", "Our designer", "The support desk"),
			pick("shipped the billing export", "went sailing off the coast", "reviewed the hiring plan", "fixed the login timeout",
				"baked bread for the team", "moved the wiki to the new server"), i,
			pick("It went better than planned.", "Two customers wrote to say thanks.", "We will repeat it next quarter.", "Nobody noticed the outage."))
		if _, err := mem.Remember(ctx, memory.EntryWrite{Content: text, OccurredAt: at.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
}

// vectorsOf reads how dir's memories are embedded and which embedder is
// in force.
func vectorsOf(t *testing.T, dir string) (byEmbedder map[string]int, staged int, inForce string) {
	t.Helper()
	db, err := openTestStore(context.Background(), t, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if byEmbedder, staged, err = db.VectorCounts(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec, err := db.InForce(context.Background(), wordvec.ID)
	if err != nil {
		t.Fatal(err)
	}
	return byEmbedder, staged, memory.AdaptedEmbedderID(wordvec.ID, rec.Version)
}

// runFineTune runs `memory-mcp finetune` as a process on dir.
func runFineTune(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"finetune", "--data-dir", dir, "--human"}, args...)...)
	cmd.Env = cleanEnv(t, dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		err = fmt.Errorf("%w\nstderr:\n%s", err, stderr.String())
	}
	return string(out), err
}

// TestFineTuneCommand: a deploy, an evaluation of the adapter in force and
// a rollback, each a process, each leaving the vectors and the embedder in
// force as its report says.
func TestFineTuneCommand(t *testing.T) {
	dir := t.TempDir()
	seedMemories(t, dir, 300)
	out, err := runFineTune(t, dir, "--gate-z=-1e6")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"stage 1: 300 documents; pairs ict ", "vectors alone", "candidate", "wordvec-glove100-v1+ft1",
		"deployed wordvec-glove100-v1+ft1: 300 memories re-embedded"} {
		if !strings.Contains(out, want) {
			t.Errorf("deploy's report lacks %q:\n%s", want, out)
		}
	}
	if vecs, staged, in := vectorsOf(t, dir); vecs[wordvec.ID+"+ft1"] != 300 || staged != 0 || in != wordvec.ID+"+ft1" {
		t.Fatalf("after the deploy: vectors %v, %d staged, %s in force", vecs, staged, in)
	}
	if out, err = runFineTune(t, dir, "--eval-only"); err != nil || !strings.Contains(out, "in_force") || !strings.Contains(out, "evaluated") {
		t.Errorf("eval-only: %v\n%s", err, out)
	}
	if out, err = runFineTune(t, dir, "--rollback"); err != nil || !strings.Contains(out, "rolled back: 300 memories re-embedded") {
		t.Errorf("rollback: %v\n%s", err, out)
	}
	if vecs, _, in := vectorsOf(t, dir); vecs[wordvec.ID] != 300 || in != wordvec.ID {
		t.Errorf("after the rollback: vectors %v, %s in force", vecs, in)
	}
	if _, err := runFineTune(t, dir, "--rollback"); err == nil || !strings.Contains(err.Error(), "nothing to roll back") {
		t.Errorf("a rollback with no adapter in force: %v", err)
	}
	cmd := exec.Command(binary(t), "finetune", "--data-dir", dir)
	cmd.Env = cleanEnv(t, dir)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "only a human operator may: add --human") {
		t.Errorf("finetune without --human: %v\n%s", err, out)
	}
}

// TestFineTuneKilled kills `memory-mcp finetune` (SIGKILL) while it trains
// and while it re-embeds the memories for the deployment, then checks that
// the embedder in force and every stored vector are as they were, and
// that the next run deploys.
func TestFineTuneKilled(t *testing.T) {
	dir := t.TempDir()
	seedMemories(t, dir, 800)
	for _, stage := range []string{"finetune train:", "finetune reindex:"} {
		killAt(t, dir, stage)
		vecs, _, in := vectorsOf(t, dir)
		if vecs[wordvec.ID] != 800 || len(vecs) != 1 || in != wordvec.ID {
			t.Fatalf("after a kill at %q: vectors %v, %s in force; want all 800 as they were", stage, vecs, in)
		}
		// A checkpoint the kill left behind is never read: none is in force.
		if _, err := finetune.InForce(context.Background(), openedStore(t, dir), dir, wordvec.New(), nil); err != nil {
			t.Errorf("after a kill at %q: %v", stage, err)
		}
	}
	if _, err := runFineTune(t, dir, "--gate-z=-1e6"); err != nil {
		t.Fatal(err)
	}
	if vecs, staged, in := vectorsOf(t, dir); vecs[wordvec.ID+"+ft1"] != 800 || staged != 0 || in != wordvec.ID+"+ft1" {
		t.Errorf("the run after the kills: vectors %v, %d staged, %s in force", vecs, staged, in)
	}
}

// killAt runs the command and kills it when its progress first names stage.
func killAt(t *testing.T, dir, stage string) {
	t.Helper()
	cmd := exec.Command(binary(t), "finetune", "--data-dir", dir, "--human", "--gate-z=-1e6", "--embedding-batch-size", "8")
	cmd.Env = cleanEnv(t, dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen []string
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		seen = append(seen, lines.Text())
		if strings.HasPrefix(lines.Text(), stage) {
			cmd.Process.Signal(syscall.SIGKILL)
			break
		}
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the run was not killed at %q (%v); its stderr:\n%s", stage, err, strings.Join(seen, "\n"))
	}
}

func openedStore(t *testing.T, dir string) *store.DB {
	t.Helper()
	db, err := openTestStore(context.Background(), t, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestServerFollowsADeployment: a stdio server running while another
// process deploys an adapter switches to it on its next search (its log
// says so) and stores new memories with the adapter's vectors.
func TestServerFollowsADeployment(t *testing.T) {
	dir := t.TempDir()
	seedMemories(t, dir, 200)
	s := start(t, options{dataDir: dir, args: []string{"--agent-id", "ann"}})
	s.ok("search_memory", map[string]any{"query": "billing export"}, nil)
	if _, err := runFineTune(t, dir, "--gate-z=-1e6"); err != nil {
		t.Fatal(err)
	}
	var sr struct{ Results []struct{ ID string } }
	s.ok("search_memory", map[string]any{"query": "billing export"}, &sr)
	if len(sr.Results) == 0 {
		t.Error("no results after the deployment")
	}
	var r struct{ ID string }
	s.ok("remember", map[string]any{"content": "The billing export now runs nightly at two."}, &r)
	s.stop()
	if log := s.errw.String(); !strings.Contains(log, "embedder switched by a deployment") || !strings.Contains(log, "to=wordvec-glove100-v1+ft1") {
		t.Errorf("the server's log does not say it switched:\n%s", log)
	}
	if vecs, _, _ := vectorsOf(t, dir); vecs[wordvec.ID+"+ft1"] != 201 {
		t.Errorf("vectors %v: want the 200 deployed and the one remembered after on +ft1", vecs)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, finetune.AdapterDir, "wordvec-glove100-v1-ft1-*.adapter")); len(files) != 1 {
		t.Errorf("checkpoints of version 1: %v, want one", files)
	}
}

// TestServerThatOnlyWritesFollowsADeployment: a server that remembers
// after another process deployed an adapter, without searching first,
// stores the memory with the adapter's vectors, not the replaced
// embedder's (which would be found by keyword only until a reindex).
func TestServerThatOnlyWritesFollowsADeployment(t *testing.T) {
	dir := t.TempDir()
	seedMemories(t, dir, 200)
	s := start(t, options{dataDir: dir, args: []string{"--agent-id", "ann"}})
	s.ok("remember", map[string]any{"content": "The harbour office opens at eight."}, nil)
	if _, err := runFineTune(t, dir, "--gate-z=-1e6"); err != nil {
		t.Fatal(err)
	}
	s.ok("remember", map[string]any{"content": "The billing export now runs nightly at two."}, nil)
	s.stop()
	if vecs, _, _ := vectorsOf(t, dir); vecs[wordvec.ID+"+ft1"] != 202 {
		t.Errorf("vectors %v: want the 201 deployed and the one remembered after on +ft1", vecs)
	}
}

// TestScheduledFineTune: an operator's server with finetune-every retrains
// once that many memories are there, and again only after as many more
// have arrived.
func TestScheduledFineTune(t *testing.T) {
	dir := t.TempDir()
	seedMemories(t, dir, 120)
	s := startIn(t, options{dataDir: dir, args: []string{"--human", "--agent-id", "op", "--finetune-every", "100", "--finetune-check", "50ms"}})
	db := openedStore(t, dir)
	runs := func() (int64, int) {
		r, ok, err := db.LastTuningRun(context.Background(), wordvec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return 0, 0
		}
		return r.Seq, r.Memories
	}
	waitFor := func(seq int64) int {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if got, memories := runs(); got >= seq {
				return memories
			}
		}
		t.Fatalf("no scheduled run %d within a minute:\n%s", seq, s.errw.String())
		return 0
	}
	if n := waitFor(1); n != 120 {
		t.Errorf("the first scheduled run counted %d memories, want 120", n)
	}
	for i := range 100 {
		s.ok("remember", map[string]any{"content": fmt.Sprintf("A later note, number %d, about the harbour and its boats.", i)}, nil)
		if i == 50 {
			// Half way, many looks have passed: none may have retrained.
			time.Sleep(300 * time.Millisecond)
			if seq, _ := runs(); seq != 1 {
				t.Fatalf("run %d after 51 new memories, with finetune-every 100", seq)
			}
		}
	}
	if n := waitFor(2); n != 220 {
		t.Errorf("the second scheduled run counted %d memories, want 220", n)
	}
}
