package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// The load of the team server's figures and of its stop test: clients that
// each act as an agent of their own and mix searches, remembers, notes and
// fact reads, as 2026-07-28 stateless requests over HTTP.

// loadMix is the mix one client cycles through.
var loadMix = []string{"search_memory", "remember", "search_memory", "write_note", "get_fact", "remember", "search_memory", "query_facts"}

// loadArgs are the arguments of the i-th call of client c to tool.
func loadArgs(tool string, c, i int) map[string]any {
	switch tool {
	case "remember":
		return map[string]any{"content": fmt.Sprintf("Client %d learned fact number %d about the deploy pipeline.", c, i)}
	case "write_note":
		return map[string]any{"text": fmt.Sprintf("progress: client %d finished step %d", c, i)}
	case "get_fact":
		return map[string]any{"fact_id": "load-policy"}
	case "query_facts":
		return map[string]any{"query": "deploy"}
	}
	return map[string]any{"query": fmt.Sprintf("deploy pipeline fact %d", i%50)}
}

// loadResult is what a load run saw.
type loadResult struct {
	mu       sync.Mutex
	latency  map[string][]time.Duration // successful calls, by tool
	errors   []string                   // answers that were not a success
	refused  int                        // requests the server did not take (it was stopping)
	acked    map[string][]string        // agent -> ids of memories the server said it stored
	notes    map[string][]int64         // agent -> ids of notes the server said it stored
	requests int
	answered int // requests the server answered (a success or a tool's error)
	elapsed  time.Duration
}

// driveHTTP runs one client per token against url until ctx ends. Each
// client is one agent; a write the server answered as a success is recorded
// for checking afterwards.
func driveHTTP(ctx context.Context, url string, tokens []string) *loadResult {
	res := &loadResult{latency: map[string][]time.Duration{}, acked: map[string][]string{}, notes: map[string][]int64{}}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: len(tokens)}}
	start := time.Now()
	var wg sync.WaitGroup
	for c, tok := range tokens {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				tool := loadMix[i%len(loadMix)]
				t0 := time.Now()
				out, err := callHTTP(ctx, client, url, tok, tool, loadArgs(tool, c, i))
				d := time.Since(t0)
				res.record(c, tool, d, out, err, ctx.Err() != nil)
			}
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	return res
}

// callOutcome is what one call answered.
type callOutcome struct {
	IsError    bool           `json:"isError"`
	Text       string         `json:"-"`
	ID         any            `json:"-"`
	Structured map[string]any `json:"-"`
}

func (r *loadResult) record(c int, tool string, d time.Duration, out *callOutcome, err error, stopping bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	if err == nil {
		r.answered++
	}
	agent := fmt.Sprintf("load-%d", c)
	switch {
	case err != nil && stopping:
		r.refused++
	case err != nil:
		r.errors = append(r.errors, tool+": "+err.Error())
	case out.IsError:
		r.errors = append(r.errors, tool+": "+out.Text)
	default:
		r.latency[tool] = append(r.latency[tool], d)
		switch tool {
		case "remember":
			r.acked[agent] = append(r.acked[agent], fmt.Sprint(out.ID))
		case "write_note":
			if f, ok := out.ID.(float64); ok {
				r.notes[agent] = append(r.notes[agent], int64(f))
			}
		}
	}
}

// callHTTP makes one stateless tools/call.
func callHTTP(ctx context.Context, client *http.Client, url, token, tool string, args map[string]any) (*callOutcome, error) {
	body, headers := statelessCall(tool, args)
	req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(b))
	}
	var msg struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			Structured map[string]any `json:"structuredContent"`
		} `json:"result"`
		Error *struct{ Message string } `json:"error"`
	}
	if err := json.Unmarshal(b, &msg); err != nil {
		return nil, fmt.Errorf("answer %q: %v", b, err)
	}
	if msg.Error != nil {
		return nil, fmt.Errorf("JSON-RPC error: %s", msg.Error.Message)
	}
	out := &callOutcome{IsError: msg.Result.IsError, Structured: msg.Result.Structured}
	if len(msg.Result.Content) > 0 {
		out.Text = msg.Result.Content[0].Text
	}
	switch tool {
	case "remember":
		out.ID = msg.Result.Structured["id"]
	case "write_note":
		if n, ok := msg.Result.Structured["note"].(map[string]any); ok {
			out.ID = n["id"]
		}
	}
	return out, nil
}

