package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/llm"
)

// fakeEmbeddings is an OpenAI-compatible /v1/embeddings server. Each text
// "t<n>" is embedded as a vector whose first component is n, so tests can
// see where every vector went. Data come back in reverse order, as a
// server is free to do, so that only the index field places them.
type fakeEmbeddings struct {
	mu       sync.Mutex
	requests []embeddingRequest
	dim      int                          // length of returned vectors
	fail     []int                        // status codes to answer with first, one per request
	reply    func(n int) []map[string]any // optional override of the data array
	message  string                       // error message for failures
	seen     func()                       // optional, called on each request
}

type embeddingRequest struct {
	Input      []string        `json:"input"`
	Model      string          `json:"model"`
	Dimensions json.RawMessage `json:"dimensions"`
}

func (f *fakeEmbeddings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	var req embeddingRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if f.seen != nil {
		f.seen()
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	var status int
	if len(f.fail) > 0 {
		status, f.fail = f.fail[0], f.fail[1:]
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if status != 0 {
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": f.message, "type": "invalid_request_error"}})
		return
	}
	data := make([]map[string]any, 0, len(req.Input))
	for i := len(req.Input) - 1; i >= 0; i-- {
		n, _ := strconv.Atoi(strings.TrimPrefix(req.Input[i], "t"))
		v := make([]float32, f.dim)
		v[0] = float32(n)
		v[len(v)-1] = 1
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": v})
	}
	if f.reply != nil {
		data = f.reply(len(req.Input))
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": req.Model, "data": data})
}

func (f *fakeEmbeddings) sizes() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []int
	for _, r := range f.requests {
		out = append(out, len(r.Input))
	}
	return out
}

func serve(t *testing.T, f *fakeEmbeddings) *llm.Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return llm.New(llm.Config{BaseURL: srv.URL + "/v1", APIKey: "test-key", Model: "embed-small"})
}

// embedder returns an embedder of dim configured dimensions on f.
func embedder(t *testing.T, f *fakeEmbeddings, dim int) memory.Embedder {
	t.Helper()
	e, err := llm.NewEmbedder(context.Background(), serve(t, f), llm.EmbedConfig{Dimensions: dim})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("t%d", i)
	}
	return out
}

