package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// waitLog waits until a process's stderr says what.
func waitLog(t *testing.T, errw *lockedWriter, what string, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); !strings.Contains(errw.String(), what); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server's log never said %q:\n%s", what, errw.String())
		}
	}
}

// TestServeMaintainsTokenAgents: a team server started without --human
// (the image's default) consolidates its token agents' memories and purges
// what they forgot past the grace, as the operator: the agents have no
// server of their own, so the operator's settings apply to every agent.
func TestServeMaintainsTokenAgents(t *testing.T) {
	dir := t.TempDir()
	h := &httpServe{t: t, dir: dir}
	ann := h.token("--agent-id", "ann", "--seniority", "mid")
	h.token("--agent-id", "bob", "--seniority", "junior")
	fillTopics(t, dir, "ann", 2)
	fillTopics(t, dir, "bob", 2)
	// cat forgets its one memory: gc purges it once the grace has passed.
	db := openDir(t, dir)
	cat := memory.WithIdentity(context.Background(), memory.Identity{AgentID: "cat", Seniority: memory.SeniorityMid})
	svc := store.NewMemoryService(db, nil)
	e, err := svc.Remember(cat, memory.EntryWrite{Content: "The spare key is under the blue pot.", Category: memory.CategoryEpisodic})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Forget(cat, e.ID, "moved the key"); err != nil {
		t.Fatal(err)
	}

	_, url, errw := serveProcess(t, dir, "--embedder", "none", "--consolidation-interval", "100ms",
		"--consolidation-older-than", "0", "--gc-grace", "1s")
	waitLog(t, errw, `msg="scheduled consolidation" agent=ann groups=2 consolidated=4`, 30*time.Second)
	waitLog(t, errw, `msg="scheduled consolidation" agent=bob groups=2 consolidated=4`, 30*time.Second)
	waitLog(t, errw, `msg="scheduled gc" memories=1`, 30*time.Second)
	for _, agent := range []string{"ann", "bob"} {
		if active, n := nothingInvisible(t, db, agent); active != 4 || n != 4 {
			t.Errorf("%s after the scheduled run: %d active, %d consolidated; want 4 and 4", agent, active, n)
		}
	}
	if page, err := svc.List(cat, memory.ListQuery{States: memory.MemoryStates}); err != nil || page.Total != 0 {
		t.Errorf("cat's forgotten memory after gc: %+v %v; want it purged", page, err)
	}
	// The agent sees its summaries through its token.
	out, err := callHTTP(context.Background(), http.DefaultClient, url, ann, "memory_stats", nil)
	if err != nil || out.IsError || !strings.Contains(out.Text, "consolidated") {
		t.Fatalf("ann's memory_stats: %v %+v", err, out)
	}
	if strings.Contains(errw.String(), "level=ERROR") {
		t.Errorf("the scheduler logged an error:\n%s", errw.String())
	}
}

// TestServeScheduledFineTune: finetune-every retrains on the team server
// too, whatever its identity, as the operator.
func TestServeScheduledFineTune(t *testing.T) {
	dir := t.TempDir()
	seedMemories(t, dir, 120)
	_, _, errw := serveProcess(t, dir, "--finetune-every", "100", "--finetune-check", "50ms", "--consolidation-interval", "0")
	db := openedStore(t, dir)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		r, ok, err := db.LastTuningRun(context.Background(), wordvec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			if r.By != "maintenance" || r.Memories != 120 {
				t.Errorf("the scheduled run: by %q over %d memories; want the operator over 120", r.By, r.Memories)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no scheduled fine-tuning run within two minutes:\n%s", errw.String())
		}
	}
}

// TestServeMaintenanceTakenOverAfterKill: a node killed (SIGKILL) in the
// middle of a maintenance run, waiting on its model, holds the lease until
// it expires; another node then takes it over with the next token and
// maintains the agent, and every memory ends in search or in exactly one
// summary that lists it.
func TestServeMaintenanceTakenOverAfterKill(t *testing.T) {
	var hang atomic.Bool
	hang.Store(true)
	asked, done := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if hang.Load() {
			select {
			case asked <- struct{}{}:
			default:
			}
			select { // the node asking is killed meanwhile
			case <-r.Context().Done():
			case <-done:
			}
			return
		}
		content, _ := json.Marshal(map[string]string{"summary": "Zeta omega kappa, merged."})
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(content)}}}})
	}))
	defer srv.Close()
	defer close(done)
	dir := t.TempDir()
	fillTopics(t, dir, "ann", 2)
	db := openDir(t, dir)
	args := []string{"--embedder", "none", "--consolidation-strategy", "llm", "--llm-base-url", srv.URL + "/v1", "--llm-model", "m",
		"--llm-timeout", "1m", "--consolidation-interval", "100ms", "--consolidation-older-than", "0", "--consolidation-lease", "10s"}

	first, _, _ := serveProcess(t, dir, args...)
	select {
	case <-asked:
	case <-time.After(30 * time.Second):
		t.Fatal("the first node never asked its model")
	}
	held, ok := storetest.HoldLease(t, db, "the test", time.Minute)
	if ok || !strings.Contains(held.Holder, "serve") {
		t.Fatalf("lease while the first node waits on its model: %+v (taken by the test: %v)", held, ok)
	}
	first.Process.Kill()
	first.Wait()
	hang.Store(false)

	// The second node waits out the lease of the killed one (renewed every
	// third of its 10s), then takes it over.
	_, _, errw := serveProcess(t, dir, args...)
	waitLog(t, errw, fmt.Sprintf(`msg="scheduled consolidation skipped" agent=ann why="another maintenance run holds this data directory's lease: memory-mcp serve, pid %d`,
		first.Process.Pid), 30*time.Second)
	waitLog(t, errw, `msg="scheduled consolidation" agent=ann groups=2 consolidated=4`, 30*time.Second)
	if active, n := nothingInvisible(t, db, "ann"); active != 4 || n != 4 {
		t.Errorf("after the takeover: %d active, %d consolidated; want 4 and 4", active, n)
	}
	var sums int
	for _, agent := range []string{"ann"} {
		page, err := store.NewMemoryService(db, nil).List(memory.WithIdentity(context.Background(), memory.Identity{AgentID: agent}), memory.ListQuery{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Memories {
			if e.Content == "Zeta omega kappa, merged." {
				sums++
			}
		}
	}
	if sums != 2 {
		t.Errorf("%d summaries by the model in search, want one per topic", sums)
	}
	// The second node's runs took the lease with later tokens (the killed
	// node's writes, had it any left, would fail in their transaction).
	if probe, _ := storetest.HoldLease(t, db, "the test", time.Millisecond); probe.Token <= held.Token {
		t.Errorf("lease after the takeover: %+v, want a token past %d", probe, held.Token)
	}
}
