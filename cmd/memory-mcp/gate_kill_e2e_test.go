package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// TestGatedWritesSurviveKill kills a server (SIGKILL) while it answers a
// stream of keyed remembers, then checks what the write path promises: a
// write and its key commit together or not at all (no memory without its
// key, no key without its memory), every acknowledged write is there, and
// a retry of every call with its key, after the crash, writes each memory
// exactly once. Dedup is off, so a second write of a call could not hide
// behind the first.
func TestGatedWritesSurviveKill(t *testing.T) {
	const calls = 3000
	dir := t.TempDir()
	flags := []string{"--agent-id", "ann", "--dedup=false", "--rate-limits", "off", "--contradictions", "off"}
	cmd := exec.Command(binary(t), append([]string{"stdio", "--data-dir", dir}, flags...)...)
	cmd.Env = cleanEnv(t, dir)
	s := connectClient(t, options{dataDir: dir}, &mcp.CommandTransport{Command: cmd}, nil, nil, nil)
	content := func(i int) string { return fmt.Sprintf("Kill test note %d of the run.", i) }
	var mu sync.Mutex
	acked := map[int]string{} // call -> memory id
	sent := -1                // the last call sent
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range calls {
			mu.Lock()
			sent = i
			mu.Unlock()
			res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "remember",
				Arguments: map[string]any{"content": content(i), "idempotency_key": fmt.Sprintf("k-%d", i)}})
			if err != nil || res.IsError {
				return // the server was killed
			}
			var r struct{ ID string }
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &r)
			mu.Lock()
			acked[i] = r.ID
			mu.Unlock()
		}
	}()
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 200 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The calls end when the killed process's output closes; the client
	// session waits for the process itself when the test ends.
	<-done
	mu.Lock()
	last := sent
	mu.Unlock()
	if len(acked) >= calls || last >= 500 {
		t.Fatalf("%d calls answered of %d sent before the kill: the test reads one page of 500", len(acked), last+1)
	}

	// After the crash: a key and its memory together, or neither.
	db, err := openTestStore(context.Background(), t, dir)
	if err != nil {
		t.Fatal(err)
	}
	mem := store.NewMemoryService(db, nil)
	ann := memory.WithIdentity(context.Background(), memory.Identity{AgentID: "ann", Seniority: memory.SeniorityMid, Autonomy: memory.AutonomySemi})
	page, err := mem.List(ann, memory.ListQuery{Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{} // content -> id
	for _, e := range page.Memories {
		if _, twice := stored[e.Content]; twice {
			t.Fatalf("%q was stored twice", e.Content)
		}
		stored[e.Content] = e.ID
	}
	keyed := 0
	for i := 0; i <= last; i++ {
		rec, ok, err := db.LookupKey(context.Background(), "agent:ann", fmt.Sprintf("k-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		id, written := stored[content(i)]
		switch {
		case ok && (!written || rec.Ref != id):
			t.Errorf("call %d: its key names %q, but the store holds %q", i, rec.Ref, id)
		case !ok && written:
			t.Errorf("call %d: memory %s was written without its key", i, id)
		case acked[i] != "" && acked[i] != id:
			t.Errorf("call %d was acknowledged as %s, the store holds %q", i, acked[i], id)
		}
		if ok {
			keyed++
		}
	}
	if len(stored) != keyed {
		t.Errorf("%d memories, %d keys", len(stored), keyed)
	}
	db.Close()

	// The client retries every call it sent: each is answered from its key
	// or runs now, and each memory exists once.
	again := startIn(t, options{dataDir: dir, args: flags})
	for i := 0; i <= last; i++ {
		res := again.call("remember", map[string]any{"content": content(i), "idempotency_key": fmt.Sprintf("k-%d", i)})
		if res.IsError {
			// Only a call whose write committed and whose result the crash
			// lost may refuse, saying so: the write is there.
			if msg := text(res); !strings.Contains(msg, "committed") || stored[content(i)] == "" {
				t.Errorf("retry of call %d: %s", i, msg)
			}
		}
	}
	var all struct {
		Memories []memory.Entry `json:"memories"`
		Total    int            `json:"total"`
	}
	again.ok("list_memories", map[string]any{"limit": 500}, &all)
	seen := map[string]bool{}
	for _, e := range all.Memories {
		if seen[e.Content] {
			t.Errorf("%q stored twice after the retries", e.Content)
		}
		seen[e.Content] = true
	}
	if all.Total != last+1 {
		t.Errorf("%d memories after retrying calls 0..%d, want %d", all.Total, last, last+1)
	}
	t.Logf("killed after %d acknowledged of %d sent; %d written before the kill", len(acked), last+1, len(stored))
}
