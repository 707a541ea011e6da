package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

// TestLLMConsolidationEndToEnd runs consolidate_memory with the llm
// strategy through the server: without an endpoint it says what to
// configure; against a fake OpenAI-compatible endpoint the model's summary
// replaces the group, with the agent's task record as the model's context;
// an endpoint refusing the key stops the run with an error the caller can
// read, and nothing changes.
func TestLLMConsolidationEndToEnd(t *testing.T) {
	var mu sync.Mutex
	var systems, users []string
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		mu.Lock()
		defer mu.Unlock()
		if len(req.Messages) == 2 {
			systems, users = append(systems, req.Messages[0].Content), append(users, req.Messages[1].Content)
		}
		if status != http.StatusOK {
			w.WriteHeader(status)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`)
			return
		}
		content, _ := json.Marshal(map[string]string{"summary": "Tomatoes grow in the garden bed; aphids were sprayed; the first were harvested."})
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(content)}}}})
	}))
	defer srv.Close()

	dir := t.TempDir()
	var ids []string
	s := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann"}})
	for _, c := range []string{"The garden bed needs watering every morning.", "Planted tomatoes in the garden bed.",
		"Aphids on the garden tomatoes; sprayed soapy water.", "Harvested the first garden tomatoes."} {
		var r struct{ ID string }
		s.ok("remember", map[string]any{"content": c, "namespace": "home", "category": "episodic"}, &r)
		ids = append(ids, r.ID)
	}
	s.fail("consolidate_memory", map[string]any{"strategy": "llm", "older_than": "0"}, "EINVALID",
		"strategy llm needs a model: https://api.openai.com/v1 needs an API key: set llm-api-key (MEMORY_MCP_LLM_API_KEY) or OPENAI_API_KEY")
	s.stop()

	llmArgs := []string{"--agent-id", "ann", "--llm-base-url", srv.URL + "/v1", "--llm-model", "m", "--llm-timeout", "5s"}
	mu.Lock()
	status = http.StatusUnauthorized
	mu.Unlock()
	s = startIn(t, options{dataDir: dir, args: llmArgs})
	s.fail("consolidate_memory", map[string]any{"strategy": "llm", "older_than": "0"}, "EINVALID",
		"the LLM endpoint refused the synthesis request (HTTP 401)")
	var stats memory.MemoryStats
	s.ok("memory_stats", nil, &stats)
	if stats.Total.Active != 4 || stats.Total.Consolidated != 0 {
		t.Fatalf("a refused run changed the store: %+v", stats.Total)
	}

	mu.Lock()
	status = http.StatusOK
	mu.Unlock()
	s.ok("record_distillation", map[string]any{"task_id": "G-1", "outcome": "completed", "summary": "Looked after the garden.",
		"turns": 3, "tools_used": []string{"remember"}, "total_tool_calls": 4}, nil)
	var rep memory.ConsolidationReport
	s.ok("consolidate_memory", map[string]any{"strategy": "llm", "older_than": "0", "namespace": "home"}, &rep)
	if len(rep.Groups) != 1 || rep.Strategy != memory.ConsolidateLLM {
		t.Fatalf("report %+v", rep)
	}
	g := rep.Groups[0]
	if g.Mode != "llm" || !strings.HasPrefix(g.Summary, "Tomatoes grow") || len(g.Sources) != 3 || g.SummaryID == "" {
		t.Fatalf("group %+v", g)
	}
	var recalled struct{ Memories []memory.Entry }
	s.ok("recall_memory", map[string]any{"ids": append([]string{g.SummaryID}, ids...)}, &recalled)
	if sum := recalled.Memories[0]; !slices.Contains(sum.Tags, "llm-synthesized") || !slices.Equal(sum.Sources, g.Sources) {
		t.Fatalf("summary %+v", sum)
	}
	for _, e := range recalled.Memories[1:] {
		kept := e.ID == g.Kept
		if kept && !e.Active() || !kept && e.ConsolidatedInto != g.SummaryID {
			t.Errorf("memory %+v after the run (kept %s)", e, g.Kept)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	last := len(systems) - 1
	if !strings.Contains(systems[last], "<memory-data label=\"task record 1\">\nTask G-1 finished (outcome: completed).\nSummary: Looked after the garden.") {
		t.Errorf("the task record did not reach the model:\n%s", systems[last])
	}
	if strings.Count(users[last], "<memory-data label=\"entry ") != 3 {
		t.Errorf("the members did not reach the model fenced:\n%s", users[last])
	}
}
