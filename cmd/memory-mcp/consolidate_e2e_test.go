package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// fillTopics writes, as agent, three memories on each of n topics that
// share no words with each other: each topic is one group of a run.
func fillTopics(t testing.TB, dir, agent string, n int) {
	t.Helper()
	db, err := openTestStore(context.Background(), t, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := store.NewMemoryService(db, nil)
	ctx := memory.WithIdentity(context.Background(), memory.Identity{AgentID: agent, Seniority: memory.SeniorityMid, Autonomy: memory.AutonomySemi})
	for topic := range n {
		for i := range 3 {
			w := memory.EntryWrite{Content: fmt.Sprintf("zeta%d omega%d kappa%d%c", topic, topic, topic, 'a'+i), Category: memory.CategoryEpisodic}
			if _, err := s.Remember(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// consolidateCmd is `memory-mcp consolidate` on dir as a process, with a
// clean environment plus env.
func consolidateCmd(t testing.TB, dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary(t), append([]string{"consolidate", "--data-dir", dir, "--embedder", "none"}, args...)...)
	cmd.Env = append(cleanEnv(t, dir), env...)
	return cmd
}

// runConsolidate runs consolidate to the end and returns its stdout and
// stderr apart.
func runConsolidate(t testing.TB, dir string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := consolidateCmd(t, dir, nil, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// openDir opens dir's database from the test, as another process would.
func openDir(t testing.TB, dir string) *store.DB {
	t.Helper()
	db, err := openTestStore(context.Background(), t, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func releaseLease(t testing.TB, db *store.DB, l store.Lease) {
	t.Helper()
	if err := db.Update(context.Background(), func(tx *store.Tx) error { return tx.ReleaseLease(context.Background(), l) }); err != nil {
		t.Fatal(err)
	}
}

// nothingInvisible checks that every memory of agent is in search or
// archived into a summary that is in search and lists it: none is both out
// of search and unlisted. It returns the memories in search and those
// consolidated.
func nothingInvisible(t testing.TB, db *store.DB, agent string) (active, consolidated int) {
	t.Helper()
	s := store.NewMemoryService(db, nil)
	ctx := memory.WithIdentity(context.Background(), memory.Identity{AgentID: agent})
	var all []memory.Entry
	for {
		page, err := s.List(ctx, memory.ListQuery{States: memory.MemoryStates, Offset: len(all), Limit: 500})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Memories...)
		if len(page.Memories) == 0 || len(all) >= page.Total {
			break
		}
	}
	byID := map[string]memory.Entry{}
	for _, e := range all {
		byID[e.ID] = e
	}
	for _, e := range all {
		switch memory.StateOf(e, time.Now()) {
		case memory.StateActive:
			active++
		case memory.StateConsolidated:
			consolidated++
			sum, ok := byID[e.ConsolidatedInto]
			if !ok || !sum.Active() || !slices.Contains(sum.Sources, e.ID) {
				t.Errorf("memory %s is archived into %q, which is not a summary in search that lists it (%+v)", e.ID, e.ConsolidatedInto, sum)
			}
		default:
			t.Errorf("memory %s is %s", e.ID, memory.StateOf(e, time.Now()))
		}
	}
	return active, consolidated
}

// TestConsolidateCommand: the command consolidates the configured agent's
// memories, or every agent's for a human; a dry run prints each group with
// its sources, mode and summary and changes nothing; stdout has the result
// and stderr the progress.
func TestConsolidateCommand(t *testing.T) {
	dir := t.TempDir()
	fillTopics(t, dir, "ann", 2)
	fillTopics(t, dir, "bob", 3)
	db := openDir(t, dir)
	before, _ := db.LastChange(context.Background())

	out, errs, err := runConsolidate(t, dir, "--agent-id", "ann", "--older-than", "0", "--dry-run")
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, errs)
	}
	if !strings.HasPrefix(out, "ann: would consolidate 4 memories into 2 summaries (dual_mode); active memories 6 -> 4") ||
		strings.Count(out, "  group ") != 2 || !strings.Contains(out, "episodic, abstractive: keeps ") ||
		!strings.Contains(out, "    | zeta0 omega0 kappa0") {
		t.Fatalf("dry run stdout:\n%s", out)
	}
	if !strings.Contains(errs, "consolidate ann: 0/2 groups (0%)") || !strings.Contains(errs, "consolidate ann: 2/2 groups (100%)") || strings.Contains(out, "groups (") {
		t.Fatalf("progress belongs on stderr:\nstdout:\n%s\nstderr:\n%s", out, errs)
	}
	if after, _ := db.LastChange(context.Background()); after != before {
		t.Fatal("a dry run wrote")
	}
	// Nothing is a day old: the configured age leaves everything alone.
	if out, _, err = runConsolidate(t, dir, "--agent-id", "ann", "--strategy", "simple"); err != nil || !strings.HasPrefix(out, "ann: consolidated 0 memories") {
		t.Fatalf("young memories: %v\n%s", err, out)
	}
	out, errs, err = runConsolidate(t, dir, "--agent-id", "ann", "--older-than", "0", "--strategy", "simple")
	if err != nil || !strings.HasPrefix(out, "ann: consolidated 4 memories into 2 summaries (simple); active memories 6 -> 4") ||
		!strings.Contains(out, "longest write ") || strings.Count(out, "\n") != 1 {
		t.Fatalf("run: %v\nstdout:\n%s\nstderr:\n%s", err, out, errs)
	}

	// --all-agents is an operator's.
	_, errs, err = runConsolidate(t, dir, "--agent-id", "ann", "--all-agents", "--older-than", "0")
	if err == nil || !strings.Contains(errs, "only a human operator may: add --human") {
		t.Fatalf("--all-agents as an agent: %v\n%s", err, errs)
	}
	out, errs, err = runConsolidate(t, dir, "--agent-id", "olivia", "--human", "--all-agents", "--older-than", "0")
	if err != nil {
		t.Fatalf("--all-agents: %v\n%s", err, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ann: consolidated 0 memories") || !strings.HasPrefix(lines[1], "bob: consolidated 6 memories into 3 summaries") {
		t.Fatalf("--all-agents stdout:\n%s", out)
	}
	for _, agent := range []string{"ann", "bob"} {
		if _, n := nothingInvisible(t, db, agent); n == 0 {
			t.Errorf("%s: nothing consolidated", agent)
		}
	}
	if _, errs, err = runConsolidate(t, dir, "--agent-id", "ann", "--strategy", "magic"); err == nil || !strings.Contains(errs, `unknown consolidation strategy "magic"`) {
		t.Fatalf("unknown strategy: %v\n%s", err, errs)
	}
}

// TestConsolidateWhileLeaseHeld: while another process (this test) holds
// the maintenance lease, a run through the tool skips and says who holds
// it; the command skips with --no-wait, and otherwise waits, saying so,
// and runs once the lease is released.
func TestConsolidateWhileLeaseHeld(t *testing.T) {
	dir := t.TempDir()
	fillTopics(t, dir, "ann", 2)
	db := openDir(t, dir)
	holder := fmt.Sprintf("the test, pid %d", os.Getpid())
	l, ok := storetest.HoldLease(t, db, holder, time.Hour)
	if !ok {
		t.Fatal("lease not free")
	}
	s := start(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--embedder", "none", "--consolidation-interval", "0"}})
	before, _ := db.LastChange(context.Background()) // after the server made ann's default blocks
	res := s.call("consolidate_memory", map[string]any{"older_than": "0"})
	var rep memory.ConsolidationReport
	decode(t, res, &rep)
	if res.IsError || !strings.Contains(rep.Skipped, holder) || !strings.Contains(rep.Skipped, l.ExpiresAt.Format(time.RFC3339)) ||
		len(rep.Groups) != 0 || !strings.HasPrefix(text(res), "nothing done: another maintenance run holds") {
		t.Fatalf("consolidate_memory while held: %+v\n%s", rep, text(res))
	}
	s.stop()

	out, errs, err := runConsolidate(t, dir, "--agent-id", "ann", "--older-than", "0", "--no-wait")
	if err != nil || !strings.HasPrefix(out, "ann: skipped: another maintenance run holds") || !strings.Contains(out, holder) {
		t.Fatalf("--no-wait: %v\nstdout:\n%s\nstderr:\n%s", err, out, errs)
	}
	if after, _ := db.LastChange(context.Background()); after != before {
		t.Fatal("a skipped run wrote")
	}

	// Without --no-wait it waits, says so, and runs once the lease is free.
	cmd := consolidateCmd(t, dir, nil, "--agent-id", "ann", "--older-than", "0")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	var said []string
	for lines.Scan() {
		said = append(said, lines.Text())
		if strings.Contains(lines.Text(), "consolidate ann: waiting up to 10m0s (--no-wait skips instead)") && strings.Contains(lines.Text(), holder) {
			break
		}
	}
	if len(said) == 0 || !strings.Contains(said[len(said)-1], "waiting") {
		t.Fatalf("the command did not say it waits:\n%s", strings.Join(said, "\n"))
	}
	releaseLease(t, db, l)
	for lines.Scan() {
	}
	if err := cmd.Wait(); err != nil || !strings.HasPrefix(stdout.String(), "ann: consolidated 4 memories into 2 summaries") {
		t.Fatalf("after the wait: %v\n%s", err, stdout.String())
	}
}

// TestConsolidateKilledMidRun: a run killed (SIGKILL) half-way leaves every
// memory in search or archived into a summary that lists it; its lease
// stays until it expires (a short one here), and the next run waits for
// it, then finishes the work.
func TestConsolidateKilledMidRun(t *testing.T) {
	const topics = 400
	dir := t.TempDir()
	fillTopics(t, dir, "ann", topics)
	db := openDir(t, dir)
	lease := []string{"MEMORY_MCP_CONSOLIDATION_LEASE=1s"}

	cmd := consolidateCmd(t, dir, lease, "--agent-id", "ann", "--older-than", "0", "--strategy", "simple")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	progress := regexp.MustCompile(`consolidate ann: (\d+)/(\d+) groups`)
	lines := bufio.NewScanner(stderr)
	var said []string
	for lines.Scan() {
		said = append(said, lines.Text())
		if m := progress.FindStringSubmatch(lines.Text()); m != nil && m[1] != "0" {
			if done, _ := strconv.Atoi(m[1]); done >= topics {
				t.Fatalf("the run ended before the test could kill it:\n%s", strings.Join(said, "\n"))
			}
			break // some groups stored, not all
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	go func() {
		for lines.Scan() {
		}
	}()
	var exit *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the run was not killed: %v\n%s", err, strings.Join(said, "\n"))
	}
	active, consolidated := nothingInvisible(t, db, "ann")
	if consolidated == 0 || consolidated >= 2*topics || active+consolidated <= 3*topics {
		t.Fatalf("after the kill: %d active, %d consolidated; want a run stopped half-way", active, consolidated)
	}
	// The dead run's lease holds until it expires (unless it already has).
	if l, ok := storetest.HoldLease(t, db, "a peek", time.Millisecond); ok {
		releaseLease(t, db, l)
	} else if want := fmt.Sprintf("pid %d", cmd.Process.Pid); !strings.Contains(l.Holder, want) {
		t.Fatalf("lease held by %q, want the killed run (%s)", l.Holder, want)
	}

	out, errs, err := runConsolidate(t, dir, "--agent-id", "ann", "--older-than", "0", "--strategy", "simple")
	if err != nil || !strings.HasPrefix(out, "ann: consolidated ") {
		t.Fatalf("the run after the kill: %v\nstdout:\n%s\nstderr:\n%s", err, out, errs)
	}
	active, consolidated = nothingInvisible(t, db, "ann")
	if consolidated != 2*topics || active != 2*topics {
		t.Fatalf("after the second run: %d active, %d consolidated; want every topic consolidated once (%d and %d)", active, consolidated, 2*topics, 2*topics)
	}
	if out, _, err := runConsolidate(t, dir, "--agent-id", "ann", "--older-than", "0", "--dry-run"); err != nil || !strings.Contains(out, "would consolidate 0 memories") {
		t.Fatalf("work left after the second run: %v\n%s", err, out)
	}
	// The search statistics count what is in search, kill or no kill.
	if miscounted, _, err := storetest.SpaceCounts(context.Background(), storeAt(t, dir)); err != nil || miscounted != 0 {
		t.Fatalf("%d memory spaces miscounted (%v)", miscounted, err)
	}
}

// TestConsolidationScheduler: an operator's server with a consolidation
// interval maintains every agent's memories in the background: it
// skips, saying so, while another process holds the lease, runs once it is
// free, and stops with the server.
func TestConsolidationScheduler(t *testing.T) {
	dir := t.TempDir()
	fillTopics(t, dir, "ann", 2)
	fillTopics(t, dir, "bob", 2)
	db := openDir(t, dir)
	l, _ := storetest.HoldLease(t, db, "the test", time.Hour)
	// An operator's server maintains every agent (an agent's, only itself).
	s := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ops", "--human", "--embedder", "none",
		"--consolidation-interval", "100ms", "--consolidation-older-than", "0"}})
	waitFor := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !strings.Contains(s.errw.String(), what); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the server's log never said %q:\n%s", what, s.errw.String())
			}
		}
	}
	waitFor(`msg="scheduled consolidation skipped" agent=ann why="another maintenance run holds this data directory's lease: the test`)
	if _, n := nothingInvisible(t, db, "ann"); n != 0 {
		t.Fatal("the scheduler wrote while the lease was held")
	}
	releaseLease(t, db, l)
	waitFor(`msg="scheduled consolidation" agent=bob groups=2 consolidated=4`)
	s.stop()
	for _, agent := range []string{"ann", "bob"} {
		if active, n := nothingInvisible(t, db, agent); active != 4 || n != 4 {
			t.Errorf("%s after the scheduled run: %d active, %d consolidated", agent, active, n)
		}
	}
	if strings.Contains(s.errw.String(), "level=ERROR") {
		t.Errorf("the scheduler logged an error:\n%s", s.errw.String())
	}
}