func TestEmbedBatchesInOrder(t *testing.T) {
	f := &fakeEmbeddings{dim: 8}
	e, err := llm.NewEmbedder(context.Background(), serve(t, f), llm.EmbedConfig{Dimensions: 8, BatchSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	if e.ID != "openai:embed-small:8" || e.Dim != 8 {
		t.Errorf("ID %q, Dim %d", e.ID, e.Dim)
	}
	if n := len(f.sizes()); n != 0 {
		t.Fatalf("NewEmbedder with dimensions set made %d requests, want none", n)
	}
	vecs, err := e.Embed(context.Background(), texts(150))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(f.sizes()), "[64 64 22]"; got != want {
		t.Errorf("batch sizes %s, want %s", got, want)
	}
	for i, v := range vecs {
		// Unit length: first component n, last 1, scaled by 1/sqrt(n²+1).
		if want := float64(i) / math.Sqrt(float64(i*i+1)); math.Abs(float64(v[0])-want) > 1e-6 {
			t.Fatalf("vector %d starts %v, want %v: order lost", i, v[0], want)
		}
	}
	if got := string(f.requests[0].Dimensions); got != "8" {
		t.Errorf("dimensions sent as %q, want 8", got)
	}
	if f.requests[0].Model != "embed-small" {
		t.Errorf("model %q", f.requests[0].Model)
	}
}

func TestEmbedDefaultBatchSize(t *testing.T) {
	f := &fakeEmbeddings{dim: 4}
	e := embedder(t, f, 4)
	if _, err := e.Embed(context.Background(), texts(65)); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(f.sizes()), fmt.Sprintf("[%d 1]", llm.DefaultEmbedBatchSize); got != want {
		t.Errorf("batch sizes %s, want %s", got, want)
	}
}

// TestEmbedProbesDimension: without configured dimensions nothing is sent
// and one probe request learns the model's length.
func TestEmbedProbesDimension(t *testing.T) {
	f := &fakeEmbeddings{dim: 12}
	e, err := llm.NewEmbedder(context.Background(), serve(t, f), llm.EmbedConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim != 12 || e.ID != "openai:embed-small:12" {
		t.Errorf("Dim %d, ID %q; want 12, openai:embed-small:12", e.Dim, e.ID)
	}
	if len(f.requests) != 1 || f.requests[0].Dimensions != nil {
		t.Errorf("%d requests, dimensions %s; want one probe without dimensions", len(f.requests), f.requests[0].Dimensions)
	}
}

func TestEmbedRetriesRateLimitAndServerError(t *testing.T) {
	f := &fakeEmbeddings{dim: 4, fail: []int{http.StatusTooManyRequests, http.StatusInternalServerError}, message: "slow down"}
	e := embedder(t, f, 4)
	vecs, err := e.Embed(context.Background(), texts(3))
	if err != nil {
		t.Fatalf("after a 429 and a 500: %v", err)
	}
	if len(vecs) != 3 || len(f.sizes()) != 3 {
		t.Errorf("%d vectors after %d requests; want 3 after 3", len(vecs), len(f.sizes()))
	}
}

func TestEmbedDoesNotRetryClientErrors(t *testing.T) {
	for _, status := range []int{http.StatusBadRequest, http.StatusUnauthorized} {
		f := &fakeEmbeddings{dim: 4, fail: []int{status, status}, message: "Incorrect API key provided: sk-****"}
		e := embedder(t, f, 4)
		_, err := e.Embed(context.Background(), texts(2))
		if err == nil || !strings.Contains(err.Error(), "Incorrect API key provided") || !strings.Contains(err.Error(), strconv.Itoa(status)) {
			t.Errorf("status %d: error %v, want the server's status and message", status, err)
		}
		if n := len(f.sizes()); n != 1 {
			t.Errorf("status %d: %d requests, want 1 (no retry)", status, n)
		}
	}
}

func TestEmbedDimensionMismatch(t *testing.T) {
	f := &fakeEmbeddings{dim: 6}
	e := embedder(t, f, 8)
	_, err := e.Embed(context.Background(), texts(2))
	var de *llm.DimensionError
	if !errors.As(err, &de) || de.Want != 8 || de.Got != 6 || de.Model != "embed-small" {
		t.Fatalf("error %v, want a DimensionError 8 vs 6", err)
	}
	for _, want := range []string{"returned 6-dimensional vectors, but 8 were expected", "--embedding-dimensions to 6", "memory-mcp reindex"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestEmbedEmptyInput(t *testing.T) {
	f := &fakeEmbeddings{dim: 4}
	e := embedder(t, f, 4)
	vecs, err := e.Embed(context.Background(), nil)
	if err != nil || len(vecs) != 0 {
		t.Errorf("no texts: %d vectors, %v", len(vecs), err)
	}
	_, err = e.Embed(context.Background(), []string{"t1", ""})
	if err == nil || !strings.Contains(err.Error(), "text 2 of 2 is empty") {
		t.Errorf("empty text: %v", err)
	}
	if n := len(f.sizes()); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}

func TestEmbedRejectsMalformedResponses(t *testing.T) {
	vec := []float32{1, 0, 0, 0}
	for name, reply := range map[string]func(n int) []map[string]any{
		"too few": func(n int) []map[string]any { return []map[string]any{{"index": 0, "embedding": vec}} },
		"index twice": func(n int) []map[string]any {
			return []map[string]any{{"index": 0, "embedding": vec}, {"index": 0, "embedding": vec}}
		},
		"index past": func(n int) []map[string]any {
			return []map[string]any{{"index": 0, "embedding": vec}, {"index": 2, "embedding": vec}}
		},
		"zero vector": func(n int) []map[string]any {
			return []map[string]any{{"index": 0, "embedding": vec}, {"index": 1, "embedding": []float32{0, 0, 0, 0}}}
		},
	} {
		f := &fakeEmbeddings{dim: 4, reply: reply}
		e := embedder(t, f, 4)
		if _, err := e.Embed(context.Background(), texts(2)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestNewEmbedderErrors(t *testing.T) {
	f := &fakeEmbeddings{dim: 4, fail: []int{http.StatusNotFound}, message: "model \"nope\" not found"}
	_, err := llm.NewEmbedder(context.Background(), serve(t, f), llm.EmbedConfig{})
	if err == nil || !strings.Contains(err.Error(), "not found") || !strings.Contains(err.Error(), "dimension of") {
		t.Errorf("failed probe: %v", err)
	}
	noModel := llm.New(llm.Config{BaseURL: "http://127.0.0.1:1/v1"})
	if _, err := llm.NewEmbedder(context.Background(), noModel, llm.EmbedConfig{Dimensions: 4}); err == nil {
		t.Error("no model: accepted")
	}
	if _, err := llm.NewEmbedder(context.Background(), serve(t, f), llm.EmbedConfig{Dimensions: -1}); err == nil {
		t.Error("negative dimensions: accepted")
	}
}

// TestEmbedStopsRetryingWhenCancelled cancels the context while the
// embedder backs off after a 503: it gives up at once, after one request.
func TestEmbedStopsRetryingWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeEmbeddings{dim: 4, fail: []int{503, 503, 503, 503}, seen: cancel}
	e := embedder(t, f, 4)
	if _, err := e.Embed(ctx, texts(1)); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if n := len(f.sizes()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}