// lost lists the writes the server acknowledged that the data directory
// does not hold.
func (r *loadResult) lost(t testing.TB, dir string) []string {
	t.Helper()
	db, err := openTestStore(context.Background(), t, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mem := store.NewMemoryService(db, nil)
	var lost []string
	for agent, ids := range r.acked {
		ctx := memory.WithIdentity(context.Background(), memory.Identity{AgentID: agent, Seniority: memory.SeniorityMid})
		for _, id := range ids {
			if _, err := mem.Recall(ctx, []string{id}); err != nil {
				lost = append(lost, agent+" memory "+id+": "+err.Error())
			}
		}
	}
	for agent, ids := range r.notes {
		for _, id := range ids {
			err := db.View(context.Background(), func(tx *store.Tx) error {
				n, ok, err := tx.GetNote(context.Background(), id)
				if err == nil && (!ok || n.Agent != agent) {
					err = fmt.Errorf("not found")
				}
				return err
			})
			if err != nil {
				lost = append(lost, fmt.Sprintf("%s note %d: %v", agent, id, err))
			}
		}
	}
	return lost
}

// writes counts the acknowledged writes.
func (r *loadResult) writes() int {
	n := 0
	for _, ids := range r.acked {
		n += len(ids)
	}
	for _, ids := range r.notes {
		n += len(ids)
	}
	return n
}

// serveProcess runs `memory-mcp serve` as a process on dir and returns it
// with its URL and its stderr.
func serveProcess(t testing.TB, dir string, args ...string) (*exec.Cmd, string, *lockedWriter) {
	return serveProcessLog(t, dir, 0, args...)
}

// serveProcessLog is serveProcess keeping only the first keep bytes of the
// server's stderr (0: all of it), for a load whose access log would fill
// memory.
func serveProcessLog(t testing.TB, dir string, keep int, args ...string) (*exec.Cmd, string, *lockedWriter) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"serve", "--data-dir", dir, "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = cleanEnv(t, dir)
	errw := &lockedWriter{w: &bytes.Buffer{}}
	cmd.Stderr = errw
	if keep > 0 {
		cmd.Stderr = &headWriter{w: errw, left: keep}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := regexp.MustCompile(`url=(http\S+/mcp)`)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := url.FindStringSubmatch(errw.String()); m != nil {
			return cmd, m[1], errw
		}
	}
	t.Fatalf("serve did not listen\nstderr:\n%s", errw.String())
	return nil, "", nil
}

// headWriter passes on the first bytes written to it and drops the rest.
type headWriter struct {
	w    *lockedWriter
	left int
}

func (h *headWriter) Write(p []byte) (int, error) {
	if h.left > 0 {
		n := min(len(p), h.left)
		h.w.Write(p[:n])
		h.left -= n
	}
	return len(p), nil
}

// loadTokens makes n agent tokens on dir.
func loadTokens(t testing.TB, dir string, n int) []string {
	t.Helper()
	h := &httpServe{t: t, dir: dir}
	var out []string
	for i := range n {
		out = append(out, h.token("--agent-id", fmt.Sprintf("load-%d", i), "--seniority", "mid"))
	}
	return out
}

// seedLoad publishes the fact the load reads.
func seedLoad(t testing.TB, url, token string) {
	t.Helper()
	out, err := callHTTP(context.Background(), http.DefaultClient, url, token, "publish_fact",
		map[string]any{"fact_id": "load-policy", "content": "Every deploy pipeline change is reviewed.", "category": "other"})
	if err != nil || out.IsError {
		t.Fatalf("publish the load's fact: %v %+v", err, out)
	}
}

// TestServeStopsWithoutLosingWrites: a server told to stop (SIGTERM) while
// eight clients write finishes the requests in flight, answers them, and
// exits cleanly; every write it acknowledged is in the data directory.
func TestServeStopsWithoutLosingWrites(t *testing.T) {
	dir := t.TempDir()
	tokens := loadTokens(t, dir, 8)
	cmd, url, errw := serveProcess(t, dir, "--rate-limits", "off")
	seedLoad(t, url, tokens[0])
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *loadResult, 1)
	go func() { done <- driveHTTP(ctx, url, tokens) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		m := metricOf(url)
		if m >= 40 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var exitErr error
	select {
	case exitErr = <-exited:
	case <-time.After(60 * time.Second):
		t.Fatalf("the server did not stop\n%s", errw.String())
	}
	cancel()
	res := <-done
	if exitErr != nil || !strings.Contains(errw.String(), `msg=stopped`) {
		t.Fatalf("exit: %v\n%s", exitErr, errw.String())
	}
	for _, e := range res.errors {
		// Requests sent as the server stopped were never taken: the
		// listener was closed (refused), or the idle connection they went
		// out on was (EOF, reset). The access log says which it took.
		if !regexp.MustCompile(`connection refused|server closed idle connection|EOF|connection reset`).MatchString(e) {
			t.Errorf("an answer that is no success: %s", e)
		}
	}
	// Every request the server took, it answered: one access log line each
	// (the first is the seeding publish).
	if took := strings.Count(errw.String(), "msg=http method=POST path=/mcp status=200") - 1; took != res.answered {
		t.Errorf("the server took %d requests and the clients got %d answers", took, res.answered)
	}
	if res.writes() < 20 {
		t.Fatalf("only %d writes acknowledged before the stop", res.writes())
	}
	if lost := res.lost(t, dir); len(lost) > 0 {
		t.Fatalf("%d of %d acknowledged writes are not in the data directory: %v", len(lost), res.writes(), lost)
	}
}

// metricOf is the count of writes the server at url applied, from its
// metrics (0 while they cannot be read).
func metricOf(url string) float64 {
	resp, err := http.Get(strings.TrimSuffix(url, "/mcp") + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var n float64
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "memory_mcp_writes_total{") && strings.Contains(line, `outcome="applied"`) {
			var v float64
			fmt.Sscan(line[strings.LastIndex(line, " ")+1:], &v)
			n += v
		}
	}
	return n
}
