package main

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeOpenAI is an OpenAI-compatible embeddings endpoint: each word of a
// text adds a fixed pseudo-random direction, so texts that share words are
// near. It records what it was asked and can answer 429 a number of times.
type fakeOpenAI struct {
	*httptest.Server
	dim int

	mu        sync.Mutex
	batches   []int    // texts per request that got vectors
	auth      []string // Authorization headers seen
	models    []string
	throttles int // requests still to answer with 429
}

func newFakeOpenAI(t *testing.T, dim int) *fakeOpenAI {
	f := &fakeOpenAI{dim: dim}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeOpenAI) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/embeddings" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Input []string `json:"input"`
		Model string   `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.auth, f.models = append(f.auth, r.Header.Get("Authorization")), append(f.models, req.Model)
	if f.throttles > 0 {
		f.throttles--
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error":{"message":"slow down","type":"rate_limit"}}`))
		return
	}
	f.batches = append(f.batches, len(req.Input))
	f.mu.Unlock()
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	resp := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
	}{Object: "list", Model: req.Model}
	for i := len(req.Input) - 1; i >= 0; i-- { // out of order: the client must place by index
		resp.Data = append(resp.Data, item{Object: "embedding", Index: i, Embedding: f.vector(req.Input[i])})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

func (f *fakeOpenAI) vector(text string) []float32 {
	v := make([]float32, f.dim)
	v[0] = 0.01 // never the zero vector
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !('a' <= r && r <= 'z') }) {
		h := fnv.New64a()
		h.Write([]byte(w))
		x := h.Sum64()
		for j := range 3 {
			v[(x>>(20*j))%uint64(f.dim)] += float32(1 - 2*int((x>>(60+j))&1))
		}
	}
	return v
}

func (f *fakeOpenAI) seen() (batches []int, auth, models []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.batches), slices.Clone(f.auth), slices.Clone(f.models)
}

// The OpenAI-compatible embedder end to end: vectors made by the server, the
// warning when stored vectors come from another embedder, reindex (the real
// binary) with its progress bar (followed live by a running server), retries
// on 429, and a dimension mismatch.
func TestOpenAIEmbedderEndToEnd(t *testing.T) {
	fake := newFakeOpenAI(t, 32)
	dir := t.TempDir()
	openai := []string{"--agent-id", "ann", "--embedder", "openai", "--embedding-base-url", fake.URL + "/v1",
		"--embedding-model", "fake-embed-3", "--embedding-dimensions", "32"}
	env := []string{"MEMORY_MCP_EMBEDDING_API_KEY=sk-test-key"}

	// Memories written with the offline default first.
	offline := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann"}})
	old := []string{"The release checklist lives in the wiki.", "Rotate the signing keys every quarter.", "The cafeteria closes at three."}
	var oldIDs []string
	for _, c := range old {
		var r memoryResult
		offline.ok("remember", map[string]any{"content": c}, &r)
		oldIDs = append(oldIDs, r.ID)
	}
	offline.stop()

	// Now configured for the OpenAI-compatible server, searching by vectors alone.
	s := startIn(t, options{dataDir: dir, env: env, args: append(slices.Clone(openai), "--bm25-weight", "0")})
	var r memoryResult
	s.ok("remember", map[string]any{"content": "Grafana alerts page the on-call engineer."}, &r)
	var sr searchResult
	s.ok("search_memory", map[string]any{"query": "grafana alerts on-call", "limit": 1}, &sr)
	if len(sr.Results) != 1 || sr.Results[0].ID != r.ID {
		t.Fatalf("vector search through the fake server: %v, want %s", sr.ids(), r.ID)
	}
	s.ok("search_memory", map[string]any{"query": "signing keys quarter"}, &sr)
	if slices.Contains(sr.ids(), oldIDs[1]) {
		t.Fatalf("a vector from the offline embedder was compared with the server's: %v", sr.ids())
	}
	waitFor(t, s, "memories embedded by a different embedder", `count=3 stored_embedder=wordvec-glove100-v1 configured_embedder=openai:fake-embed-3:32`)
	batches, auth, models := fake.seen()
	if len(batches) == 0 || auth[0] != "Bearer sk-test-key" || models[0] != "fake-embed-3" {
		t.Fatalf("requests: batches %v, auth %v, models %v", batches, auth, models)
	}

	// reindex as its own process, in batches of 2, through one 429.
	fake.mu.Lock()
	fake.throttles, fake.batches = 1, nil
	fake.mu.Unlock()
	cmd := exec.Command(binary(t), append([]string{"reindex", "--data-dir", dir, "--embedding-batch-size", "2"}, openai[2:]...)...)
	cmd.Env = append(cleanEnv(t, dir), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("reindex: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "reindex [") || !strings.Contains(string(out), "4/4 100%") ||
		!strings.Contains(string(out), "reindexed 4 memories with openai:fake-embed-3:32") {
		t.Fatalf("reindex output:\n%s", out)
	}
	if batches, _, _ := fake.seen(); !slices.Equal(batches, []int{2, 2}) {
		t.Fatalf("reindex batches %v, want [2 2] after one throttled request", batches)
	}
	// The running server follows the new vectors without a restart.
	s.ok("search_memory", map[string]any{"query": "signing keys quarter", "limit": 1}, &sr)
	if len(sr.Results) != 1 || sr.Results[0].ID != oldIDs[1] {
		t.Fatalf("after reindex: %v, want %s", sr.ids(), oldIDs[1])
	}

	// A server that returns another dimension than configured: the memory is
	// kept (found by keyword) and the log says what to do.
	s.stop()
	wrong := append(slices.Clone(openai[:len(openai)-1]), "16")
	w := startIn(t, options{dataDir: dir, env: env, args: wrong})
	w.ok("remember", map[string]any{"content": "Dimension mismatch survivor note."}, &r)
	w.ok("search_memory", map[string]any{"query": "dimension mismatch survivor"}, &sr)
	if len(sr.Results) == 0 || sr.Results[0].ID != r.ID {
		t.Fatalf("memory lost to a dimension mismatch: %v", sr.ids())
	}
	waitFor(t, w, "memory stored without a vector", `returned 32-dimensional vectors, but 16 were expected`)
	cmd = exec.Command(binary(t), append([]string{"reindex", "--data-dir", dir}, wrong[2:]...)...)
	cmd.Env = append(cleanEnv(t, dir), env...)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "set --embedding-dimensions to 32") {
		t.Fatalf("reindex with the wrong dimension: %v\n%s", err, out)
	}
}

// waitFor waits (briefly: logs are written before the answer) until the
// process's stderr holds every one of wants.
func waitFor(t *testing.T, p *proc, wants ...string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		log := p.stderrText()
		missing := slices.IndexFunc(wants, func(w string) bool { return !strings.Contains(log, w) })
		if missing < 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("stderr lacks %q:\n%s", wants[missing], log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stderrText is what the process has logged so far.
func (s *proc) stderrText() string {
	s.errw.mu.Lock()
	defer s.errw.mu.Unlock()
	return s.stderr.String()
}
